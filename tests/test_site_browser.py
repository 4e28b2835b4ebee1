"""The built site in headless Chromium: what an instructor and a student see.

Every page of both branches (enumerated from _quarto.yml, so a new lesson is covered as it lands), rendered
by Quarto (skips with a reason when Quarto is not on PATH; ``.ci/run`` installs it) and by the fallback
renderer. Skips with a reason when ``/usr/bin/chromium`` or the ``playwright`` package is missing.
Screenshots go to ``artifacts/site_browser/<renderer>/`` (gitignored; full pages where ``COURSE_SCREENSHOTS=1``). No request may leave the machine:
any other host is aborted and fails the test (``tests/sitepages.py``).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))                 # sitebuilds, sitepages, explorer_drive
sys.path.insert(0, str(Path(__file__).resolve().parent / "coursebuild"))  # cb_leakprobe
import explorer_drive  # noqa: E402
from cb_leakprobe import probes  # noqa: E402
from sitebuilds import build_info  # noqa: E402
from sitepages import BRANCHES, browser, pages, playwright_or_skip, shot, shot_element, site  # noqa: E402,F401

from coursebuild.site import load_site  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PAGES = load_site(REPO).pages
playwright_or_skip()


def _branch_source(root: Path, branch: str, page: str) -> str:
    return (root / "_build" / branch / page).read_text(encoding="utf-8")


def _expected_headings(source: str) -> list[tuple[str, str]]:
    """(number, text) of the branch source's headings, numbered as Quarto's number-sections does."""
    heads, fence = [], None
    for line in source.splitlines():
        m = re.match(r"^(`{3,}|~{3,})", line)
        if m and (fence is None or line.strip() == fence[0] * len(line.strip())):
            fence = None if fence else m.group(1)
            continue
        if fence is None and (h := re.match(r"^(#{2,6})\s+(.*?)(?:\s*\{[^}]*\})?\s*$", line)):
            heads.append((len(h.group(1)), h.group(2)))
    top = min((lvl for lvl, _ in heads), default=2)
    counts, out = [0] * 7, []
    for lvl, text in heads:
        counts[lvl - top] += 1
        counts[lvl - top + 1:] = [0] * (6 - (lvl - top))
        out.append((".".join(map(str, counts[: lvl - top + 1])), re.sub(r"`", "", text)))
    return out


@pytest.mark.parametrize("branch", BRANCHES)
@pytest.mark.parametrize("page_path", PAGES)
def test_page(site, pages, branch, page_path):
    renderer, root, base = site
    rel = f"{branch}/{page_path[: -len('.qmd')]}.html"
    html_path = root / "_site" / rel
    source = _branch_source(root, branch, page_path)
    o = pages(rel)
    page = o.page
    assert page.evaluate("document.documentElement.lang").startswith("zh")
    title = re.search(r'^title:\s*"?(.*?)"?\s*$', source, re.M).group(1)
    assert title in page.title()

    # Headings: every heading of the branch source, numbered as the renderer numbers them (issue 13 #1).
    shown = page.evaluate("""Array.from(document.querySelectorAll('main h2, main h3, main h4')).filter(
        h => !h.closest('nav, #TOC, .sidebar, .course-sidebar, .course-explorer')).map(h => {
          const n = h.querySelector('.header-section-number');
          return [n ? n.textContent.trim() : '', h.textContent.replace(n ? n.textContent : '', '').trim()];
        })""")
    want = _expected_headings(source)
    assert [n for n, _ in shown] == [n for n, _ in want], (shown, want)
    for (_, got), (_, text) in zip(shown, want):
        assert re.sub(r"\s+", "", text) in re.sub(r"\s+", "", got), (got, text)

    # Figures: each labelled figure of the source is on the page and drawn.
    for label in re.findall(r"^(?:#|%%)\| label: (fig-[\w-]+)", source, re.M):
        fig = page.locator(f"[id='{label}']")
        assert fig.count() == 1, f"{label} missing"
        drawn = fig.evaluate("""f => Array.from(f.querySelectorAll('img, svg')).some(e => {
            const r = e.getBoundingClientRect();
            return r.width > 50 && r.height > 50 && (e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0));
        })""")
        assert drawn, f"{label} is not drawn"

    # Cross-references land on what they name: "小节 3.2" on the heading numbered 3.2, "图 N" on figure N.
    # (Quarto's script makes the links absolute, naming an index.html page by its folder: compare the
    # resolved URL with this page's)
    refs = page.evaluate("""Array.from(document.querySelectorAll('main a[href]')).filter(a => {
          const u = new URL(a.getAttribute('href'), location.href);
          const path = p => p.replace(/\\/$/, '/index.html');
          return path(u.pathname) === path(location.pathname) && /^#(sec|fig)-/.test(u.hash)
                 && /^(小节|图)\\s/.test(a.textContent.trim());
        }).map(a => [a.textContent.trim(), new URL(a.getAttribute('href'), location.href).hash])""")
    assert len(refs) == len(re.findall(r"(?<![\w@])@(?:sec|fig)-[\w-]*\w", _prose(source))), refs
    for text, href in refs:
        kind, num = text.split()[0], text.split()[-1]
        target = page.evaluate("""id => {
            const t = document.getElementById(id);
            if (!t) return null;
            if (id.startsWith('fig-')) {
                const cap = t.querySelector('figcaption') || t.closest('figure')?.querySelector('figcaption');
                return cap ? cap.textContent.trim() : '';
            }
            // the heading: the element itself, its first heading child, or the next heading after it
            let h = /^H[1-6]$/.test(t.tagName) ? t : t.querySelector('h1,h2,h3,h4,h5,h6');
            if (!h) {
                const all = Array.from(document.querySelectorAll('h1,h2,h3,h4,h5,h6'));
                h = all.find(x => t.compareDocumentPosition(x) & Node.DOCUMENT_POSITION_FOLLOWING);
            }
            const n = h && h.querySelector('.header-section-number');
            return n ? n.textContent.trim() : null;
        }""", href[1:])
        if kind == "小节":
            assert target == num, f"{text} -> {href} lands on section {target}"
        else:
            assert target and re.match(rf"图\s*{num}\s*[：:]", target), f"{text} -> {href}: caption {target!r}"
    sec_refs = [(t, h) for t, h in refs if t.startswith("小节")]
    if sec_refs:   # a reader's click: the named heading comes to the top of the window
        text, href = sec_refs[0]
        page.locator("main a[href$='%s']" % href).first.click()
        # (on a page opened as .../index.html, Quarto's folder-form link reloads the page at the heading)
        page.wait_for_load_state("load")
        page.wait_for_function("id => document.getElementById(id)", arg=href[1:], timeout=120_000)
        page.wait_for_timeout(400)
        top = page.evaluate("""id => { const t = document.getElementById(id);
            const h = /^H[1-6]$/.test(t.tagName) ? t : (t.querySelector('h1,h2,h3,h4,h5,h6') || t);
            return h.getBoundingClientRect().top; }""", href[1:])
        assert -5 < top < 250, f"after clicking {text}, its heading is at y={top}"

    # Answers: the exercise branch shows none of the answer-only text, the answer branch all of it.
    found = probes((REPO / page_path).read_text(encoding="utf-8"))
    text = o.main_text()
    if branch == "exercise":
        assert not [p for p in found if p in text]
    else:
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true);"
                      "document.querySelectorAll('.callout.collapse, .callout-collapse.collapse')"
                      ".forEach(c => c.classList.add('show'))")
        text = o.main_text()
        missing = [p for p in found if p not in text]
        assert not missing, missing[:3]

    # The notebook download link under the title, wherever the page has code (issue 13 #4).
    link = page.locator(".course-download a")
    if re.search(r"^```\{python\}", source, re.M):
        assert link.count() == 1 and link.is_visible()
        href = link.evaluate("a => new URL(a.getAttribute('href'), location.href).pathname")
        assert href == f"/{branch}/{page_path[: -len('.qmd')]}.ipynb" and (root / "_site" / href[1:]).is_file()
    else:
        assert link.count() == 0

    # Previous/next: one styled block in the unit order (issue 13 #6).
    order = load_site(REPO).order
    i = order.index(page_path)
    nav = page.locator("nav.page-navigation, nav.course-page-nav")
    assert nav.count() == 1
    assert page.locator(".course-pagination").count() == 0
    # (Quarto's script shows links to index.html as the folder: ".../prelude/")
    hrefs = nav.evaluate("n => Array.from(n.querySelectorAll('a')).map(a => "
                         "new URL(a.getAttribute('href'), location.href).pathname.replace(/\\/$/, '/index.html'))")
    expect = [p for p in (order[i - 1] if i else None, order[i + 1] if i + 1 < len(order) else None) if p]
    assert hrefs == [f"/{branch}/{p[: -len('.qmd')]}.html" for p in expect], (hrefs, expect)
    boxes = nav.evaluate("n => Array.from(n.querySelectorAll('a')).map(a => a.getBoundingClientRect().x)")
    if len(boxes) == 2:
        assert boxes[1] - boxes[0] > 300, "previous and next must sit apart, not run on in one line"

    shot(page, renderer, f"{branch}-{page_path.replace('/', '_').replace('.qmd', '')}")
    assert not o.outside, f"the page tried to reach the network: {o.outside[:5]}"
    assert not o.own_errors(), f"script errors on the page: {o.own_errors()[:3]}"


def _prose(source: str) -> str:
    """The markdown of a source without code blocks and inline code (where @refs are not references)."""
    out, fence = [], None
    for line in source.splitlines():
        m = re.match(r"^(`{3,}|~{3,})", line)
        if m:
            fence = None if fence else m.group(1)
            continue
        if fence is None:
            out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def _contrast(fg: str, bg: str) -> float:
    def lum(color: str) -> float:
        r, g, b = [int(v) / 255 for v in re.findall(r"[\d.]+", color)[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    a, b = sorted((lum(fg), lum(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


@pytest.mark.parametrize("branch", BRANCHES)
def test_lesson9_diagram_and_explorer(site, pages, branch):
    renderer, root, base = site
    o = pages(f"{branch}/lessons/lesson09_transpose_tiled.html")
    page = o.page
    # The flowchart is drawn and legible: node and subgraph labels contrast with their boxes (issue 13 #2).
    svg = page.locator("[id='fig-flow'] svg").first
    assert svg.count() == 1 and svg.bounding_box()["height"] > 100
    assert "__syncthreads()" in svg.text_content()
    pairs = svg.evaluate("""s => Array.from(s.querySelectorAll('g.node, g.cluster')).map(g => {
        const box = g.querySelector('rect, polygon, path');
        const label = g.querySelector('.nodeLabel, .cluster-label span, .label span, text, tspan, span, p');
        return box && label ? [getComputedStyle(box).fill, getComputedStyle(label).color ||
                               getComputedStyle(label).fill, g.getAttribute('class')] : null;
    }).filter(Boolean)""")
    assert pairs, "no labelled boxes in the flowchart"
    for fill, color, cls in pairs:
        if fill in ("none", "transparent") or fill.startswith("rgba(0, 0, 0, 0"):
            fill = "rgb(255, 255, 255)"
        assert _contrast(color, fill) >= 4.5, f"{cls}: text {color} on {fill} is hard to read"
    # Each subgraph title is drawn whole inside its box, above the box's nodes: not clipped, not under a node
    # (Quarto's Mermaid 11.2 wraps a long title into a label that the nodes then cover).
    clusters = svg.evaluate("""s => Array.from(s.querySelectorAll('g.cluster')).map(g => {
        const box = g.querySelector('rect').getBoundingClientRect();
        const label = g.querySelector('.cluster-label p, .cluster-label span, .cluster-label text');
        const r = document.createRange(); r.selectNodeContents(label);
        const text = r.getBoundingClientRect();
        const nodes = Array.from(s.querySelectorAll('g.node')).map(n => n.getBoundingClientRect())
            .filter(n => n.left >= box.left && n.right <= box.right && n.top >= box.top && n.bottom <= box.bottom);
        return {title: label.textContent, text: [text.left, text.top, text.right, text.bottom],
                box: [box.left, box.top, box.right, box.bottom], nodes_top: Math.min(...nodes.map(n => n.top)),
                n: nodes.length};
    })""")
    assert len(clusters) == 2, clusters
    for c in clusters:
        (tl, tt, tr, tb), (bl, bt, br, bb) = c["text"], c["box"]
        assert c["n"] == 2 and bl <= tl and tr <= br and bt <= tt, f"title outside its box: {c}"
        assert tb <= c["nodes_top"] + 1, f"the subgraph title runs under its first node: {c}"

    # The explorer works without a kernel or CDN: every state shows labsim's counts (issue 13 #3).
    root_sel = "#lesson09-bank-explorer"
    assert page.locator(f"{root_sel}[data-mounted]").count() == 1
    page.get_by_role("button", name="__half +1 填充，第 7 列").click()
    assert explorer_drive.numbers(page, root_sel)["wavefronts"] == "2"
    page.locator(f"{root_sel} .ce-control[data-control=index] input[type=range]").fill("6")
    assert explorer_drive.numbers(page, root_sel)["wavefronts"] == "1"
    page.locator(f"{root_sel} .ce-control[data-control=index] input[type=range]").fill("7")
    shot_element(page.locator(root_sel), renderer, f"{branch}-lesson09-explorer-half-col7")
    shot_element(page.locator("[id='fig-flow']"), renderer, f"{branch}-lesson09-flowchart")
    if branch == "exercise":
        from figures.lesson09_kernels import tile_access
        shown = explorer_drive.sweep(page, root_sel)
        assert len(shown) == 1920
        cache: dict = {}
        for key, state in explorer_drive.states(_controls(page, root_sel)):
            base = (state["pad"], state["dtype"], state["access"], state["swizzle"])
            if base not in cache:
                cache[base] = [tile_access(*base, index=i).wavefronts for i in range(32)]
            counts = cache[base]
            got = shown[key]
            assert int(got["wavefronts"]) == counts[state["index"]], (key, state)
            assert int(got["worst"]) == max(counts) and got["columns"] == counts
    assert not o.outside and not o.own_errors(), (o.outside[:3], o.own_errors()[:3])


def _controls(page, sel):
    import json
    return json.loads(page.eval_on_selector(f"{sel} script.course-explorer-data", "s => s.textContent"))["controls"]


def test_p2_tables_line_up(site, pages):
    """The P2 page's tables are real tables: Chinese headers and their columns line up, nothing is clipped,
    and no console text table (columns padded with spaces) is left to misalign (issue 13 #8)."""
    renderer, root, base = site
    o = pages("exercise/lessons/prelude/index.html")
    tables = o.page.locator("main table")
    assert tables.count() >= 2
    geometry = tables.evaluate_all("""ts => ts.map(t => {
        const rows = Array.from(t.rows).filter(r => r.cells.length === t.rows[0].cells.length)
          .map(r => Array.from(r.cells).map(c => { const b = c.getBoundingClientRect(); return [b.left, b.right]; }));
        let box = t.parentElement;
        while (box && getComputedStyle(box).overflowX === 'visible' && box.tagName !== 'MAIN') box = box.parentElement;
        return {rows, width: t.getBoundingClientRect().width, room: box.getBoundingClientRect().width,
                headers: Array.from(t.rows[0].cells).map(c => c.textContent)};
    })""")
    assert any(re.search(r"[\u4e00-\u9fff]", h) for g in geometry for h in g["headers"])
    for g in geometry:
        first = g["rows"][0]
        for row in g["rows"][1:]:
            for (l1, r1), (l2, r2) in zip(first, row):
                assert abs(l1 - l2) < 1 and abs(r1 - r2) < 1, "a column does not line up under its header"
        assert g["width"] <= g["room"] + 1, f"a table is clipped by its box: {g['headers'][:4]}"
    text_tables = o.page.evaluate("""Array.from(document.querySelectorAll('main pre')).filter(p =>
        /^\\s*-{2,}(\\s{2,}-{2,})+\\s*$/m.test(p.textContent) && /[\\u4e00-\\u9fff]/.test(p.textContent)).length""")
    assert text_tables == 0, "a console text table with Chinese headers is shown as plain text"
    o.page.locator("main table").first.scroll_into_view_if_needed()
    shot(o.page, renderer, "exercise-p2-table")


def test_landing_and_home(site, pages):
    """The landing page names the course, not a branch, and is styled (issue 13 #5); the home page says what
    the two renderers share and where they differ, and that is true (issue 13 #10)."""
    renderer, root, base = site
    o = pages("index.html")
    title = load_site(REPO).title
    assert o.page.title() == title and "参考答案版" not in o.page.title()
    cards = o.page.locator("a.card")
    assert cards.count() == 3
    assert o.page.evaluate("getComputedStyle(document.querySelector('a.card')).borderLeftStyle") == "solid"
    for href in cards.evaluate_all("as => as.map(a => a.getAttribute('href'))"):
        assert (root / "_site" / href).exists(), href
    shot(o.page, renderer, "landing")
    o = pages("answer/index.html")
    text = o.main_text()
    assert "内容相同" in text and "外观不同" in text and "同样的页面" not in text
    has_search = o.page.locator("#quarto-search, .aa-Autocomplete").count() > 0
    has_toc = o.page.locator("nav#TOC").count() > 0
    assert has_search == (renderer == "quarto") and has_toc == (renderer == "quarto")


def test_build_time(site):
    renderer, root, _ = site
    info = build_info(root)
    # issue 13's target (the Quarto site in at most 90 s of CPU on 2 cores) is printed by the build, not asserted
    print(f"{renderer}: {info['seconds']} s wall, {info.get('cpu_seconds')} s CPU")
    assert info["renderer"] == renderer and info["seconds"] > 0 and info["cpu_seconds"] > 0
