"""Step 1: copy the grading package (sources and data, no caches) and only the chosen exercises; an exercise
from another root (GRADING_EXERCISES) is copied into the package's exercises/ folder."""
from __future__ import annotations

import shutil
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent


def run(ctx) -> None:
    if ctx.out.exists():
        shutil.rmtree(ctx.out)

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == "__pycache__" or n.endswith((".pyc", ".pyo"))}
        if Path(folder).resolve() == (SOURCE / "exercises").resolve():
            skip |= {n for n in names if (Path(folder) / n).is_dir() and n not in ctx.exercises}
        return skip

    shutil.copytree(SOURCE, ctx.out, ignore=ignore)
    ctx.log.append(f"copied {SOURCE} -> {ctx.out}")
    from ..spec import load_exercise
    for name in ctx.exercises:
        folder = load_exercise(name).folder
        if folder.resolve().parent != (SOURCE / "exercises").resolve():
            shutil.copytree(folder, ctx.out / "exercises" / name, ignore=shutil.ignore_patterns("__pycache__", "*.py[co]"))
            ctx.log.append(f"copied {folder} -> {ctx.out / 'exercises' / name}")
