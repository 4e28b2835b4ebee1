"""Grading speed: one submission (hidden checks, no nvcc) and a batch of generated submissions.

    python -m grading.bench [--exercise ID] [--n 200] [--jobs 2]

The figures only; ``make bench`` (tools/bench.py ``--only grading``) holds the targets and prints PASS/FAIL.
The exercise defaults to config ``[bench] default = true`` (else the only one); its ``[bench]`` table lists
the blanks a class might hand in and one edit (``edit = [text, replacement]``) some submissions carry.
Times are wall seconds and CPU seconds (``time.process_time``; for a batch, the workers' CPU too).
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

from .spec import Exercise, available, load_exercise, resolve


def bench_exercise(name: str | None = None) -> Exercise:
    """The exercise named, else the one whose config says ``[bench] default = true``, else the only one."""
    if name is None:
        marked = [n for n in available() if load_exercise(n).config.get("bench", {}).get("default")]
        name = marked[0] if len(marked) == 1 else None
    return resolve(name)


def _solution_blank(ex: Exercise) -> str:
    from .conformance import check_conformance
    return check_conformance(ex.template, ex.solution_path.read_text(encoding="utf-8"), blank=ex.blank,
                             names=ex.names, rules=ex.blank_rules).blank_text


def generate(folder: Path, n: int, ex: Exercise | None = None) -> list[tuple[str, Path]]:
    """``n`` submissions: .cu files and notebooks, mostly plausible, some broken, deterministic by index."""
    from .source import discover
    ex = ex or bench_exercise()
    bench = ex.config.get("bench", {})
    blanks = bench.get("blanks") or [_solution_blank(ex)]
    old, new = bench.get("edit", ["", ""])
    folder.mkdir(parents=True, exist_ok=True)
    saved: dict[str, dict] = {}
    for i in range(n):
        blank = blanks[i % len(blanks)]
        code = ex.template.replace(ex.blank, blank)
        if i % 17 == 5 and old:
            code = code.replace(old, new)
        if i % 4 == 3:
            cell = {"cell_type": "code", "metadata": {"course_role": "exercise"}, "outputs": [], "execution_count": None,
                    "source": f"%%writefile {ex.config['target']}\n{code}"}
            answers = [{"cell_type": "markdown", "metadata": {},
                        "source": f"### {m.headings[0]}\n\n**{m.marker}：**\n\n回答 {i}-{m.id}"} for m in ex.manual]
            # the check cell as Jupyter saves it (its text and HTML view), so grading re-runs it as for a class
            nb = {"cells": [cell, _check_cell(ex, code, folder, saved), *answers], "metadata": {}, "nbformat": 4,
                  "nbformat_minor": 5}
            (folder / f"s{i:04d}.ipynb").write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
        else:
            (folder / f"s{i:04d}.cu").write_text(code, encoding="utf-8")
    return discover([folder], ex)


def _check_cell(ex: Exercise, code: str, folder: Path, saved: dict[str, dict]) -> dict:
    """A check cell with the output check() displays in a notebook for ``code`` (computed once per code)."""
    if code not in saved:
        from .checkcell import check
        p = folder.parent / f"_check_{len(saved)}.cu"
        p.write_text(code, encoding="utf-8")
        rep = check(p, ex.id, quiet=True, cell_lines=1)
        saved[code] = {"output_type": "display_data", "metadata": {},
                       "data": {"text/plain": rep.text(), "text/html": rep.html()}}
    return {"cell_type": "code", "metadata": {"course_role": "check"}, "execution_count": 2,
            "source": f'from grading import check\nreport = check("{ex.config["target"]}")', "outputs": [saved[code]]}


def time_one(ex: Exercise, repeats: int = 5) -> dict:
    """One submission (the reference solution) through the whole pipeline with hidden checks, nvcc off, in this
    process: the first run, and the median of the warm ones, in wall and CPU seconds."""
    from .grade import Options, grade_submission
    times, cpus = [], []
    for _ in range(repeats):
        ex.cache.pop("runs", None), ex.cache.pop("programs", None)   # grading is memoised per source: time it all
        t, c = time.perf_counter(), time.process_time()
        res = grade_submission(ex.solution_path, ex, name="bench", options=Options(nvcc="off"))
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    assert res.score == sum(c.points for c in ex.public_checks + ex.hidden_checks), res
    warm = slice(1, None) if repeats > 1 else slice(None)
    return {"first_s": times[0], "median_warm_s": statistics.median(times[warm]), "first_cpu_s": cpus[0],
            "median_warm_cpu_s": statistics.median(cpus[warm])}


def time_cold(ex: Exercise) -> float:
    """Wall time of ``python -m grading grade`` on one submission in a fresh process (imports included)."""
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grading", "grade", "--exercise", ex.id, str(ex.solution_path),
                        "--out", tmp, "--nvcc", "off", "--no-progress", "--jobs", "1"], check=True,
                       stdout=subprocess.DEVNULL, cwd=Path(__file__).resolve().parent.parent)
        return time.perf_counter() - t


def time_batch(ex: Exercise, n: int, jobs: int) -> dict:
    from .batch import grade_many
    from .pipeline import Options
    with tempfile.TemporaryDirectory() as tmp:
        items = generate(Path(tmp) / "in", n, ex)
        t, c, cc = time.perf_counter(), time.process_time(), _children_cpu()
        results = grade_many(items, ex.id, Path(tmp) / "out", jobs=jobs, options=Options(nvcc="off"),
                             progress=sys.stderr.isatty())
        dt = time.perf_counter() - t
        cpu = time.process_time() - c + _children_cpu() - cc
    verdicts: dict[str, int] = {}
    receipts: dict[str, int] = {}
    for r in results:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
        if "receipt" in r.instructor:
            receipts[r.instructor["receipt"]] = receipts.get(r.instructor["receipt"], 0) + 1
    return {"n": len(results), "jobs": jobs, "seconds": dt, "per_submission_s": dt / max(1, len(results)),
            "cpu_seconds": cpu, "verdicts": verdicts, "receipts": receipts,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the batch's workers, once reaped)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run(n_batch: int = 200, jobs: int = 2, exercise: str | None = None, quiet: bool = False) -> dict:
    """Measure (and unless ``quiet`` print) one submission, a fresh CLI run and a batch; returns the figures."""
    ex = bench_exercise(exercise)
    one = time_one(ex)
    cold = time_cold(ex)
    batch = time_batch(ex, n_batch, jobs)
    if not quiet:
        print(f"{ex.id}: one submission, hidden checks, no nvcc: first {one['first_s']:.3f} s "
              f"({one['first_cpu_s']:.3f} s CPU), warm median {one['median_warm_s']:.3f} s "
              f"({one['median_warm_cpu_s']:.3f} s CPU); fresh `python -m grading grade` {cold:.2f} s")
        print(f"{ex.id}: {batch['n']} generated submissions on {batch['jobs']} workers: {batch['seconds']:.1f} s "
              f"({batch['cpu_seconds']:.1f} s CPU), {batch['per_submission_s']:.3f} s each, verdicts "
              f"{batch['verdicts']}, worker peak RSS {batch['peak_rss_mib']:.0f} MiB, receipts re-checked "
              f"{batch['receipts']}")
    return {"exercise": ex.id, "one": one, "cold_cli_s": cold, "batch": batch}


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m grading.bench")
    p.add_argument("--exercise", default=None)
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    a = p.parse_args(sys.argv[1:] if __name__ == "__main__" else [])
    run(a.n, a.jobs, a.exercise)


if __name__ == "__main__":
    main()
