"""labsim's counters against an H200: 471 one-warp patterns measured with Nsight Compute.

measurements/h200/patterns/ holds the lane table (patterns.py), the CUDA program that ran it, the ncu
command (run.sh), the raw CSV and results.json. Here each pattern's lane addresses run through labsim.launch
and the counters must equal the hardware's; so must the tests' brute-force reference (labsim_reference.py).
"""
from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

from labsim import launch

from labsim_reference import shared_warp_wavefronts, warp_sectors

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "measurements", "h200", "patterns")


def _load():
    spec = importlib.util.spec_from_file_location("h200_patterns", os.path.join(HERE, "patterns.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(os.path.join(HERE, "results.json"), encoding="utf-8") as f:
        measured = json.load(f)["results"]
    table = {name: (s, offs, act) for name, s, offs, act in mod.patterns()}
    return [(key, table[key.split(":")[1]], v) for key, v in measured.items()]


CASES = _load()
DTYPE = {2: np.float16, 4: np.float32, 8: np.float64, 16: np.dtype("V16")}


def _run(space, s, offs, act):
    offs, act = np.array(offs), np.array(act, bool)

    def kernel(blk, A, offs, act):
        sh = blk.shared(32768 // s, DTYPE[s], name="smem")
        with blk.where(act[blk.tx]):
            if space == "shared_ld":
                blk.sload(sh, offs[blk.tx] // s)
            elif space == "shared_st":
                blk.sstore(sh, offs[blk.tx] // s, np.zeros((), DTYPE[s]))
            else:
                blk.load(A, offs[blk.tx] // s)

    A = np.zeros(65536 // s, DTYPE[s])
    return launch(kernel, 1, 32, (A, offs, act)).metrics


@pytest.mark.parametrize("key,pattern,measured", CASES, ids=[c[0] for c in CASES])
def test_counter_equals_h200(key, pattern, measured):
    space = key.split(":")[0]
    s, offs, act = pattern
    m = _run(space, s, offs, act)
    if space == "global_ld":
        # the measuring kernel also loads act[lane] (4 sectors) and, for active lanes, off[lane] (int32)
        overhead = 4 + len({4 * lane // 32 for lane in range(32) if act[lane]})
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] + overhead == \
            measured["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    else:
        op = "ld" if space == "shared_ld" else "st"
        for name in (f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum",
                     f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"):
            assert m[name] == measured[name], name


def test_table_covers_every_size_and_space():
    seen = {(k.split(":")[0], p[0]) for k, p, _ in CASES}
    assert seen == {(sp, s) for sp in ("shared_ld", "shared_st", "global_ld") for s in (2, 4, 8, 16)}
    assert len(CASES) == 471


@pytest.mark.parametrize("key,pattern,measured", CASES, ids=[c[0] for c in CASES])
def test_reference_equals_h200(key, pattern, measured):
    """The tests' brute-force reference (not labsim) against the hardware, so it can judge labsim."""
    space = key.split(":")[0]
    s, offs, act = pattern
    if space == "global_ld":
        overhead = 4 + len({4 * lane // 32 for lane in range(32) if act[lane]})
        assert warp_sectors(offs, act, s) + overhead == measured["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
        return
    op = "ld" if space == "shared_ld" else "st"
    wf, conflicts = shared_warp_wavefronts(offs, act, s, op)
    assert (wf, conflicts) == (measured[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"],
                               measured[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"])
