"""The check view fits the page's content column (issue 24 item 8): every exercise's source table, rendered in
headless Chromium inside an 877 px column (the lessons' content width) with and without a page theme that
forces <pre> text not to wrap, is no wider than the column; the student's filled line is visible without a
horizontal scroll. Marks are ✓/✗ in a glyph the page's fonts have (issue 24 item 7)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sitepages import CHROMIUM, FLAGS, playwright_or_skip  # noqa: E402

from grading.checkcell import check  # noqa: E402

COLUMN = 877
# what Quarto's and Jupyter's themes do to code in tables: no wrapping, monospace (the view must win)
THEME = "pre, code { white-space: pre; font-family: 'DejaVu Sans Mono', monospace; } table { width: auto; }"
EXERCISES = ["lesson08", "lesson09", "lesson10", "p2"]


@pytest.fixture(scope="module")
def browser():
    api = playwright_or_skip()
    with api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield b
        b.close()


def _view(eid: str, tmp_path: Path) -> str:
    from grading.spec import load_exercise
    ex = load_exercise(eid)
    f = tmp_path / ex.target_name
    f.write_text(ex.solution_path.read_text(encoding="utf-8"), encoding="utf-8")
    return check(f, eid, quiet=True).html()


@pytest.mark.parametrize("theme", ["", THEME], ids=["bare", "themed"])
@pytest.mark.parametrize("eid", EXERCISES)
def test_source_table_fits_the_column(browser, tmp_path, eid, theme):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.set_content(f"<html><head><meta charset='utf-8'><style>body{{font-family:'DejaVu Sans',sans-serif}}"
                         f"{theme}</style></head><body><main id='col' style='width:{COLUMN}px'>"
                         f"{_view(eid, tmp_path)}</main></body></html>")
        widths = page.evaluate("""() => [...document.querySelectorAll('table.lc-src')].map(t => ({
            table: t.getBoundingClientRect().width,
            scroll: t.closest('.lc-scroll') ? t.closest('.lc-scroll').scrollWidth : t.scrollWidth}))""")
        assert widths, "no source table"
        for w in widths:
            assert w["table"] <= COLUMN + 0.5 and w["scroll"] <= COLUMN + 0.5, (eid, w)
        # the filled line (the focus row) lies inside the column
        right = page.evaluate("""() => Math.max(...[...document.querySelectorAll('tr.lc-focus td.code')]
                                   .map(td => td.getBoundingClientRect().right))""")
        assert right <= COLUMN + 10, right
        # ✓ / ✗ are drawn by a font the page has, not as an empty box: same advance as in DejaVu Sans
        marks = page.evaluate("""() => [...document.querySelectorAll('.lc-pass, .lc-fail')].map(s => s.textContent)""")
        assert marks and set(marks) <= {"✓", "✗"}
    finally:
        page.close()
