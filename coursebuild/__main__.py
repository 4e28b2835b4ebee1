"""``python -m coursebuild``: build both branches, the student notebooks and the site; print the time."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .build import BuildError, build
from .context import BRANCHES
from .execute import NotebookExecutionError
from .qmd import QmdError
from .quarto import QuartoError
from .site import SiteConfigError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursebuild", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("."), help="project root (holds _quarto.yml)")
    parser.add_argument("--renderer", choices=("auto", "quarto", "fallback"), default="auto",
                        help="auto: Quarto if `quarto` is on PATH, else the Jupyter fallback")
    parser.add_argument("--branch", choices=BRANCHES, action="append",
                        help="build only this branch (repeatable; default: both)")
    parser.add_argument("--only", action="append", metavar="PAGE",
                        help="build only this page, e.g. lessons/lesson09_transpose_tiled.qmd (repeatable)")
    parser.add_argument("--no-execute", action="store_true", help="do not run the cells (structure only)")
    parser.add_argument("--jobs", type=int, default=None, help="notebooks executed in parallel")
    parser.add_argument("--fail-on-warnings", action="store_true",
                        help="fail the build when the renderer (Quarto) warns; warnings are always printed")
    args = parser.parse_args(argv)
    if not (args.root / "_quarto.yml").is_file():
        parser.error(f"{args.root / '_quarto.yml'} not found: run from the project root or pass --root")
    t0 = time.perf_counter()
    try:
        report = build(args.root, branches=tuple(args.branch or BRANCHES), renderer=args.renderer,
                       execute=not args.no_execute, jobs=args.jobs, only=args.only,
                       fail_on_warnings=args.fail_on_warnings,
                       log=lambda line: print(line, flush=True))     # progress shows in a piped CI log too
    except (BuildError, NotebookExecutionError, QmdError, QuartoError, SiteConfigError) as err:
        print(f"coursebuild: error: {err}", file=sys.stderr)
        print(f"coursebuild: failed after {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        return 1
    for note in report.notes:
        print(f"coursebuild: note: {note}")
    if report.warnings:
        print(f"coursebuild: {len(report.warnings)} renderer warning(s) (listed above; --fail-on-warnings makes "
              "them fatal)")
    print(f"coursebuild: built {len(report.pages)} pages x {len(report.branches)} branches with the "
          f"{report.renderer} renderer -> _site/ (student notebooks: _site/notebooks/)")
    print(f"coursebuild: total build time: {report.seconds:.1f} s (CPU {report.cpu_seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
