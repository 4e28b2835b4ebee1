"""Step 3: remove the answers and other instructor files each exercise names: rubrics (reference answers
reduced to what a grader looks for), the reference solution, and config ``instructor_files``."""
from __future__ import annotations


def run(ctx) -> None:
    from ..spec import load_exercise
    for name in ctx.exercises:
        folder = ctx.out / "exercises" / name
        for f in load_exercise(name).instructor_files:
            p = folder / f
            if f != "hidden_checks.py" and p.is_file():
                p.unlink()
                ctx.log.append(f"removed {p.relative_to(ctx.out)}")
