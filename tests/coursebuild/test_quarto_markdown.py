"""quarto_markdown: cross references, heading ids, attributes and links for Jupyter's markdown."""
from __future__ import annotations

import re
from pathlib import Path

from coursebuild.context import BuildContext
from coursebuild.qmd import Cell, Markdown, iter_nodes, parse_qmd, read_qmd
from coursebuild.transforms import NOTEBOOK_PIPELINE, SOURCE_PIPELINE, run_pipeline
from coursebuild.transforms.quarto_markdown import map_prose, quarto_markdown

REPO = Path(__file__).resolve().parents[2]


def _md(doc):
    return "".join(n.text for n, _ in iter_nodes(doc.children) if isinstance(n, Markdown))


def test_figure_numbers_follow_page_order():
    src = ("See @fig-b and @fig-a, [-@fig-a], @sec-intro, @fig-nope.\n\n## Intro {#sec-intro}\n\n"
           "```{python}\n#| label: fig-a\n#| fig-cap: A\nx\n```\n\n"
           "```{mermaid}\n%%| label: fig-b\n%%| fig-cap: B\nflowchart TD\n  a-->b\n```\n")
    doc = quarto_markdown(parse_qmd(src), BuildContext("answer", "html", number_sections=True))
    text = _md(doc)
    assert "[图 2](#fig-b) and [图 1](#fig-a), [1](#fig-a), [小节 1](#sec-intro), ?@fig-nope." in text
    assert '<a id="sec-intro"></a>\n\n## <span class="header-section-number">1</span> Intro\n' in text
    plain = _md(quarto_markdown(parse_qmd(src), BuildContext("answer", "html", number_sections=False)))
    assert "[Intro](#sec-intro)" in plain and '<a id="sec-intro"></a>\n\n## Intro\n' in plain
    cells = [n for n, _ in iter_nodes(doc.children) if isinstance(n, Cell)]
    assert [c.meta["crossref"]["title"] for c in cells] == ["图 1", "图 2"]


def test_lesson9_numbering_matches_label_order():
    path = REPO / "lessons" / "lesson09_transpose_tiled.qmd"
    if not path.exists():
        return
    text = path.read_text(encoding="utf-8")
    # Independent reference: figure labels in the order their cells appear in the raw source.
    order = [m.group(1) for m in re.finditer(r"^(?:#|%%)\| label: (fig-[\w-]+)", text, re.M)]
    for branch in ("answer", "exercise"):
        ctx = BuildContext(branch, "html")
        doc = run_pipeline(read_qmd(path, "lessons/lesson09_transpose_tiled.qmd"), ctx, SOURCE_PIPELINE + NOTEBOOK_PIPELINE)
        got = [n.meta["crossref"]["label"] for n, _ in iter_nodes(doc.children)
               if isinstance(n, Cell) and "crossref" in n.meta]
        visible = [lab for lab in order if lab in got]
        assert got == visible and [int(n.meta["crossref"]["number"]) for n, _ in iter_nodes(doc.children)
                                   if isinstance(n, Cell) and "crossref" in n.meta] == list(range(1, len(got) + 1))
        assert "?@" not in _md(doc), "every @ reference of lesson 9 must resolve"


def test_attributes_links_and_spans():
    src = ("[prev](lesson08_transpose_naive.qmd){.pagination-link} [ext](https://x.org/a.qmd) "
           "[sec](other.qmd#sec-a) [span]{.smallcaps} ![alt](img.png){width=\"50%\"}\n")
    text = _md(quarto_markdown(parse_qmd(src), BuildContext("exercise", "ipynb")))
    assert text == ("[prev](lesson08_transpose_naive.ipynb) [ext](https://x.org/a.qmd) "
                    "[sec](other.ipynb#sec-a) span ![alt](img.png)\n")


def test_code_is_left_alone():
    src = "```cuda\nx = a[i]{.k} @fig-a foo.qmd)\n```\n\nuse `@fig-a` and `[b]{.c}`\n"
    assert _md(quarto_markdown(parse_qmd(src), BuildContext("answer", "html"))) == src


def test_map_prose_sees_only_prose():
    seen = []
    map_prose("a `b` c\n```\nd\n```\ne\n", lambda p: seen.append(p) or p)
    joined = "".join(seen)
    assert "a " in joined and " c\n" in joined and "e\n" in joined
    assert "b" not in joined and "d" not in joined


def test_sections_are_numbered_as_quarto_numbers_them():
    # Pandoc's rules, which Quarto's number-sections uses (lesson 9's outline was compared with Quarto 1.7.34's
    # output; the site browser test compares every page): the page's top level is "1", deeper levels append
    # ".n", unnumbered headings and code are skipped, numbers restart below a new parent.
    src = ("See @sec-c and @sec-e.\n\n## A\n\n### B\n\n### C {#sec-c}\n\n```\n## not a heading\n```\n\n"
           "## D {.unnumbered}\n\n## E {#sec-e}\n\n#### deep\n\n### F\n")
    text = _md(quarto_markdown(parse_qmd(src), BuildContext("answer", "html", number_sections=True)))
    nums = [m for m in re.findall(r'^#+ (?:<span class="header-section-number">([\d.]+)</span> )?(.+)$', text, re.M)
            if m[1] != "not a heading"]
    assert nums == [("1", "A"), ("1.1", "B"), ("1.2", "C"), ("", "D"), ("2", "E"), ("2.0.1", "deep"),
                    ("2.1", "F")], nums
    assert "See [小节 1.2](#sec-c) and [小节 2](#sec-e)." in text
    assert "## not a heading" in text
