"""tools/bench.py's command line: --help and --list run nothing, --only/--skip pick groups, bad names are refused.
(The benchmark itself prints its targets; no test times anything.)"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import bench  # noqa: E402


@pytest.fixture
def nothing_runs(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("the benchmark ran a case")
    monkeypatch.setattr(bench, "_child_run", refuse)
    monkeypatch.setattr(bench.subprocess, "run", refuse)


def test_help_prints_usage_and_runs_nothing(nothing_runs, capsys):
    with pytest.raises(SystemExit) as ei:
        bench.main(["--help"])
    assert ei.value.code == 0
    out = capsys.readouterr().out
    assert "usage: tools/bench.py" in out and "--only GROUPS" in out and "--quick" in out
    assert all(g in out for g in bench.GROUPS)


def test_list_names_every_group_and_target_and_runs_nothing(nothing_runs, capsys):
    bench.main(["--list"])
    out = capsys.readouterr().out
    assert {line.split()[0] for line in out.splitlines()} == set(bench.GROUPS)
    assert "<= 50 ns CPU per multiply-add" in out and "<= 0.15 s CPU" in out and "Numba" in out


def test_only_and_skip_pick_groups_in_their_order():
    a = bench.parse_args(["--only", "numba,gemm", "--quick"])
    assert a.groups == ["gemm", "numba"] and a.quick
    assert bench.parse_args(["--skip", "grading,scaling"]).groups == ["transpose", "p2", "gemm", "numba"]
    assert bench.parse_args([]).groups == list(bench.GROUPS)


def test_unknown_group_is_refused_with_the_choices(capsys):
    with pytest.raises(SystemExit) as ei:
        bench.parse_args(["--only", "gemm,fast"])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert "unknown group(s) fast" in err and "transpose, p2, gemm" in err


def test_only_the_chosen_groups_run(monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(bench, "run_gemm", lambda quick: ran.append(("gemm", quick)))
    monkeypatch.setattr(bench, "run_numba", lambda: ran.append(("numba",)))
    monkeypatch.setattr(bench, "_child_run", lambda *a, **k: pytest.fail("another group ran"))
    bench.main(["--only", "gemm,numba", "--quick"])
    assert ran == [("gemm", True), ("numba",)]
