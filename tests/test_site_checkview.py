"""The check cell's source view on the built site (both renderers), in headless Chromium: shown as HTML (not
as text, not through a CDN), its lane maps open with a click, and nothing on the page errors (issue 14).

Lesson 9's answer branch runs the check on the reference solution (the source view with counters); its
exercise branch runs it on the unfilled blank (a message, no counters)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sitepages import browser, pages, playwright_or_skip, shot_element, site  # noqa: E402,F401  (fixtures)

playwright_or_skip()

PAGE = "lessons/lesson09_transpose_tiled.html"


def test_answer_page_shows_the_source_view_and_its_lane_maps(site, pages):  # noqa: F811
    renderer, root, base = site
    o = pages(f"answer/{PAGE}")
    page = o.page
    views = page.locator(".labsim-check")
    assert views.count() >= 2                      # the check cell and the reference's check
    # the lesson exercise's reference check (its transposed read is a focus row), not the challenge's after it
    view = page.locator(".labsim-check:has(table.lc-src)").filter(
        has=page.locator("tr.lc-focus", has_text="转置读")).last
    # the reference's check sits in the folded answer: unfold what holds it (a reader's click)
    view.evaluate("""v => { for (let d = v.closest('details'); d; d = d.parentElement.closest('details'))
                                d.open = true;
                            for (let c = v.closest('.collapse'); c; c = c.parentElement.closest('.collapse'))
                                c.classList.add('show'); }""")
    assert view.is_visible()
    # the reference solution: the transposed read is the framed row, 1 wavefront per request, 0 conflicts
    focus = view.locator("tr.lc-focus:has(td.wf)").filter(has_text="转置读").first
    assert focus.locator("td.wf").inner_text().strip() == "1"
    assert focus.locator("td.conf").inner_text().strip() == "0"
    cells = view.locator("tr.lc-maprow details[open] svg.lc-map").first.locator("rect[data-lane]")
    assert cells.count() == 32                      # one bank per lane of the sampled warp
    banks = sorted(int(cells.nth(i).get_attribute("data-col")) for i in range(32))
    assert banks == list(range(32))
    # a closed instruction opens with a click and shows its map
    closed = view.locator("details:not([open])").first.element_handle()     # fixed, whatever its state
    assert not closed.query_selector("svg.lc-map").is_visible()
    closed.query_selector("summary").click()
    assert closed.query_selector("svg.lc-map").is_visible()
    # not the raw text: the view is HTML, and the text/plain copy is not shown beside it
    assert "运行凭据 receipt lesson09" in view.inner_text()
    assert page.locator("text=<div class='labsim-check'>").count() == 0
    shot_element(view, renderer, "answer-lesson09-check-view")
    assert not o.outside, o.outside[:3]
    assert not o.own_errors(), o.own_errors()[:3]


@pytest.mark.parametrize("page_path", ["lessons/lesson09_transpose_tiled.html", "lessons/lesson08_transpose_naive.html",
                                       "lessons/prelude/index.html", "lessons/lesson10_gemm_tiled.html"])
def test_exercise_check_cells_show_the_view(site, pages, page_path):  # noqa: F811
    renderer, root, base = site
    if not (root / "_site" / "exercise" / page_path).exists():
        pytest.skip(f"{page_path} not built")
    o = pages(f"exercise/{page_path}")
    view = o.page.locator(".labsim-check").first
    assert view.is_visible() and "公开检查" in view.inner_text()
    # nothing from outside the site: what a text/html output would make Quarto load (require.js, jQuery,
    # widget managers), nor anything else (the P2 page's MathJax is vendored in both renderers)
    ours = re.compile(r"require|jquery|widget|labsim", re.I)
    assert not o.outside, o.outside[:3]
    assert not [e for e in o.own_errors() if ours.search(e) or "labsim-check" in e], o.own_errors()[:3]


@pytest.mark.parametrize("branch", ["exercise", "answer"])
@pytest.mark.parametrize("page_path", ["lessons/lesson09_transpose_tiled.html", "lessons/lesson08_transpose_naive.html",
                                       "lessons/prelude/index.html", "lessons/lesson10_gemm_tiled.html"])
def test_check_views_fit_the_content_column(site, pages, page_path, branch):  # noqa: F811
    """Issue 24 item 8: no check view is wider than its column (the source table strips the common indentation
    and wraps long lines; it once ran 1,015-1,203 px in an 877 px column)."""
    renderer, root, base = site
    if not (root / "_site" / branch / page_path).exists():
        pytest.skip(f"{branch}/{page_path} not built")
    o = pages(f"{branch}/{page_path}")
    over = o.page.evaluate("""() => [...document.querySelectorAll('.labsim-check')].map(v => {
        for (let d = v.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
        for (let c = v.closest('.collapse'); c; c = c.parentElement.closest('.collapse')) c.classList.add('show');
        const col = v.parentElement.getBoundingClientRect().width;
        const widest = Math.max(v.scrollWidth, ...[...v.querySelectorAll('.lc-scroll')].map(s => s.scrollWidth));
        return {col, widest};
    }).filter(r => r.col > 0 && r.widest > r.col + 1)""")
    assert not over, over
    marks = o.page.evaluate("() => document.body.innerText.match(/[\\u2705\\u274C]/g) || []")
    assert not marks, "emoji marks render as empty boxes without an emoji font"
