"""The P2 lesson's built pages in headless Chromium, for both renderers (Quarto skips with a reason when it is
not on PATH): sector maps shown, the explorer moved through every state showing labsim's numbers, every
formula typeset by the vendored MathJax, the answer absent from the exercise page, nothing fetched from
outside the site. Fixtures and skips as in tests/test_site_browser.py (``tests/sitepages.py``)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))   # sitepages, explorer_drive
import explorer_drive  # noqa: E402
from sitepages import ARTIFACTS, BRANCHES, browser, pages, playwright_or_skip, shot_element, site  # noqa: E402,F401

from figures import p2  # noqa: E402

PAGE = "lessons/prelude/index"
playwright_or_skip()


def _formulas(source: str) -> list[str]:
    """The TeX of each ``$...$`` formula in the prose of a page source (code blocks and inline code skipped)."""
    out, fence = [], None
    for line in source.splitlines():
        m = re.match(r"^(`{3,}|~{3,})", line)
        if m:
            fence = None if fence else m.group(1)
            continue
        if fence is None:
            out += re.findall(r"(?<![\\$])\$([^$\s](?:[^$]*[^$\s])?)\$(?!\$)", re.sub(r"`[^`]*`", "", line))
    return out


def _sweep_matches_labsim(page) -> None:
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


@pytest.mark.parametrize("branch", BRANCHES)
def test_p2_page(site, pages, branch):
    renderer, root, base = site
    o = pages(f"{branch}/{PAGE}.html")
    page = o.page
    assert "P2" in page.title()
    images = page.evaluate("""Array.from(document.images).map(i => ({alt: i.alt, natural: i.naturalWidth,
        width: i.getBoundingClientRect().width}))""")
    maps = [i for i in images if "sector" in i["alt"]]
    assert len(maps) >= 2, [i["alt"][:30] for i in images]   # the ten patterns; row vs column
    assert all(i["natural"] > 0 and i["width"] > 0 for i in maps)

    # the explorer, through its real controls: every state shows labsim's count for it (the same explorer
    # on both branches: swept on the exercise page, as lesson 9's)
    assert page.locator("#p2-coalescing-explorer[data-mounted]").count() == 1
    if branch == "exercise":
        _sweep_matches_labsim(page)

    # the reference answer: a collapsed tip callout titled 参考答案 on the answer page only (Quarto draws
    # callouts as div.callout, the fallback as details.callout)
    answer = page.locator(".callout-tip", has_text="参考答案与代码实现")
    if branch == "exercise":
        assert "j * THREADS + t" not in o.main_text()
        assert answer.count() == 0
    else:
        assert answer.count() >= 1
        assert "int e = j * THREADS + t;" in page.locator("main").first.text_content()
    shot_element(page.locator("#p2-coalescing-explorer"), renderer, f"{branch}-p2-explorer")
    assert not o.outside, f"the page tried to reach the network: {o.outside[:5]}"
    assert not o.own_errors(), f"script errors on the page: {o.own_errors()[:3]}"


def test_p2_math_is_typeset_offline(site, pages):
    """Every formula of the P2 source is typeset by the vendored MathJax (SVG drawn, no TeX left as text),
    and MathJax came from the site itself: no CDN (with one, offline, the page shows raw TeX)."""
    renderer, root, base = site
    want = _formulas((root / "_build" / "exercise" / f"{PAGE}.qmd").read_text(encoding="utf-8"))
    assert len(want) >= 5 and r"\lfloor (o + s k)\,b / 32 \rfloor" in want, want
    o = pages(f"exercise/{PAGE}.html")
    page = o.page
    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=120_000)
    page.evaluate("MathJax.startup.promise")
    typeset = page.evaluate("Array.from(MathJax.startup.document.math).map(m => m.math.trim())")
    assert sorted(re.sub(r"\s+", " ", t) for t in typeset) == sorted(re.sub(r"\s+", " ", t) for t in want)
    drawn = page.evaluate("""Array.from(document.querySelectorAll('main mjx-container svg')).map(s => {
        const r = s.getBoundingClientRect(); return r.width > 0 && r.height > 0; })""")
    assert len(drawn) == len(want) and all(drawn), drawn
    assert "\\lfloor" not in o.main_text(), "TeX left as text"
    scripts = page.evaluate("Array.from(document.scripts).map(s => s.src).filter(Boolean)")
    assert [s for s in scripts if "mathjax" in s.lower()] and all(s.startswith(base) for s in scripts), scripts
    page.locator("mjx-container").first.scroll_into_view_if_needed()
    (ARTIFACTS / renderer).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / renderer / "exercise-p2-math.png"))
    assert not o.outside, f"the page tried to reach the network: {o.outside[:5]}"
    assert not o.own_errors(), f"script errors on the page: {o.own_errors()[:3]}"

