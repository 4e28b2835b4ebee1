"""The student hand-out: installable, runs the public check, ships nothing hidden."""
from __future__ import annotations

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
            "print('VERDICT', check(%r).ok, check(%r).ok)" % (str(kit), str(template), str(filled)))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(kit)
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(kit)!r})\n" + code],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "VERDICT False True" in out.stdout and "______" in out.stdout
