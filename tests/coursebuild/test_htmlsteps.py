"""Fallback page steps: display options, links, and the div/figure structure around cells."""
from __future__ import annotations

from html.parser import HTMLParser

import nbformat
import pytest

from coursebuild.htmlsteps import div_structure, page_links
from coursebuild.htmlsteps.cells import WIDGET_MIME, cell_display
from coursebuild.notebook import to_notebook
from coursebuild.qmd import parse_qmd


def _code(source, **meta):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata.update(meta)
    return cell


def test_cell_display():
    nb = nbformat.v4.new_notebook()
    png = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBOR"}}
    widget = {"output_type": "display_data", "metadata": {}, "data": {WIDGET_MIME: {"model_id": "x"}, "text/plain": "W"}}
    nb.cells = [
        _code("#| include: false\nx", tags=["remove-cell"]),
        _code("#| echo: false\nprint(1)", tags=["remove-input"]),
        _code("y", tags=["remove-output"]),
        _code("#| fig-alt: bank heatmap\nplot()", course_options={"fig-alt": "bank heatmap"}),
        _code("slider()"),
    ]
    nb.cells[2].outputs = [png]
    nb.cells[3].outputs = [png]
    nb.cells[4].outputs = [widget]
    cell_display(nb, {})
    assert nb.cells[0].metadata["course_skip"] is True
    assert nb.cells[1].metadata["transient"]["remove_source"] is True
    assert nb.cells[1].source == "print(1)"  # option lines are not shown
    assert nb.cells[2].outputs == []
    assert nb.cells[3].metadata["course_alt"] == "bank heatmap" and nb.cells[3].outputs == [png]
    assert len(nb.cells[4].outputs) == 1 and WIDGET_MIME not in nb.cells[4].outputs[0]["data"]
    assert "course-widget-note" in nb.cells[4].outputs[0]["data"]["text/html"]


def test_page_links():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell('[a](lesson10.ipynb) [b](../x/y.ipynb#sec-1) [c](https://e.org/z.ipynb) '
                                              '<a href="p.ipynb">p</a>')]
    page_links(nb, {})
    assert nb.cells[0].source == ('[a](lesson10.html) [b](../x/y.html#sec-1) [c](https://e.org/z.ipynb) '
                                  '<a href="p.html">p</a>')


class _Tree(HTMLParser):
    """Records (tag, attrs, depth) of every start tag and checks nesting."""

    VOID = {"img", "br", "hr", "meta", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack, self.starts = [], []

    def handle_starttag(self, tag, attrs):
        self.starts.append((tag, dict(attrs), [t for t, _ in self.stack]))
        if tag not in self.VOID:
            self.stack.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1][0] == tag, f"</{tag}> closes {self.stack[-1:]!r}"
        self.stack.pop()


def _html(nb):
    return "".join(c.metadata["course_before"] + f"<p>{c.source}</p>" + c.metadata["course_after"] for c in nb.cells)


def test_structure_nests_like_the_source():
    src = ('::: {.content-visible .x when-profile="answer"}\n'
           '::: {.callout-tip collapse="true" title="答案"}\nA\n\n'
           '```{python}\n#| label: fig-a\n#| fig-cap: cap\nx\n```\n:::\n:::\n'
           '::: {.callout-note appearance="simple"}\nN\n:::\n'
           '::: {.callout-warning collapse="false"}\nW\n:::\n')
    nb = to_notebook(parse_qmd(src))
    nb.cells[1].metadata["course_crossref"] = {"label": "fig-a", "title": "图 1"}
    div_structure(nb, {"mermaid_src": "x.js"})
    tree = _Tree()
    tree.feed(_html(nb))
    assert tree.stack == []
    tags = [(t, a.get("class", ""), parents) for t, a, parents in tree.starts]
    assert ("details", "callout callout-tip", ["div"]) in tags
    assert ("summary", "callout-title", ["div", "details"]) in tags
    figure = next(x for x in tree.starts if x[0] == "figure")
    assert figure[1]["id"] == "fig-a" and figure[2] == ["div", "details", "div"]
    assert "图 1：cap</figcaption>" in _html(nb)
    assert 'class="callout callout-note"><div class="callout-body">' in _html(nb)  # simple: no default title
    assert '<details class="callout callout-warning" open><summary class="callout-title">警告' in _html(nb)
    assert 'data-when-profile="answer"' in _html(nb)


def test_mermaid_notice_without_script():
    nb = to_notebook(parse_qmd("```{mermaid}\n%%| fig-cap: F\nflowchart TD\n a-->b\n```\n"))
    div_structure(nb, {"mermaid_src": ""})
    assert "course-notice" in nb.cells[0].metadata["course_before"]
    nb = to_notebook(parse_qmd("```{mermaid}\nflowchart TD\n a-->b\n```\n"))
    div_structure(nb, {"mermaid_src": "m.js"})
    assert nb.cells[0].metadata["course_before"].startswith('<figure class="course-figure course-mermaid">')


def test_unbalanced_markers_are_an_error():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("x")]
    nb.cells[0].metadata.update(course_div_close=1, course_source="l.qmd:3")
    with pytest.raises(ValueError, match="l.qmd:3"):
        div_structure(nb, {})


def test_section_numbers_keep_their_span():
    from coursebuild.html import _SECTION_NUMBER
    rendered = '<h3 id="x"><span class="header-section-number"></span>3.2 新的瓶颈<a class="anchor-link" href="#x">¶</a></h3>'
    fixed = _SECTION_NUMBER.sub(r'<span class="header-section-number">\1</span> ', rendered)
    assert '<h3 id="x"><span class="header-section-number">3.2</span> 新的瓶颈<a' in fixed
