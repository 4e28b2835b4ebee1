"""The P2 lesson's built pages in headless Chromium: sector maps shown, the explorer moved through every state
showing labsim's numbers, the answer absent from the exercise page. Skips like tests/test_site_browser.py."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from coursebuild.build import ensure_built

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "artifacts" / "site_browser"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} not installed (run tools/ensure_system_packages.sh)", allow_module_level=True)
playwright_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parent))   # explorer_drive
import explorer_drive  # noqa: E402

from figures import p2  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    ensure_built(REPO, log=lambda line: None)
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield b
        b.close()


def _open(browser, branch):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    outside: list[str] = []

    def only_local(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto((REPO / "_site" / branch / "lessons" / "prelude" / "index.html").as_uri(), wait_until="load")
    return page, outside, errors


@pytest.mark.parametrize("branch", ["exercise", "answer"])
def test_p2_page(browser, branch):
    page, outside, errors = _open(browser, branch)
    try:
        assert "P2" in page.title()
        images = page.evaluate("""Array.from(document.images).map(i => ({alt: i.alt, natural: i.naturalWidth,
            width: i.getBoundingClientRect().width}))""")
        maps = [i for i in images if "sector" in i["alt"]]
        assert len(maps) >= 2, [i["alt"][:30] for i in images]   # the ten patterns; row vs column
        assert all(i["natural"] > 0 and i["width"] > 0 for i in maps)

        # the explorer, through its real controls: every state shows labsim's count for it
        ex = page.locator("#p2-coalescing-explorer[data-mounted]")
        assert ex.count() == 1
        shown = explorer_drive.sweep(page, "#p2-coalescing-explorer")
        controls = json.loads(page.eval_on_selector("#p2-coalescing-explorer", "r => JSON.stringify("
                                                    "Array.from(r.querySelectorAll('.ce-control')).map(c => "
                                                    "c.dataset.control))"))
        assert controls == ["stride", "offset", "itemsize", "mask"]
        grid = dict(zip(("stride", "offset", "itemsize", "mask"),
                        (list(p2.STRIDES), list(p2.OFFSETS), list(p2.SIZES), list(p2.MASKS))))
        specs = [{"name": n, "values": v} for n, v in grid.items()]
        assert len(shown) == len(list(explorer_drive.states(specs)))
        for key, state in explorer_drive.states(specs):
            rec = p2.explorer_record(**state)
            assert shown[key]["sectors"] == str(rec["sectors"]), (state, shown[key])
            assert shown[key]["moved"] == str(rec["moved"]), state

        main = page.locator("main").inner_text()
        if branch == "exercise":
            assert "idx = row * N + col" not in main
            assert page.locator("details.callout-tip", has=page.locator("summary", has_text="参考答案")).count() == 0
        else:
            assert page.locator("details.callout-tip", has=page.locator("summary", has_text="参考答案")).count() == 1
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"p2_{branch}.png"), full_page=True)
        assert not outside, f"the page tried to reach the network: {outside[:5]}"
        assert not errors, f"script errors on the page: {errors[:3]}"
    finally:
        page.close()
