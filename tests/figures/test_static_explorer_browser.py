"""Lesson 9's static explorer in headless Chromium: moving the controls shows labsim's numbers.

A stand-alone page holding only the explorer (the site tests drive it again on the built lesson pages).
Skips with a reason without /usr/bin/chromium or the playwright package.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # tests/explorer_drive.py
import explorer_drive  # noqa: E402

from figures.lesson09_kernels import tile_access  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "explorer"
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} not installed (run tools/ensure_system_packages.sh)", allow_module_level=True)
playwright_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@pytest.fixture(scope="module")
def page(tmp_path_factory, bank_explorer):
    ex = bank_explorer
    path = tmp_path_factory.mktemp("explorer") / "explorer.html"
    path.write_text(f'<!DOCTYPE html><html lang="zh"><head><meta charset="utf-8"><title>t</title></head>'
                    f"<body>{ex.html()}</body></html>", encoding="utf-8")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        pg = browser.new_page(viewport={"width": 1100, "height": 900})
        pg.set_default_timeout(120_000)           # a hang guard, not a speed target: the machine may be busy
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.goto(path.as_uri())
        yield pg, ex, errors
        browser.close()


def test_moving_controls_updates_numbers_and_figure(page):
    pg, ex, errors = page
    root = f"#{ex.key}"
    assert explorer_drive.numbers(pg, root)["wavefronts"] == str(tile_access(0, "float32", "column").wavefronts)
    pg.select_option(f"{root} select", label="__half (float16)")
    pg.locator(f"{root} .ce-control[data-control=pad] input[type=range]").fill("1")
    slider = pg.locator(f"{root} .ce-control[data-control=index] input[type=range]")
    shown = {}
    for col in (6, 7):
        slider.fill(str(col))
        shown[col] = explorer_drive.numbers(pg, root)
        title = pg.locator(f"{root} svg.ce-heatmap .ce-title").text_content()
        assert f"tile[32][33]" in title and f"tile[k][{col}]" in title
    for col in (6, 7):
        assert shown[col]["wavefronts"] == str(tile_access(1, "float16", "column", index=col).wavefronts)
    assert (shown[6]["wavefronts"], shown[7]["wavefronts"], shown[7]["worst"]) == ("1", "2", "2")
    pg.get_by_role("button", name="__half XOR 混洗，第 7 列").click()
    assert explorer_drive.numbers(pg, root)["wavefronts"] == str(
        tile_access(0, "float16", "column", swizzle=True, index=7).wavefronts) == "1"
    assert pg.locator(f"{root} .ce-control[data-control=swizzle] input").is_checked()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "bank_explorer.png"), full_page=True)
    assert not errors


# The slow tier: `make test` sweeps all 1920 states through the controls on the built lesson 9 page
# (tests/test_site_browser.py::test_lesson9_diagram_and_explorer, exercise branch), against labsim the same way.
@pytest.mark.slow
def test_every_state_shows_labsims_counts(page):
    pg, ex, errors = page
    shown = explorer_drive.sweep(pg, f"#{ex.key}")
    spec = ex.spec()
    assert len(shown) == len(spec["states"]) == 1920
    per_index: dict[tuple, list[int]] = {}
    for key, v in explorer_drive.states(spec["controls"]):
        base = (v["pad"], v["dtype"], v["access"], v["swizzle"])
        if base not in per_index:   # labsim, called here, not read from the page's data
            per_index[base] = [tile_access(*base, index=i).wavefronts for i in range(32)]
        counts = per_index[base]
        got = shown[key]
        assert int(got["wavefronts"]) == counts[v["index"]], (key, v)
        assert int(got["worst"]) == max(counts) and float(got["average"]) == pytest.approx(sum(counts) / 32, abs=1e-3)
        assert got["columns"] == counts and got["columns:on"] == [v["index"]]
        assert got["heatmap:cells"] >= 32
    assert not errors
