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
import threading
from pathlib import Path
from typing import Callable


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


_PROGRESS = re.compile(r"^\s*\[\s*(\d+)/(\d+)\]\s+(\S+)")


def quarto_progress(line: str) -> tuple[int, int, str] | None:
    """``(k, n, file)`` of Quarto's per-file progress line ``[ 2/5] lessons/x.qmd``, else None."""
    m = _PROGRESS.match(_ANSI.sub("", line))
    return (int(m[1]), int(m[2]), m[3]) if m else None


def render_branch(quarto: str, project: Path, branch: str, dest: Path, timeout: int = 1800,
                  pythonpath: str | None = None, env: dict[str, str] | None = None,
                  on_page: Callable[[int, int, str], None] | None = None) -> list[str]:
    """Render ``project`` with ``--profile branch`` and move its output to ``dest``; returns Quarto's warnings.

    ``pythonpath`` (the repository root) lets the lessons import labsim, figures and grading. ``on_page(k, n,
    file)`` is called as Quarto starts rendering each file (its output is read while it runs), so a caller
    can show progress and time each page.
    """
    # COURSEBUILD_STATIC: explorers render their static form (figures/static_explorer.py)
    env = dict(os.environ, QUARTO_PYTHON=sys.executable, QUARTO_PROFILE=branch, COURSEBUILD_BRANCH=branch,
               COURSEBUILD_STATIC="1", COURSEBUILD_RENDERER="quarto", **(env or {}))
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, os.environ.get("PYTHONPATH")]))
    proc = subprocess.Popen([quarto, "render", str(project), "--profile", branch], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line)
            hit = quarto_progress(line)
            if hit and on_page is not None:
                on_page(*hit)
        returncode = proc.wait()
    finally:
        killer.cancel()
    output = "".join(lines)
    if returncode != 0:
        tail = "\n".join(output.strip().splitlines()[-40:])
        why = f"killed after {timeout} s" if returncode < 0 else f"exit {returncode}"
        raise QuartoError(f"quarto render {project} --profile {branch} failed ({why}):\n{tail}")
    out = project / "_site" / branch
    if not out.is_dir():
        raise QuartoError(f"quarto render produced no {out}; does _quarto-{branch}.yml set "
                          f"project.output-dir to _site/{branch}?")
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(out), str(dest))
    return quarto_warnings(output)
