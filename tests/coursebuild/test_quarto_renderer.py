"""The Quarto path, with a stand-in `quarto` on PATH (Quarto itself cannot be installed here)."""
from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from coursebuild.build import BuildError, build

FIXTURE = Path(__file__).parent / "fixtures" / "site"

FAKE = """#!/bin/sh
# Records how it was called; writes what `quarto render <project> --profile <p>` would write.
if [ "$1" = "--version" ]; then echo 9.9.9; exit 0; fi
proj="$2"; profile="$4"
[ "$3" = "--profile" ] || exit 3
ls "$proj/_quarto.yml" "$proj/_quarto-$profile.yml" "$proj/lessons/lesson01_demo.qmd" >/dev/null || exit 4
mkdir -p "$proj/_site/$profile"
printf '[1/2] index.qmd\n[2/2] lessons/lesson01_demo.qmd\n' >&2
printf '%s\\n%s\\n%s\\n%s\\n' "$QUARTO_PYTHON" "$QUARTO_PROFILE" "$PYTHONPATH" "$PWD" > "$proj/_site/$profile/index.html"
cp "$proj/lessons/lesson01_demo.qmd" "$proj/_site/$profile/rendered-source.qmd"
if [ -n "$FAKE_QUARTO_WARN" ]; then
  printf '\033[33mWARN: %s\033[39m\n   in lessons/lesson01_demo.qmd\n' "$FAKE_QUARTO_WARN" >&2
fi
"""


@pytest.fixture
def fake_quarto(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "quarto"
    exe.write_text(FAKE, encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    mathjax = tmp_path / "tex-svg-full.js"   # no npm fetch in these tests
    mathjax.write_text("window.MathJax = {};", encoding="utf-8")
    monkeypatch.setenv("COURSEBUILD_MATHJAX_JS", str(mathjax))
    return exe


def test_quarto_renders_each_branch_project(tmp_path, fake_quarto):
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    logs = []
    report = build(root, log=logs.append)  # auto: quarto is on PATH
    assert report.renderer == "quarto" and "Quarto 9.9.9" in logs[0]
    for branch in ("answer", "exercise"):    # Quarto's per-file progress, read while it runs, and each page's time
        assert f"coursebuild:   {branch:8s} [2/2] lessons/lesson01_demo.qmd ..." in logs
        assert any(ln.startswith(f"coursebuild:   {branch:8s} index.qmd: rendered (cells run) in ") for ln in logs)
        assert f"quarto {branch} lessons/lesson01_demo.qmd" in report.timings
    for branch in ("answer", "exercise"):
        python, profile, pythonpath, cwd = (root / "_site" / branch / "index.html").read_text().split("\n")[:4]
        assert profile == branch and pythonpath.split(os.pathsep)[0] == str(root)
        assert Path(python).name.startswith("python") and Path(cwd) == root / "_build" / branch
        source = (root / "_site" / branch / "rendered-source.qmd").read_text(encoding="utf-8")
        assert ("fixture-solution-marker" in source) == (branch == "answer")
        assert (root / "_site" / branch / "lessons" / "lesson01_demo.ipynb").is_file()
    assert json.loads((root / "_site" / "build-info.json").read_text())["renderer"] == "quarto"
    assert (root / "_site" / "notebooks" / "lessons" / "lesson01_demo.ipynb").is_file()


def test_quarto_pages_get_the_notebook_download_link(tmp_path, fake_quarto):
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    build(root, log=lambda s: None)
    source = (root / "_site" / "exercise" / "rendered-source.qmd").read_text(encoding="utf-8")
    front_end = source.index("\n---\n", 4)
    link = source.index("[下载本页笔记本（.ipynb）](lesson01_demo.ipynb){download=")
    assert front_end < link < source.index("\n## "), "the link sits under the title, before the first section"


def test_quarto_warnings_are_printed_and_can_fail_the_build(tmp_path, fake_quarto, monkeypatch):
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    monkeypatch.setenv("FAKE_QUARTO_WARN", "Unable to resolve link target: nowhere.qmd")
    logs = []
    report = build(root, log=logs.append)
    warned = [line for line in logs if "quarto warning" in line]
    assert len(warned) == 2 and "WARN: Unable to resolve link target: nowhere.qmd in lessons/lesson01_demo.qmd" \
        in warned[0] and "\x1b" not in warned[0]
    assert len(report.warnings) == 2
    assert json.loads((root / "_site" / "build-info.json").read_text())["warnings"] == report.warnings
    with pytest.raises(BuildError, match=r"2 renderer warning\(s\) and --fail-on-warnings"):
        build(root, fail_on_warnings=True, log=lambda s: None)


def test_cli_prints_the_warnings(tmp_path, fake_quarto, monkeypatch, capsys):
    from coursebuild.__main__ import main
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    monkeypatch.setenv("FAKE_QUARTO_WARN", "something odd")
    assert main(["--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "quarto warning (answer): WARN: something odd" in out and "total build time" in out
    assert main(["--root", str(root), "--fail-on-warnings"]) == 1
    assert "--fail-on-warnings" in capsys.readouterr().err


def test_quarto_failure_is_reported(tmp_path, fake_quarto):
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    (root / "lessons" / "lesson01_demo.qmd").rename(root / "lessons" / "lesson03_renamed.qmd")
    with pytest.raises(Exception, match=r"quarto render .* --profile answer failed \(exit 4\)"):
        build(root, log=lambda s: None)


def test_renderer_quarto_requires_quarto(tmp_path, monkeypatch):
    shutil.copytree(FIXTURE, tmp_path / "proj")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BuildError, match="conda-forge"):
        build(tmp_path / "proj", renderer="quarto", log=lambda s: None)


def test_quarto_pages_load_the_vendored_mathjax(tmp_path, fake_quarto):
    """_quarto.yml points html-math-method at the file the build copies into each branch project, and turns
    off the template flag that would also load a polyfill from a CDN."""
    import yaml

    from coursebuild.vendor import QUARTO_MATHJAX
    repo = Path(__file__).resolve().parents[2]
    html = yaml.safe_load((repo / "_quarto.yml").read_text(encoding="utf-8"))["format"]["html"]
    assert html["html-math-method"] == {"method": "mathjax", "url": QUARTO_MATHJAX}
    assert html["mathjax"] is False
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    report = build(root, log=lambda s: None)
    for branch in ("answer", "exercise"):
        assert (root / "_build" / branch / QUARTO_MATHJAX).read_text() == "window.MathJax = {};"
    assert set(report.vendored) == {"mathjax"}
