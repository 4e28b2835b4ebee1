"""The fallback build renders each pure figure (figures.lessonkit.pure_figure) once: both branches of the built
site carry the same PNG, the one the build stored."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from sitebuilds import build_info, site_root  # noqa: E402

# (page, the cell's call, the stored file's function): the lesson figures the build renders once
CACHED = (("lessons/lesson09_transpose_tiled.qmd", "lesson09_explorer.variant_grid()",
           "figures.lesson09_explorer.variant_grid"),
          ("lessons/prelude/index.qmd", "p2.pattern_sector_maps()", "figures.p2.pattern_sector_maps"),
          ("lessons/lesson08_transpose_naive.qmd", "lesson08.naive_sector_maps()", "figures.lesson08.naive_sector_maps"))


@pytest.fixture(scope="module")
def built() -> Path:
    return site_root("fallback")


def _pngs(root: Path, branch: str, page: str, call: str) -> list[str]:
    nb = json.loads((root / "_build" / "executed" / branch / page.replace(".qmd", ".ipynb")).read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and call in "".join(c["source"])]
    assert len(cells) == 1, f"{branch} {page}: {len(cells)} cells call {call}"
    return [o["data"]["image/png"] for o in cells[0]["outputs"] if "image/png" in o.get("data", {})]


@pytest.mark.parametrize("page, call, function", CACHED, ids=[c[2].rsplit(".", 1)[1] for c in CACHED])
def test_both_branches_show_the_stored_png(built, page, call, function):
    cache = built / "_build" / "figure-cache" / build_info(built)["inputs_digest"][:16]
    stored = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(cache.glob("*.json"))]
    mine = [s["data"]["image/png"] for s in stored if s["function"] == function]
    answer, exercise = _pngs(built, "answer", page, call), _pngs(built, "exercise", page, call)
    assert len(answer) == 1 and answer == exercise
    assert answer[0] in mine, f"{function}: the page's PNG is not the one the build stored in {cache}"
