"""The check cell's HTML view (grading.checkview) and its line numbering (grading.numbering): lines as the
notebook cell shows them when the check runs from a notebook, the file's own lines from a terminal."""
from __future__ import annotations

import re
import sys

import pytest
from grading_testlib import fill, needs_cuda

from grading import check
from grading.numbering import CELL, Numbering


def write(tmp_path, text):
    p = tmp_path / "09_transpose_tiled.cu"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("n", [Numbering(1, True, "a.cu"), Numbering(0, True, "a.cu"), Numbering(0, False, "b.cu"),
                               Numbering(3, True, "x y.cu"), Numbering(0, False, "")])
def test_statement_names_its_numbering_and_parses_back(n):
    assert Numbering.parse(n.statement(), "a.cu") == n


def test_parse_refuses_other_lines():
    for line in ("行号：随便写的", "结论：通过", "行号：练习单元格里的行号（单元格第 1 行是 %%writefile，所以文件 a.cu 的第 N 行是单元格的第 N+99999 行）。"):
        assert Numbering.parse(line) is None


def test_error_message_moves_to_the_cells_line():
    from labsim.cuda.errors import CudaRuntimeError
    from labsim.errors import OutOfBoundsError
    located = CudaRuntimeError("division by zero", file="k.cu", line=7, col=3, source="  x = 1 / 0;")
    assert Numbering(1, True, "k.cu").error(located).startswith(f"{CELL}:8:3: error: division by zero")
    assert Numbering(0, False, "k.cu").error(located) == str(located)
    plain = OutOfBoundsError("out of bounds", line=7, array="a", index=9)
    assert "line 8" in Numbering(1, True).error(plain) and "line 7" in str(plain)


@needs_cuda
def test_broken_kernel_lines_shift_by_the_writefile_line(ex, tmp_path):
    """The same edited file (barrier deleted, a guard dropped): every line the check names is one more in the
    cell's numbering than in the file's, and each names the line whose text it quotes."""
    lines = fill(ex, "TILE_DIM + 1").splitlines()
    lines = [ln for ln in lines if ln.strip() != "__syncthreads();"]
    path = write(tmp_path, "\n".join(lines) + "\n")
    as_file = check(path, quiet=True, cell_lines=None)
    as_cell = check(path, quiet=True, cell_lines=1)
    assert as_file.numbering.statement().startswith("行号：文件") and as_cell.numbering.cell
    store = next(i for i, ln in enumerate(lines, 1) if "tile[threadIdx.y + j][threadIdx.x] =" in ln)
    load = next(i for i, ln in enumerate(lines, 1) if "= tile[threadIdx.x][threadIdx.y + j]" in ln)
    for rep, k in ((as_file, 0), (as_cell, 1)):
        race = next(ln for ln in rep.edited if "RAW __shared__" in ln)
        assert re.findall(r"在第 (\d+) 行", race) == [str(store + k), str(load + k)]
        assert "tile[1][0]" in race or re.search(r"tile\[\d+\]\[\d+\]", race)     # named as C names it
        assert [c.line for c in rep.counters if c.focus] == [load + k]
        assert {r.line for r in rep.instr_rows} == {store + k, load + k}
        assert any(f"删除了模板第 {ex.line_of('__syncthreads();') + k} 行" in n for n in rep.notes)
        text = rep.text()
        assert text.count("行号：") == 1
        # the source view's rows are the shown lines, with their own text
        html = rep.html()
        assert f"<tr id='L{load + k}'" in html and lines[load - 1].strip() in html


@needs_cuda
def test_out_of_bounds_error_names_the_cells_line(ex, tmp_path):
    src = fill(ex, "16")                               # tile[32][16]: the 17th column is out of bounds
    lines = src.splitlines()
    store = next(i for i, ln in enumerate(lines, 1) if "tile[threadIdx.y + j][threadIdx.x] =" in ln)
    path = write(tmp_path, src)
    file_msg = " ".join(c.output for c in check(path, quiet=True).checks)
    cell_msg = " ".join(c.output for c in check(path, quiet=True, cell_lines=1).checks)
    assert f"09_transpose_tiled.cu:{store}:" in file_msg
    assert f"{CELL}:{store + 1}:" in cell_msg and "09_transpose_tiled.cu:" not in cell_msg


@needs_cuda
@pytest.mark.parametrize("ld", [32, 33])
def test_lane_map_cells_are_the_banks_each_lane_reads(ex, tmp_path, ld):
    """The focus line's map (open by default): lane k of the sampled warp reads tile[k][c], word k*ld + c."""
    rep = check(write(tmp_path, fill(ex, str(ld))), quiet=True)
    read = next(r for r in rep.instr_rows if r.focus)
    cells = [tuple(map(int, m)) for m in
             re.findall(r"data-lane='(\d+)' data-col='(\d+)' data-value='(\d+)'", read.map_svg)]
    c = int(rep.heatmap.words[0]) % ld                 # the sampled warp's column
    expected_banks = [(k * ld + c) % 32 for k in range(32)]
    assert [b for _, b, _ in sorted(cells)] == expected_banks
    degree = {b: expected_banks.count(b) for b in expected_banks}   # distinct rows -> distinct words per bank
    assert [v for _, b, v in sorted(cells)] == [degree[b] for b in expected_banks]
    html = rep.html()
    assert "<details open" in html and "<script" not in html and "http" not in html


@needs_cuda
def test_line_colour_follows_cost_over_its_ideal(ex, tmp_path):
    from grading.checkview import excess
    bad = check(write(tmp_path, fill(ex, "TILE_DIM")), quiet=True)
    good = check(write(tmp_path, fill(ex, "TILE_DIM + 1")), quiet=True)
    assert [excess(r) for r in bad.instr_rows if r.focus] == [32.0]
    assert all(excess(r) == 1.0 for r in good.instr_rows)


def test_view_is_shown_as_a_raw_block_under_quarto(ex, tmp_path, monkeypatch):
    rep = check(write(tmp_path, fill(ex, "______")), quiet=True)
    monkeypatch.delenv("COURSEBUILD_RENDERER", raising=False)
    monkeypatch.delenv("QUARTO_FIG_FORMAT", raising=False)
    assert set(rep._repr_mimebundle_()) == {"text/html", "text/plain"}
    assert rep._repr_mimebundle_()["text/plain"] == rep.text()
    monkeypatch.setenv("COURSEBUILD_RENDERER", "quarto")
    bundle = rep._repr_mimebundle_()
    assert "text/html" not in bundle and "{=html}" in bundle["text/markdown"]


class _Shell:
    """What writefile_offset reads of IPython: the raw input history."""

    def __init__(self, cells):
        self.history_manager = type("H", (), {"input_hist_raw": ["", *cells]})()


@pytest.mark.parametrize("cell,expect", [
    ("%%writefile {p}\n{body}", 1),
    ("#| course_role: exercise\n%%writefile {p}\n{body}", 2),           # options left in the cell count too
    ("%%writefile -a {p}\n{body}", 1),
    ("%%writefile {p}\n{body}// changed after writing\n", None),          # the file is not this cell's body
    ("%%writefile /tmp/elsewhere.cu\n{body}", None),
    ("print('no magic')", None),
])
def test_writefile_offset_reads_the_cell_that_wrote_the_file(tmp_path, monkeypatch, cell, expect):
    import types

    from grading.checkcell import writefile_offset
    body = "__global__ void k() {}\n"
    p = tmp_path / "k.cu"
    p.write_text(body, encoding="utf-8")
    shell = _Shell(["x = 1", cell.format(p=p, body=body)])
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert writefile_offset(p) == expect


def test_writefile_offset_outside_ipython_is_none(tmp_path, monkeypatch):
    import types

    from grading.checkcell import writefile_offset
    p = tmp_path / "k.cu"
    p.write_text("x", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: None))
    assert writefile_offset(p) is None


def test_per_request_figures_are_rounded_for_reading():
    """Issue 28 item 10: '5.29412 个 sector' read as spurious precision; two decimals at most, no trailing zeros."""
    from grading.checkcell import _per_request
    assert [_per_request(90, 17), _per_request(47, 2), _per_request(128, 32), _per_request(1, 3)] == \
        ["5.29", "23.5", "4", "0.33"]
