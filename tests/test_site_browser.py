"""Lesson 9's built pages in headless Chromium (Debian's, via Playwright): what a reader actually sees.

Builds the site first when ``_site`` is missing or stale (``coursebuild.build.ensure_built``). Skips with
a reason when ``/usr/bin/chromium`` (installed by tools/ensure_system_packages.sh, which ``make test`` runs) or
the ``playwright`` package is missing. Screenshots go to ``artifacts/site_browser/`` (gitignored).
No request may leave the machine: anything but ``file://`` is aborted and fails the test.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from coursebuild.build import ensure_built

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
LESSON = REPO / "lessons" / "lesson09_transpose_tiled.qmd"
ARTIFACTS = REPO / "artifacts" / "site_browser"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} not installed (run tools/ensure_system_packages.sh)", allow_module_level=True)
playwright_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
if not LESSON.exists():
    pytest.skip("lessons/lesson09_transpose_tiled.qmd does not exist yet", allow_module_level=True)


@pytest.fixture(scope="module")
def site():
    ensure_built(REPO, log=lambda line: None)
    import json
    return json.loads((REPO / "_site" / "build-info.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield b
        b.close()


def _open(browser, site, branch):
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
    url = (REPO / "_site" / branch / "lessons" / "lesson09_transpose_tiled.html").as_uri()
    page.goto(url, wait_until="load")
    if "mermaid" in site["vendored"]:
        page.wait_for_function("document.body.getAttribute('data-mermaid') !== null", timeout=30000)
    return page, outside, errors


@pytest.mark.parametrize("branch", ["exercise", "answer"])
def test_lesson9_page(browser, site, branch):
    page, outside, errors = _open(browser, site, branch)
    try:
        assert "第 9 课" in page.title()
        assert page.evaluate("document.documentElement.lang") == "zh"

        # The heatmap is really shown: a decoded image with width, on screen, alt text naming it.
        images = page.evaluate("""Array.from(document.images).map(i => {
            const r = i.getBoundingClientRect();
            return {alt: i.alt, natural: i.naturalWidth, complete: i.complete, width: r.width, height: r.height};
        })""")
        heatmaps = [i for i in images if re.search(r"bank|heatmap|热图|热力图", i["alt"], re.I)]
        assert heatmaps, f"no image whose alt mentions bank/heatmap: {[i['alt'][:40] for i in images]}"
        for img in heatmaps:
            assert img["complete"] and img["natural"] > 0 and img["width"] > 0 and img["height"] > 0, img

        # The Mermaid figure (figure 9-2) is on the page, drawn when the build vendored Mermaid.
        figure = page.locator("figure.course-mermaid")
        assert figure.count() == 1 and figure.is_visible()
        if "mermaid" in site["vendored"]:
            assert page.evaluate("document.body.getAttribute('data-mermaid')") == "rendered"
            svg = figure.locator("pre.mermaid svg")
            assert svg.count() == 1
            box = svg.bounding_box()
            assert box and box["width"] > 100 and box["height"] > 100
            assert "__syncthreads()" in svg.text_content()
        else:
            assert "flowchart" in figure.locator("pre.mermaid").inner_text()

        # The explorer works without a kernel: moving the column control changes labsim's count.
        ex = page.locator("#lesson09-bank-explorer[data-mounted]")
        assert ex.count() == 1
        page.get_by_role("button", name="__half +1 填充，第 7 列").click()
        assert ex.locator("dd[data-part=wavefronts]").text_content() == "2"
        ex.locator(".ce-control[data-control=index] input[type=range]").fill("6")
        assert ex.locator("dd[data-part=wavefronts]").text_content() == "1"

        # The answer callout: absent from the exercise page, present (folded) on the answer page.
        callout = page.locator("details.callout-tip", has=page.locator("summary", has_text="参考答案"))
        if branch == "exercise":
            assert callout.count() == 0
            assert "TILE_DIM + 1]" not in page.locator("main").inner_text()
        else:
            assert callout.count() == 1
            solution = callout.locator(".jp-CodeCell", has_text="TILE_DIM + 1]").first
            assert not solution.is_visible()          # folded until the reader asks
            callout.locator("summary").first.click()
            assert solution.is_visible()

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"lesson09_{branch}.png"), full_page=True)
        assert not outside, f"the page tried to reach the network: {outside[:5]}"
        assert not errors, f"script errors on the page: {errors[:3]}"
    finally:
        page.close()
