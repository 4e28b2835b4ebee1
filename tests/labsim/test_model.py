"""The counting model's seam, its version, and instructions identified by site (line and column)."""
from __future__ import annotations

import numpy as np

import labsim
import labsim.cuda as lc
from labsim import MODEL_VERSION, CountingModel, launch
from labsim.stats import METRIC_NAMES

from labsim_reference import shared_warp_wavefronts

WF_LD = METRIC_NAMES["shared", "ld", "cost"]


def _two_loads_one_line(blk, out):
    sh = blk.shared(32 * 33, name="tile")
    blk.sstore(sh, blk.tx, 1.0)
    blk.sync()
    a, b = blk.sload(sh, blk.tx), blk.sload(sh, blk.tx * 32)    # one line, two instructions
    blk.store(out, blk.tx, a + b)


def test_two_shared_loads_on_one_line_are_two_instructions():
    out = np.zeros(32, np.float32)
    st = launch(_two_loads_one_line, 1, 32, (out,))
    loads = [s for s in st.instructions if s.space == "shared" and s.op == "ld"]
    assert len(loads) == 2
    assert loads[0].line == loads[1].line and loads[0].col != loads[1].col
    lanes = np.arange(32)
    want = sorted(shared_warp_wavefronts(4 * k, [True] * 32, 4)[0] for k in (lanes, lanes * 32))
    assert sorted(s.cost for s in loads) == want == [1, 32]
    # each keeps its own sample, at its own column
    assert sorted(int(s.sample.addr[1] - s.sample.addr[0]) for s in loads) == [4, 128]
    assert {s.sample.col for s in loads} == {s.col for s in loads}
    # by_line still aggregates the line
    assert st.by_line[loads[0].line][WF_LD] == sum(want)
    assert st.instruction(loads[0].line, space="shared", op="ld", col=loads[1].col) is loads[1]


SRC = r"""
__global__ void k(float* out) {
    __shared__ float tile[32][32];
    tile[threadIdx.x][0] = 1.0f;
    tile[0][threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x][0] + tile[0][threadIdx.x];
}
"""


def test_cuda_sites_split_one_line_and_report_the_model_version():
    prog = lc.compile(SRC, "sites.cu")
    res = prog.launch("k", 1, 32, (np.zeros(32, np.float32),))
    line = prog.line_of("out[threadIdx.x] = tile")
    loads = [s for s in res.instructions if s.space == "shared" and s.op == "ld"]
    assert [s.line for s in loads] == [line, line]
    text = prog.source_line(line)
    cols = sorted(s.col for s in loads)
    assert cols == [text.index("tile[threadIdx.x][0]") + 1, text.index("tile[0][threadIdx.x]") + 1]
    by_col = {s.col: s.cost for s in loads}
    lanes = np.arange(32)
    assert by_col[cols[0]] == shared_warp_wavefronts(4 * 32 * lanes, [True] * 32, 4)[0] == 32
    assert by_col[cols[1]] == shared_warp_wavefronts(4 * lanes, [True] * 32, 4)[0] == 1
    assert res.by_line[line][WF_LD] == 33
    assert res.model_version == MODEL_VERSION == labsim.MODEL_VERSION
    assert res.table().splitlines()[0] == f"labsim counting model {MODEL_VERSION} ({res.stats.counting})"
    assert res.stats.counting in ("sass", "source-rules")
    assert f"{line}:{cols[1]}" in res.table()


class _EverySectorTwice(CountingModel):
    """A changed rule, for the seam test: every sector counts twice."""

    version = "test-2"

    def cost(self, space, op, addr, active, itemsize):
        per, conflicts = super().cost(space, op, addr, active, itemsize)
        return (2 * per if space == "global" else per), conflicts


def _copy(blk, a, b):
    i = blk.bx * blk.bdx + blk.tx
    blk.store(b, i, blk.load(a, i))


def test_one_model_object_decides_every_counter():
    a, b = np.arange(1024, dtype=np.float32), np.zeros(1024, np.float32)
    base = launch(_copy, 4, 256, (a, b))
    twice = launch(_copy, 4, 256, (a, b), model=_EverySectorTwice(labsim.get_gpu("H200")))
    assert base.model_version == MODEL_VERSION and twice.model_version == "test-2"
    assert base.gld_sectors == 1024 * 4 // 32 and twice.gld_sectors == 2 * base.gld_sectors
    assert twice.gst_sectors == 2 * base.gst_sectors and twice.gld_instr == base.gld_instr
    line = base.instructions[0].line
    assert twice.by_line[line] == {k: 2 * v if "sectors" in k else v for k, v in base.by_line[line].items()}
