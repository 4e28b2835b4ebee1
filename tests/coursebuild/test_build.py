"""End to end on the fixture site: both branches, pages, notebooks, leaks, errors, the CLI."""
from __future__ import annotations

import base64
import json
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup  # nbconvert's own dependency; pages are serialised by it

from cb_leakprobe import probes, visible_text
from coursebuild.build import BuildError, build, site_is_current
from coursebuild.execute import NotebookExecutionError

FIXTURE = Path(__file__).parent / "fixtures" / "site"
LESSON = "lessons/lesson01_demo"
PAGES = ["index", "lessons/prelude/index", LESSON, "lessons/lesson02_placeholder"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    logs = []
    report = build(root, renderer="fallback", log=logs.append)
    return root, report, logs


def _page(root, branch, page=LESSON):
    return (root / "_site" / branch / f"{page}.html").read_text(encoding="utf-8")


def _soup(root, branch, page=LESSON):
    return BeautifulSoup(_page(root, branch, page), "html.parser")


def test_report_and_layout(built):
    root, report, logs = built
    assert report.renderer == "fallback" and logs[0].startswith("coursebuild: renderer: Jupyter")
    info = json.loads((root / "_site" / "build-info.json").read_text(encoding="utf-8"))
    assert info["renderer"] == "fallback" and info["executed"] and not info["partial"]
    assert site_is_current(root, renderer="fallback")
    assert not site_is_current(root, renderer="quarto")   # a site of the other renderer is not current
    for branch in ("answer", "exercise"):
        for page in PAGES:
            assert (root / "_site" / branch / f"{page}.html").is_file()
            assert (root / "_site" / branch / f"{page}.ipynb").is_file()
            assert (root / "_build" / branch / f"{page}.qmd").is_file()
    assert (root / "_site" / "notebooks" / "lessons" / "prelude" / "demo_script.py").is_file()


def test_page_chrome(built):
    root, _, _ = built
    html, soup = _page(root, "exercise"), _soup(root, "exercise")
    assert soup.html["lang"] == "zh"
    assert soup.title.string == "第 1 课：演示课" and soup.select_one("h1.title").string == "第 1 课：演示课"
    sidebar = [a["href"] for a in soup.select("nav.course-sidebar a")]
    assert sidebar == ["../index.html", "prelude/index.html", "lesson01_demo.html", "lesson02_placeholder.html"]
    assert soup.select_one("nav.course-sidebar a.active")["href"] == "lesson01_demo.html"
    assert soup.select_one("a.course-prev")["href"] == "prelude/index.html"
    assert soup.select_one("a.course-next")["href"] == "lesson02_placeholder.html"
    assert soup.select_one(".course-pagination a[href='lesson02_placeholder.html']") is not None
    assert "lesson02_placeholder.qmd" not in html
    assert "In&nbsp;[" not in html  # no Jupyter prompts, as on a Quarto page
    assert "#| label" not in html  # option lines hidden as Quarto hides them
    home = _soup(root, "exercise", "index")
    assert home.select_one("a.course-prev") is None and home.select_one("a.course-next")["href"] == "lessons/prelude/index.html"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_figure_embedded_with_alt_and_caption(built):
    root, _, _ = built
    soup = _soup(root, "answer")
    fig = soup.select_one("figure#fig-heatmap.course-figure")
    img = fig.select_one("img")
    assert img["src"].startswith("data:image/png;base64,")
    width, height = _png_size(base64.b64decode(img["src"].split(",", 1)[1]))
    assert width > 100 and height > 100
    assert "bank heatmap" in img["alt"]
    assert fig.figcaption.get_text().startswith("图 2：一个 warp 读 tile[32][32] 的一列")
    assert soup.select_one("a[href='#fig-heatmap']").get_text() == "图 2"


def test_mermaid_and_callouts(built):
    root, report, _ = built
    for branch in ("answer", "exercise"):
        soup = _soup(root, branch)
        fig = soup.select_one("figure#fig-flow.course-mermaid")
        assert "flowchart TD" in fig.select_one("pre.mermaid").get_text()
        assert fig.figcaption.get_text() == "图 1：分块转置的流程"
        scripts = [s.get("src", "") for s in soup.select("script")]
        if "mermaid" in report.vendored:
            assert any(re.fullmatch(r"\.\./site_libs/mermaid-[^/]+\.js", s) for s in scripts)
            assert (root / "_site" / branch / "site_libs" / "course-mermaid.js").is_file()
        else:
            assert fig.select_one(".course-notice") is not None
        assert not [s for s in scripts if s.startswith("http")], "pages must not load scripts from the network"
    answer, exercise = _soup(root, "answer"), _soup(root, "exercise")
    callout = answer.select_one("details.callout.callout-tip")
    assert callout.summary.get_text() == "💡 点击展开参考答案" and "open" not in callout.attrs
    assert callout.select_one("figure, .jp-CodeCell") is not None  # the solution cell sits inside
    assert exercise.select_one(".callout-tip") is None
    inner = exercise.select_one("details.callout-note details.callout-note")  # hint levels nest, one at a time
    assert inner.summary.get_text() == "第 2 级提示" and "奇数行步长" in inner.get_text()
    note = exercise.select_one("div.callout.callout-note")
    assert "练习版" in note.get_text() and "参考答案版" not in note.get_text()


def test_exercise_branch_leaks_nothing(built):
    root, _, _ = built
    found = probes((FIXTURE / f"{LESSON}.qmd").read_text(encoding="utf-8"))
    hidden = [ln.strip() for ln in (FIXTURE / "grading/exercises/demo/hidden_checks.py").read_text().splitlines()
              if len(ln.strip()) > 20 and not ln.startswith('"""')]
    assert found and hidden
    exercise = [p for d in ("_site/exercise", "_site/notebooks", "_build/exercise", "_build/executed/exercise")
                for p in (root / d).rglob("*") if p.suffix in (".html", ".ipynb", ".qmd")]
    assert len(exercise) >= 4 * len(PAGES)
    for path in exercise:
        text = visible_text(path) + path.read_text(encoding="utf-8")
        for probe in found + hidden:
            assert probe not in text, f"{path} leaks {probe!r}"
    # The probes are not vacuous: the answer page shows every one of them.
    answer = visible_text(root / "_site" / "answer" / f"{LESSON}.html")
    assert [p for p in found if p not in answer] == []


def test_notebooks(built):
    root, _, _ = built
    student = json.loads((root / "_site" / "notebooks" / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    code = [c for c in student["cells"] if c["cell_type"] == "code"]
    assert all(not c["outputs"] and c["execution_count"] is None for c in code)
    ex = next(c for c in code if c["metadata"].get("course_role") == "exercise")
    assert "".join(ex["source"]).startswith("%%writefile demo_kernel.cu") and "exercise" in ex["metadata"]["tags"]
    assert not [c for c in code if c["metadata"].get("course_role") == "solution"]
    executed = json.loads((root / "_build" / "executed" / "exercise" / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    check = next(c for c in executed["cells"] if c["metadata"].get("course_role") == "check")
    assert [o["output_type"] for o in check["outputs"]] == ["stream"]
    assert "还没有填空" in "".join(check["outputs"][0]["text"])


def _project(tmp_path, lesson_text):
    shutil.copytree(FIXTURE, tmp_path, dirs_exist_ok=True)
    (tmp_path / f"{LESSON}.qmd").write_text(lesson_text, encoding="utf-8")
    return tmp_path


def test_failing_cell_fails_the_build(tmp_path):
    root = _project(tmp_path, "---\ntitle: t\n---\n\ntext\n\n```{python}\n#| label: broken\nundefined_name + 1\n```\n")
    with pytest.raises(NotebookExecutionError, match=rf"^{LESSON}\.qmd:7: cell \d+ \(broken\) failed on the answer "
                                                     "branch: NameError"):
        build(root, renderer="fallback", only=[f"{LESSON}.qmd"], log=lambda s: None)


HIDDEN_LINE = "HIDDEN_SHAPES = [(33, 65), (1, 1), (1024, 7)]  # fixture-hidden-shapes"


def test_hidden_text_in_source_fails_the_build(tmp_path):
    root = _project(tmp_path, f"---\ntitle: t\n---\n\nnote: {HIDDEN_LINE}\n")
    with pytest.raises(BuildError, match=rf"leak guard: {LESSON}\.qmd: exercise branch line 5 .*hidden_checks\.py"):
        build(root, renderer="fallback", only=[f"{LESSON}.qmd"], log=lambda s: None)


def test_hidden_text_in_output_fails_the_build(tmp_path):
    # Assembled at run time, so only the scan of the built files can see it.
    half = len(HIDDEN_LINE) // 2
    root = _project(tmp_path, f"---\ntitle: t\n---\n\n```{{python}}\nprint({HIDDEN_LINE[:half]!r} + "
                              f"{HIDDEN_LINE[half:]!r})\n```\n")
    with pytest.raises(BuildError, match="leak guard: hidden-check text in the exercise branch"):
        build(root, renderer="fallback", only=[f"{LESSON}.qmd"], log=lambda s: None)


def test_cli_prints_renderer_and_time(tmp_path, capsys):
    from coursebuild.__main__ import main
    shutil.copytree(FIXTURE, tmp_path, dirs_exist_ok=True)
    # the build through the CLI's main() (in this process: a build's imports cost a new Python ~2 s of CPU)
    assert main(["--root", str(tmp_path), "--no-execute", "--renderer", "fallback"]) == 0
    out = capsys.readouterr().out
    assert "renderer: Jupyter (nbclient + nbconvert)" in out
    assert re.search(r"total build time: \d+\.\d s", out)
    # `python -m coursebuild` itself, as a user runs it
    bad = subprocess.run([sys.executable, "-m", "coursebuild", "--root", str(tmp_path / "nowhere")],
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "_quarto.yml not found" in bad.stderr


SOLUTION = "__shared__ float tile[TILE][TILE + 1];  // fixture solution\n"


@pytest.mark.parametrize("plant", ["lesson", "resource", "none"])
def test_a_reference_fill_anywhere_students_get_fails_the_build(tmp_path, plant):
    """The exercise's answer (solution.cu diffed against template.cu: ``TILE + 1``) planted in the exercise
    branch's text or in a file copied next to the lessons fails the build; without it the build passes."""
    text = (FIXTURE / f"{LESSON}.qmd").read_text(encoding="utf-8")
    if plant == "lesson":
        text = text.replace("看行步长。", "看行步长：tile[TILE][TILE+1]。")
    root = _project(tmp_path, text)
    (root / "grading/exercises/demo/solution.cu").write_text(SOLUTION, encoding="utf-8")
    if plant == "resource":
        with open(root / "lessons/prelude/demo_script.py", "a", encoding="utf-8") as f:
            f.write('\nPAD = "TILE + 1"\n')
    run = lambda: build(root, renderer="fallback", only=[f"{LESSON}.qmd"], execute=False,  # noqa: E731
                        log=lambda s: None)
    if plant == "none":
        run()
        return
    where = "lessons/prelude/demo_script.py" if plant == "resource" else "lesson01_demo"
    with pytest.raises(BuildError, match=rf"(?s)reference fill.*{where}.*contains demo's answer 'TILE \+ 1'"):
        run()


def test_build_logs_each_page_as_it_starts_and_its_time(built):
    """The build is not silent while it runs the lessons: a line when a page starts ([k/n], branch, page) and one
    with its time when it is done."""
    _, report, logs = built
    started = [ln for ln in logs if re.match(r"coursebuild:   \[\d+/\d+\] (answer|exercise) +\S+\.qmd \.\.\.$", ln)]
    done = [ln for ln in logs if re.match(r"coursebuild:   (answer|exercise) +\S+\.qmd: .* in \d+\.\d s$", ln)]
    n = len(report.pages) * len(report.branches)
    assert len(started) == n and len(done) == n
    assert [int(re.search(r"\[(\d+)/", ln)[1]) for ln in started] == list(range(1, n + 1))


def test_quarto_progress_lines():
    from coursebuild.quarto import quarto_progress
    assert quarto_progress("\x1b[1m[ 2/5] lessons/lesson09_transpose_tiled.qmd\x1b[22m") == (
        2, 5, "lessons/lesson09_transpose_tiled.qmd")
    assert quarto_progress("[10/12] index.qmd") == (10, 12, "index.qmd")
    assert quarto_progress("Output created: _site/index.html") is None
