"""The student hand-out: installable, runs the public check, ships nothing hidden."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from coursebuild.studentkit import make_student_kit

ROOT = Path(__file__).resolve().parents[2]


def test_kit_runs_the_public_check_without_the_repo(tmp_path):
    kit = tmp_path / "kit"
    kit.mkdir()
    make_student_kit(ROOT, kit)
    assert not list(kit.rglob("hidden*")), "hidden checks shipped"
    assert not (kit / "grading" / "exercises" / "lesson09" / "solution.cu").exists()
    config = (kit / "grading" / "exercises" / "lesson09" / "config.toml").read_text(encoding="utf-8")
    real = (ROOT / "grading" / "exercises" / "lesson09" / "config.toml").read_text(encoding="utf-8")
    secret_lines = [ln for ln in real.splitlines() if ln.startswith("instructor_secret")]
    assert secret_lines and not any(ln in config for ln in secret_lines)
    with open(kit / "pyproject.toml", "rb") as f:
        meta = tomllib.load(f)["project"]
    with open(ROOT / "pyproject.toml", "rb") as f:
        assert set(tomllib.load(f)["project"]["dependencies"]) <= set(meta["dependencies"])
    # run from the kit alone: the repo is not importable
    template = ROOT / "grading" / "exercises" / "lesson09" / "template.cu"
    filled = tmp_path / "filled.cu"
    filled.write_text(template.read_text(encoding="utf-8").replace("______", "TILE_DIM + 1"), encoding="utf-8")
    code = ("import grading, labsim; assert grading.__file__.startswith(%r), grading.__file__\n"
            "from grading import check\n"
            "print('VERDICT', check(%r).ok, check(%r).ok)\n"
            "from figures import p2, recordings\n"
            "print('SOURCE', recordings.source(), recordings.gemm_counters('gemm_tiled16')"
            "['smsp__inst_executed_op_shared_ld.sum'])\n"
            "print('SCRIPT', [row[0] for row in p2.script_launch_table().data][:1])\n"
            % (str(kit), str(template), str(filled)))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(kit)
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(kit)!r})\n" + code],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "VERDICT False True" in out.stdout and "______" in out.stdout
    # the kit reads its own copy of the H200 recordings and of the P2 script, never the repo's
    assert "SOURCE kit bundle 10240" in out.stdout, out.stdout
    assert "SCRIPT ['连续：线程 i 读第 i 个 float32']" in out.stdout, out.stdout


def test_kit_data_is_small_and_equals_the_repo_reading(tmp_path):
    from figures import p2, recordings
    kit = tmp_path / "kit"
    kit.mkdir()
    make_student_kit(ROOT, kit)
    bundle = kit / "figures" / recordings.BUNDLE
    assert bundle.stat().st_size < 100 * 1024, bundle.stat().st_size      # parsed results, not raw reports
    data = json.loads(gzip.decompress(bundle.read_bytes()))
    assert sorted(data) == sorted(recordings.KIT)
    # the same values the repo reads from measurements/h200/, parsed independently of the bundle here
    raw = json.loads((ROOT / "measurements/h200/gemm/results.json").read_text(encoding="utf-8"))
    assert data["gemm"] == raw
    assert data["sanitizer"]["wrong_outputs"]["plain"] and data["gemm_sass"]["gemm_tiled16"]["STS"] >= 1
    assert (kit / "figures" / p2.SCRIPT_DATA).read_bytes() == (ROOT / p2.SCRIPT).read_bytes()
    with open(kit / "pyproject.toml", "rb") as f:
        package_data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    assert {"_kitdata/h200.json.gz", "_kitdata/02_memory_coalescing.py", "static_explorer.js"} <= set(package_data["figures"])
    # every file the kit's package folders hold that is not a module is package data of its package
    for pkg, files in package_data.items():
        for f in files:
            assert (kit / pkg.replace(".", "/") / f).is_file(), (pkg, f)
    n_data = sum(1 for top in ("labsim", "figures", "grading") for p in (kit / top).rglob("*")
                 if p.is_file() and not (p.suffix == ".py" and (p.parent / "__init__.py").is_file())
                 and p.suffix != ".pyc" and "__pycache__" not in p.parts)
    assert sum(map(len, package_data.values())) == n_data
    assert not (ROOT / "figures" / "_kitdata").exists()      # written into the kit only


def test_a_reference_fill_anywhere_in_the_kit_fails_its_build(tmp_path):
    """grading's student build ends by scanning every file of the kit for each exercise's reference fill
    (the solution diffed against the template): in a notebook, and in a copied package."""
    import pytest
    from grading.studentbuild.verify import BuildError
    kit = tmp_path / "kit"
    (kit / "lessons").mkdir(parents=True)
    # lesson 8's fill as a student's notebook would hold it (the statement of the blank, filled)
    (kit / "lessons" / "x.ipynb").write_text('{"cells": [{"source": ["int e = tx*TILE_DIM + ty + j;"]}]}',
                                             encoding="utf-8")
    with pytest.raises(BuildError, match=r"lessons/x\.ipynb:1: contains lesson08's answer"):
        make_student_kit(ROOT, kit)
    # a figures module that carries lesson 10's fill, in a course whose other parts are this repo's
    root = tmp_path / "course"
    root.mkdir()
    for name in ("labsim", "grading", "lessons", "measurements", "pyproject.toml"):
        (root / name).symlink_to(ROOT / name)
    import shutil
    shutil.copytree(ROOT / "figures", root / "figures", ignore=shutil.ignore_patterns("__pycache__"))
    with open(root / "figures" / "kernels.py", "a", encoding="utf-8") as f:
        f.write('\nB_INDEX = "(t + ty) * N + col"\n')
    kit2 = tmp_path / "kit2"
    kit2.mkdir()
    with pytest.raises(BuildError, match=r"figures/kernels\.py:\d+: contains lesson10's answer '\(t \+ ty\) \* N \+ col'"):
        make_student_kit(root, kit2)
