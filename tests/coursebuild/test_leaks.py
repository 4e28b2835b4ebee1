"""Hidden-check snippets: which lines count, and the scanner finds them in built files."""
from __future__ import annotations

from pathlib import Path

from coursebuild.leaks import hidden_snippets, scan_for_leaks

FIXTURE = Path(__file__).parent / "fixtures" / "site"


def test_snippets_exclude_public_lines(tmp_path):
    ex = tmp_path / "grading" / "exercises" / "l9"
    (ex / "hidden").mkdir(parents=True)
    shared = "int x = blockIdx.x * TILE_DIM + threadIdx.x;"
    (ex / "template.cu").write_text(shared + "\n", encoding="utf-8")
    (ex / "hidden" / "cases.py").write_text(f"import numpy as np\n{shared}\nSECRET_SHAPES = [(33, 65), (1, 1)]\nx = 1\n",
                                            encoding="utf-8")
    (ex / "hidden_checks.py").write_text("def check_boundary_secret(): pass\n", encoding="utf-8")
    got = {line for _, line in hidden_snippets(tmp_path)}
    assert got == {"SECRET_SHAPES = [(33, 65), (1, 1)]", "def check_boundary_secret(): pass"}


def test_fixture_snippets():
    got = {line for _, line in hidden_snippets(FIXTURE)}
    assert "HIDDEN_SHAPES = [(33, 65), (1, 1), (1024, 7)]  # fixture-hidden-shapes" in got


def test_scan_sees_through_highlighting_and_json(tmp_path):
    snippet = [("hidden.py", 'SECRET = "a<b>"  # note')]
    html = tmp_path / "p.html"
    html.write_text('<span class="n">SECRET</span> <span>=</span> "a&lt;b&gt;"  # note', encoding="utf-8")
    nb = tmp_path / "p.ipynb"
    nb.write_text('{"source": "SECRET = \\"a<b>\\"  # note"}', encoding="utf-8")
    clean = tmp_path / "c.html"
    clean.write_text("nothing", encoding="utf-8")
    hits = scan_for_leaks([html, nb, clean], snippet)
    assert len(hits) == 2 and all("hidden.py" in h for h in hits)
