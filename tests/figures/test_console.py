"""figures.console and grading.display: text tables for terminals, HTML tables in notebooks, and HTML that Quarto
passes through."""
from __future__ import annotations

import re
import sys
import types
import unicodedata

from figures import console
from grading import display


def _cols(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def test_text_columns_start_at_the_same_display_column():
    text = console.format_table(["内核", "读 sector", "结果"], [["copy", 128, "对"], ["转置（朴素）", 1024, "错"]])
    lines = text.splitlines()
    starts = []
    for line in [lines[0]] + lines[2:]:
        starts.append([_cols(line[: m.start()]) for m in re.finditer(r"\S+(?: \S+)*", line)])
    assert all(s == starts[0] for s in starts), starts


def test_html_bundle_depends_on_the_renderer(monkeypatch):
    monkeypatch.delenv("COURSEBUILD_RENDERER", raising=False)
    monkeypatch.delenv("QUARTO_FIG_FORMAT", raising=False)
    assert set(display.html_bundle("<b>x</b>", "x")) == {"text/html", "text/plain"}
    monkeypatch.setenv("COURSEBUILD_RENDERER", "quarto")
    bundle = display.html_bundle("<b>x</b>", "x")
    assert "text/html" not in bundle, "Quarto would load require.js and jQuery from a CDN"
    assert bundle["text/markdown"] == "`````{=html}\n<b>x</b>\n`````\n"


def test_print_table_shows_html_in_a_kernel(monkeypatch, capsys):
    shown = []
    shell = type("ZMQInteractiveShell", (), {})()
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell
    display_mod = types.ModuleType("IPython.display")
    display_mod.display = lambda bundle, raw=False: shown.append(bundle)
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setitem(sys.modules, "IPython.display", display_mod)
    monkeypatch.delenv("COURSEBUILD_RENDERER", raising=False)
    monkeypatch.delenv("QUARTO_FIG_FORMAT", raising=False)
    console.print_table(["结果", "n"], [["<对>", 3]])
    assert capsys.readouterr().out == ""
    (bundle,) = shown
    assert "<th>结果</th>" in bundle["text/html"] and "&lt;对&gt;" in bundle["text/html"]
    assert '<td class="num">3</td>' in bundle["text/html"] and "结果" in bundle["text/plain"]


def test_print_table_prints_text_in_a_terminal(capsys):
    console.print_table(["a"], [[1]])
    assert capsys.readouterr().out == "a\n-\n1\n"
