"""Step 5: remove instructor tools a student copy does not need (batch grading, bundles, benchmark, this
builder)."""
from __future__ import annotations

import shutil

TOOLS = ("batch.py", "bundle.py", "bench.py", "gradebook.py", "studentbuild")


def run(ctx) -> None:
    for name in TOOLS:
        p = ctx.out / name
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
        else:
            continue
        ctx.log.append(f"removed {name}")
