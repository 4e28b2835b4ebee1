"""The .qmd parser: structure, exact round trip, and errors that name the line."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coursebuild.qmd import Cell, Div, Markdown, QmdError, iter_nodes, parse_attrs, parse_qmd, read_qmd, write_qmd

FIXTURE = Path(__file__).parent / "fixtures" / "site"
REPO = Path(__file__).resolve().parents[2]


def test_fixture_structure():
    doc = read_qmd(FIXTURE / "lessons" / "lesson01_demo.qmd")
    assert doc.title == "第 1 课：演示课"
    cells = [n for n, _ in iter_nodes(doc.children) if isinstance(n, Cell)]
    roles = [c.role for c in cells if c.role]
    assert roles == ["exercise", "check", "solution"]
    mermaid = [c for c in cells if c.lang == "mermaid"]
    assert len(mermaid) == 1 and mermaid[0].options == {"label": "fig-flow", "fig-cap": "分块转置的流程"}
    solution = next(c for c in cells if c.role == "solution")
    # The solution sits in a callout inside an answer-only div: parents are recorded outermost first.
    parents = next(p for n, p in iter_nodes(doc.children) if n is solution)
    assert [d.attrs.classes for d in parents] == [["content-visible"], ["callout-tip"]]
    assert parents[0].attrs.kv == {"when-profile": "answer"}
    assert parents[1].attrs.kv["collapse"] == "true"
    assert solution.source.startswith("%%writefile demo_kernel.cu\n")
    # The ::: inside a plain ```cuda block stays text.
    assert any(isinstance(n, Markdown) and "```cuda\n// a plain code block: ::: inside" in n.text
               for n, _ in iter_nodes(doc.children))


@pytest.mark.parametrize("path", sorted((REPO / "lessons").rglob("*.qmd")) + [REPO / "index.qmd"]
                         + sorted(FIXTURE.rglob("*.qmd")), ids=lambda p: p.name)
def test_round_trip_real_sources(path):
    text = path.read_text(encoding="utf-8")
    assert write_qmd(parse_qmd(text, str(path))) == text


def test_line_numbers_point_at_fences():
    text = "---\ntitle: t\n---\n\nhello\n\n```{python}\n#| label: a\nx = 1\n```\n\n::: {.note}\nin\n:::\n"
    doc = parse_qmd(text)
    lines = text.splitlines()
    for node, _ in iter_nodes(doc.children):
        if isinstance(node, Cell):
            assert lines[node.line - 1] == "```{python}"
        if isinstance(node, Div):
            assert lines[node.line - 1] == "::: {.note}"


def test_attrs():
    a = parse_attrs('{#fig-x .callout-tip .extra collapse="true" title="💡 参考 答案" icon=false}')
    assert (a.id, a.classes) == ("fig-x", ["callout-tip", "extra"])
    assert a.kv == {"collapse": "true", "title": "💡 参考 答案", "icon": "false"}
    assert parse_attrs("callout-note").classes == ["callout-note"]
    assert parse_attrs("{python}").lang == "python"


def test_non_executable_fences_are_markdown():
    doc = parse_qmd("```{.python}\nx\n```\n\n```python\ny\n```\n\n  ```{python}\nz\n  ```\n")
    assert all(isinstance(n, Markdown) for n in doc.children)


@pytest.mark.parametrize("text, line, words", [
    ("a\n::: {.x}\nb\n", 2, "never closed"),
    ("a\n:::\n", 2, "never opened"),
    ("x\n\n```{python}\nprint(1)\n", 3, "never closed"),
    ("```{python}\n#| label: [a\nx\n```\n", 2, "not valid YAML"),
    ("```{python}\n#| just words\nx\n```\n", 2, "key: value"),
    ("---\ntitle: [x\n---\n", 1, "front matter"),
    ("---\ntitle: x\n", 1, "never closed"),
])
def test_errors_name_file_and_line(text, line, words):
    with pytest.raises(QmdError) as exc:
        parse_qmd(text, "lessons/bad.qmd")
    assert exc.value.line == line
    assert str(exc.value).startswith(f"lessons/bad.qmd:{line}:")
    assert words in str(exc.value)


# Random documents built from the constructs the lessons use; the round trip must be exact and the
# tree must have as many cells and divs as were generated.
_md = st.sampled_from(["text\n", "## 标题 {#sec-a}\n", "- item `::: x`\n", "\n", "$k \\bmod 32$\n",
                       "```cuda\n:::\n```\n", "~~~\n```{python}\n~~~\n"])


@st.composite
def _blocks(draw, depth=0):
    parts, cells, divs = [], 0, 0
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["md", "cell", "div"] if depth < 3 else ["md", "cell"]))
        if kind == "md":
            parts.append(draw(_md))
        elif kind == "cell":
            opts = draw(st.sampled_from(["", "#| course_role: solution\n", "#| label: fig-a\n#| fig-cap: \"c\"\n"]))
            parts.append(f"```{{python}}\n{opts}x = 1\n```\n")
            cells += 1
        else:
            inner, c, d = draw(_blocks(depth + 1))
            fence = ":" * draw(st.integers(3, 5))
            parts.append(f'{fence} {{.callout-tip title="t"}}\n{inner}:::\n')
            cells += c
            divs += d + 1
    return "".join(parts), cells, divs


@settings(max_examples=60, deadline=None)
@given(_blocks())
def test_round_trip_random(generated):
    text, n_cells, n_divs = generated
    doc = parse_qmd(text)
    assert write_qmd(doc) == text
    nodes = [n for n, _ in iter_nodes(doc.children)]
    assert sum(isinstance(n, Cell) for n in nodes) == n_cells
    assert sum(isinstance(n, Div) for n in nodes) == n_divs
