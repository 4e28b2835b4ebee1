"""The landing page's lesson table is built from the site's order (_quarto.yml) and each page's front matter,
not typed into index.qmd (issue 22: one list of lessons)."""
from __future__ import annotations

import re
from pathlib import Path

from coursebuild.context import BuildContext
from coursebuild.qmd import Markdown, read_qmd
from coursebuild.site import load_site
from coursebuild.transforms import SOURCE_PIPELINE, run_pipeline
from coursebuild.transforms.lesson_table import lesson_table, table_markdown

REPO = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| \[(.+?)\]\((.+?)\) \| (.*?) \|$", re.M)


def test_table_rows_link_relative_to_the_page():
    rows = [("lessons/a.qmd", "A | b", "x"), ("lessons/prelude/index.qmd", "P", "")]
    assert ROW.findall(table_markdown("index.qmd", rows)) == [("A \\| b", "lessons/a.qmd", "x"),
                                                              ("P", "lessons/prelude/index.qmd", "")]
    assert ROW.findall(table_markdown("lessons/b.qmd", rows))[1][1] == "prelude/index.qmd"


def test_the_div_becomes_the_table_and_nothing_else_changes(tmp_path):
    p = tmp_path / "index.qmd"
    p.write_text("---\ntitle: t\n---\n\nbefore\n\n::: {.course-lessons}\n:::\n\nafter\n", encoding="utf-8")
    doc = read_qmd(p, "index.qmd")
    out = lesson_table(doc, BuildContext("answer", lessons=[("index.qmd", "home", ""), ("l/x.qmd", "X", "s")]))
    tables = [n.text for n in out.children if isinstance(n, Markdown) and "| 页面 |" in n.text]
    assert len(tables) == 1 and ROW.findall(tables[0]) == [("X", "l/x.qmd", "s")]      # no row for itself
    text = "".join(n.text for n in out.children if isinstance(n, Markdown))
    assert "before" in text and "after" in text and "course-lessons" not in text


def test_the_course_index_lists_every_page_in_the_site_order():
    site = load_site(REPO)
    index = (REPO / "index.qmd").read_text(encoding="utf-8")
    assert not ROW.findall(index) and "course-lessons" in index       # no hand-kept table
    for branch in ("answer", "exercise"):
        doc = run_pipeline(read_qmd(REPO / "index.qmd", "index.qmd"),
                           BuildContext(branch, None, lessons=site.lessons()), SOURCE_PIPELINE)
        text = "".join(n.text for n in doc.children if isinstance(n, Markdown))
        rows = ROW.findall(text)
        assert [link for _, link, _ in rows] == [p for p in site.order if p != "index.qmd"]
        assert all(title == site.titles[link] and summary for title, link, summary in rows), rows
