"""Hidden checks of part 2's challenge: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import check_case, draw_not_multiple, oob_outcome, Outcome, race_outcome, runs_outcome
from grading.context import RunContext
from grading.sim import Case
from grading.whole import counter_outcome

from .exercise import structs


def cases(rng: np.random.Generator) -> dict[str, list[Case]]:
    """Multiples of 256, sizes no usual block size divides (odd ones among them), the race cases, the counter case."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    regular = [structs(f"regular-{i}", "regular", 256 * int(v), seed()) for i, v in
               enumerate(rng.choice(np.arange(1, 17), 2, replace=False))]
    boundary = [
        structs("one", "boundary", 1, seed()),
        structs("under-a-warp", "boundary", draw_not_multiple(rng, 2, 31, 2), seed()),
        structs("odd", "boundary", draw_not_multiple(rng, 257, 1500, 2), seed()),
        structs("ragged", "boundary", draw_not_multiple(rng, 1025, 4000, 32), seed()),
        structs("prime", "boundary", int(rng.choice((997, 1009, 2039, 3001))), seed()),
    ]
    race = [structs("race-ragged", "race", draw_not_multiple(rng, 600, 2000, 32), seed()),
            structs("race-regular", "race", 2048, seed())]
    return {"regular": regular, "boundary": boundary, "race": race,
            "counter": [structs("counter", "counter", 256 * int(rng.choice((8, 12, 16))), seed())]}


@check_case(name="挑战·256 倍数的 n（随机值）：x、y、z 正确", points=1, hidden=True, kind="regular",
            tags=("rubric:normal",))
def challenge_p2_regular_sizes(ctx: RunContext) -> Outcome:
    return runs_outcome("256 倍数的 n", ctx.runs("regular"))


@check_case(name="挑战·边界大小（n = 1、不满一个 warp、奇数、非 32 倍数、质数）：x、y、z 正确", points=1, hidden=True,
            kind="boundary", tags=("rubric:boundary",))
def challenge_p2_boundary_sizes(ctx: RunContext) -> Outcome:
    return runs_outcome("边界大小", ctx.runs("boundary"))


@check_case(name="挑战·对抗调度下无数据竞争、结果仍正确", points=1, hidden=True, kind="race", tags=("rubric:race",))
def challenge_p2_race_free(ctx: RunContext) -> Outcome:
    return race_outcome(ctx)


@check_case(name="挑战·读 + 写的 global sector 数 / 元素在理想值的 4/3 以内", points=2, hidden=True, kind="counter",
            tags=("rubric:counter",))
def challenge_p2_sector_target(ctx: RunContext) -> Outcome:
    return counter_outcome(ctx, "sectors")


@check_case(name="挑战·无越界访问", hidden=True, kind="oob")
def challenge_p2_oob_free(ctx: RunContext) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
