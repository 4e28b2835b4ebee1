"""The Quarto renderer: ``quarto render`` of a branch project with its profile.

Each branch folder ``_build/<branch>/`` is a complete Quarto project (``_quarto.yml`` and the profile
files copied from the repository, the branch's ``.qmd`` files and lesson resources). It is rendered
with ``--profile <branch>``; Quarto executes the cells itself (with this interpreter, through
``QUARTO_PYTHON``) and writes ``_build/<branch>/_site/<branch>/``, which the build moves to
``_site/<branch>/``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


class QuartoError(RuntimeError):
    """``quarto render`` failed; the message carries the tail of its output."""


def find_quarto() -> str | None:
    """Path of the ``quarto`` executable, or None."""
    return shutil.which("quarto")


def quarto_version(quarto: str) -> str:
    try:
        return subprocess.run([quarto, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_WARNING = re.compile(r"^\s*(?:WARN(?:ING)?\b|\[WARNING\])")


def quarto_warnings(output: str) -> list[str]:
    """Warning messages in Quarto's (and pandoc's) output, one per warning, colour codes removed.

    A warning line may be followed by indented or continuation lines (e.g. the file it concerns); they are
    joined to it up to the next blank line or progress line."""
    out: list[str] = []
    current: list[str] | None = None
    for raw in _ANSI.sub("", output).splitlines():
        if _WARNING.match(raw):
            if current:
                out.append(" ".join(current))
            current = [raw.strip()]
        elif current is not None and raw.strip() and raw.startswith((" ", "\t")):
            current.append(raw.strip())
        elif current is not None:
            out.append(" ".join(current))
            current = None
    if current:
        out.append(" ".join(current))
    return out


def render_branch(quarto: str, project: Path, branch: str, dest: Path, timeout: int = 1800,
                  pythonpath: str | None = None, env: dict[str, str] | None = None) -> list[str]:
    """Render ``project`` with ``--profile branch`` and move its output to ``dest``; returns Quarto's warnings.

    ``pythonpath`` (the repository root) lets the lessons import labsim, figures and grading.
    """
    # COURSEBUILD_STATIC: explorers render their static form (figures/static_explorer.py)
    env = dict(os.environ, QUARTO_PYTHON=sys.executable, QUARTO_PROFILE=branch, COURSEBUILD_BRANCH=branch,
               COURSEBUILD_STATIC="1", COURSEBUILD_RENDERER="quarto", **(env or {}))
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, os.environ.get("PYTHONPATH")]))
    proc = subprocess.run([quarto, "render", str(project), "--profile", branch], cwd=project, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-40:])
        raise QuartoError(f"quarto render {project} --profile {branch} failed (exit {proc.returncode}):\n{tail}")
    out = project / "_site" / branch
    if not out.is_dir():
        raise QuartoError(f"quarto render produced no {out}; does _quarto-{branch}.yml set "
                          f"project.output-dir to _site/{branch}?")
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(out), str(dest))
    return quarto_warnings(proc.stdout + "\n" + proc.stderr)
