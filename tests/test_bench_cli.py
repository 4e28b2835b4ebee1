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


def test_scaling_table_takes_the_least_of_rounds_run_in_turn(monkeypatch, capsys):
    """Every case runs once per round, the whole table in turn; a size is judged by its least figure, so one slow
    sample (another job on the cores) does not fail a row; an error in any round fails its cell."""
    calls = []
    # (kernel, api, n) -> per-round ns per element; 512 python is slow in round 1 only
    figures = {("copy", "python", 256): [20, 21, 22], ("copy", "python", 512): [60, 19, 20],
               ("copy", "cuda", 256): [30, 30, 30], ("copy", "cuda", 512): [30, "boom", 30]}

    def fake(case, repeat=None):
        _, kernel, api, n = case.split(":")
        k = (kernel, api, int(n))
        calls.append(k)
        v = figures[k][sum(c == k for c in calls) - 1]
        return v if isinstance(v, str) else {"per_element_ns": v, "cpu_seconds": 0.0, "peak_rss_mib": 1.0}

    monkeypatch.setattr(bench, "_child_run", fake)
    bench.scaling_table({"copy": (256, 512)}, None, rounds=3)
    assert calls == list(figures) * 3                      # the table in turn, three times
    rows = [line for line in capsys.readouterr().out.splitlines() if " copy " in line]
    python, cuda = rows
    assert python.startswith("PASS") and "512: 19 ns" in python and "rounds 60/19/20" in python
    assert cuda.startswith("FAIL (errors)") and "512: error (boom)" in cuda


def test_gemm_sizes_are_watched_for_a_cpu_budget_not_a_fixed_count():
    """A short launch is repeated until the warm launches have taken GEMM_MIN_CPU seconds (a fixed count watched
    128³ for 20 ms against 512³'s second); a long one still runs GEMM_RUNS times; GEMM_MAX_RUNS caps the count."""
    def runs_of(cpu_each, **kw):
        n = []
        got = bench.warm_runs(lambda: n.append(1) or (cpu_each * 2, cpu_each), **kw)
        assert len(got) == len(n) and all(g == (cpu_each * 2, cpu_each) for g in got)
        return len(got)
    # CPU times that are exact binary fractions: the sums are exact
    assert runs_of(1 / 64, least=3, cpu=0.5, most=200) == 32
    assert runs_of(0.5, least=3, cpu=0.5, most=200) == 3
    assert runs_of(0.25, least=3, cpu=0.5, most=200) == 3
    assert runs_of(0.125, least=3, cpu=0.5, most=200) == 4
    assert runs_of(1 / 1024, least=3, cpu=0.5, most=200) == 200
    assert runs_of(1 / 64) == min(bench.GEMM_MAX_RUNS, max(bench.GEMM_RUNS, round(bench.GEMM_MIN_CPU * 64)))
