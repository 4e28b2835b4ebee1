"""Grading speed: one submission (hidden checks, no nvcc) and a batch of generated submissions.

    python -m grading.bench [--n 200] [--jobs 2]      # or grading.bench.run(n_batch=200) from tools/bench.py

Targets (issue 4): one submission <= 10 s; 200 submissions on 2 cores <= 5 min.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .spec import load_exercise

# Blanks a class might hand in, and edits around them (kinds of submission, not answers to grade by).
_BLANKS = ["TILE_DIM + 1", "33", "TILE_DIM+1", "TILE_DIM + 3", "TILE_DIM + 2", "TILE_DIM", "64", "TILE_DIM - 1",
           "2 * TILE_DIM + 1", "______", "TILE_DIM +", "33]; int x[1", "BLOCK_ROWS * 4 + 1", "0x21"]


def generate(folder: Path, n: int) -> list[tuple[str, Path]]:
    """``n`` submissions: .cu files and notebooks, mostly plausible, some broken, deterministic by index."""
    from .source import discover
    ex = load_exercise("lesson09")
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        blank = _BLANKS[i % len(_BLANKS)]
        code = ex.template.replace(ex.blank, blank)
        if i % 17 == 5:
            code = code.replace("    __syncthreads();\n", "")
        if i % 4 == 3:
            cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                    "source": f"#| course_role: exercise\n%%writefile {ex.config['target']}\n{code}"}
            answers = [{"cell_type": "markdown", "metadata": {}, "source": f"### Q{q}\n\n**你的答案：**\n\n回答 {i}-{q}"}
                       for q in (1, 2, 3)]
            nb = {"cells": [cell, *answers], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
            (folder / f"s{i:04d}.ipynb").write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
        else:
            (folder / f"s{i:04d}.cu").write_text(code, encoding="utf-8")
    return discover([folder], ex)


def time_one(repeats: int = 5) -> dict:
    """One submission through the whole pipeline with hidden checks, nvcc off, in this process."""
    from .pipeline import Options, grade_submission
    ex = load_exercise("lesson09")
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        res = grade_submission(ex.solution_path, ex, name="bench", options=Options(nvcc="off"))
        times.append(time.perf_counter() - t)
    assert res.score == 3, res
    return {"first_s": times[0], "median_warm_s": statistics.median(times[1:]) if len(times) > 1 else times[0]}


def time_cold() -> float:
    """Wall time of ``python -m grading grade`` on one submission in a fresh process (imports included)."""
    ex = load_exercise("lesson09")
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grading", "grade", "--exercise", "lesson09", str(ex.solution_path),
                        "--out", tmp, "--nvcc", "off", "--no-progress", "--jobs", "1"], check=True,
                       stdout=subprocess.DEVNULL, cwd=Path(__file__).resolve().parent.parent)
        return time.perf_counter() - t


def time_batch(n: int, jobs: int) -> dict:
    from .batch import grade_many
    from .pipeline import Options
    with tempfile.TemporaryDirectory() as tmp:
        items = generate(Path(tmp) / "in", n)
        t = time.perf_counter()
        results = grade_many(items, "lesson09", Path(tmp) / "out", jobs=jobs, options=Options(nvcc="off"),
                             progress=sys.stderr.isatty())
        dt = time.perf_counter() - t
    verdicts: dict[str, int] = {}
    for r in results:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    return {"n": len(results), "jobs": jobs, "seconds": dt, "per_submission_s": dt / max(1, len(results)),
            "verdicts": verdicts,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def run(n_batch: int = 200, jobs: int = 2) -> dict:
    """Measure and print the two figures; returns them."""
    one = time_one()
    cold = time_cold()
    batch = time_batch(n_batch, jobs)
    print(f"{'grading_one':<22} {one['first_s']:8.3f} s  one submission, hidden checks, no nvcc (first in process; "
          f"warm median {one['median_warm_s']:.3f} s; fresh `python -m grading grade` {cold:.2f} s) "
          "(target <= 10 s)")
    print(f"{'grading_batch':<22} {batch['seconds']:8.3f} s  {batch['n']} generated submissions, {batch['jobs']} "
          f"workers, {batch['per_submission_s']:.3f} s each, verdicts {batch['verdicts']}, worker peak RSS "
          f"{batch['peak_rss_mib']:.0f} MiB (target <= 300 s)")
    return {"one": one, "cold_cli_s": cold, "batch": batch}


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m grading.bench")
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    a = p.parse_args(sys.argv[1:] if __name__ == "__main__" else [])
    run(a.n, a.jobs)


if __name__ == "__main__":
    main()
