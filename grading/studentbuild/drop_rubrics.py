"""Step 3: remove the answers: rubrics (reference answers reduced to what a grader looks for) and the
reference solutions."""
from __future__ import annotations


def run(ctx) -> None:
    for p in sorted([*ctx.out.glob("exercises/*/rubric.toml"), *ctx.out.glob("exercises/*/solution.cu")]):
        p.unlink()
        ctx.log.append(f"removed {p.relative_to(ctx.out)}")
