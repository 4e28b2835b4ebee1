"""Site config: pages, sidebar (with auto globs) and page order from _quarto.yml."""
from __future__ import annotations

import glob
from pathlib import Path

import pytest

from coursebuild.site import SiteConfigError, load_site, rel_link

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "fixtures" / "site"


def test_repo_site_lists_every_lesson():
    site = load_site(REPO, "answer")
    lessons = sorted(p.replace("\\", "/") for p in glob.glob("lessons/*.qmd", root_dir=REPO))
    assert set(lessons) <= set(site.pages)
    assert "lessons/prelude/index.qmd" in site.pages and "index.qmd" in site.pages
    # The unit's order: home, P2, then lessons by file name (8, 9, 10).
    assert site.order == ["index.qmd", "lessons/prelude/index.qmd"] + lessons
    assert site.title.endswith("（参考答案版）")
    assert load_site(REPO, "exercise").title.endswith("（练习版）")


def test_neighbors_and_links():
    site = load_site(FIXTURE)
    assert site.neighbors("lessons/lesson01_demo.qmd") == ("lessons/prelude/index.qmd", "lessons/lesson02_placeholder.qmd")
    assert site.neighbors("index.qmd") == (None, "lessons/prelude/index.qmd")
    assert rel_link("lessons/prelude/index.qmd", "lessons/lesson01_demo.qmd") == "../lesson01_demo.html"
    assert rel_link("index.qmd", "lessons/prelude/index.qmd") == "lessons/prelude/index.html"
    html = site.sidebar_html("lessons/lesson01_demo.qmd")
    assert '<a href="../index.html">课程首页</a>' in html
    assert '<a href="lesson01_demo.html" class="active" aria-current="page">第 1 课：演示课</a>' in html


def test_auto_respects_order_metadata(tmp_path):
    (tmp_path / "lessons").mkdir()
    for name, order in [("a.qmd", 3), ("b.qmd", 1), ("c.qmd", None)]:
        fm = f"title: {name}\n" + (f"order: {order}\n" if order is not None else "")
        (tmp_path / "lessons" / name).write_text(f"---\n{fm}---\n", encoding="utf-8")
    (tmp_path / "_quarto.yml").write_text(
        'project:\n  render: ["lessons/*.qmd"]\nwebsite:\n  sidebar:\n    contents:\n      - auto: "lessons/*.qmd"\n',
        encoding="utf-8")
    assert load_site(tmp_path).order == ["lessons/b.qmd", "lessons/a.qmd", "lessons/c.qmd"]


@pytest.mark.parametrize("config, words", [
    ("project: {}\n", "project.render"),
    ('project:\n  render: ["x.qmd"]\nwebsite:\n  sidebar:\n    contents:\n      - missing.qmd\n', "missing.qmd"),
    ('project:\n  render: ["x.qmd"]\nwebsite:\n  sidebar:\n    contents:\n      - {weird: 1}\n', "weird"),
    ("project: [\n", "cannot read"),
])
def test_config_errors(tmp_path, config, words):
    (tmp_path / "x.qmd").write_text("---\ntitle: x\n---\n", encoding="utf-8")
    (tmp_path / "_quarto.yml").write_text(config, encoding="utf-8")
    with pytest.raises(SiteConfigError, match=words):
        load_site(tmp_path)
