"""Launch statistics: the seed's counters, Nsight Compute-named metrics, per-line tables, estimate_time."""
from __future__ import annotations

import numpy as np

from .launch_records import InstrSummary, Race
from .gpus import GPU, get_gpu
from .model import MODEL_VERSION

# Nsight Compute metric names, keyed by (space, op, what). Every name is one ncu 2025.3.1 knows on the H200
# (measurements/h200/raw/query_metrics.txt; tests/labsim/test_metric_names.py checks it).
METRIC_NAMES: dict[tuple[str, str, str], str] = {
    ("global", "ld", "requests"): "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    ("global", "ld", "cost"): "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    ("global", "ld", "executed"): "smsp__inst_executed_op_global_ld.sum",
    ("global", "st", "requests"): "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    ("global", "st", "cost"): "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    ("global", "st", "executed"): "smsp__inst_executed_op_global_st.sum",
    ("global", "atom", "requests"): "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    ("global", "atom", "cost"): "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    ("global", "atom", "executed"): "smsp__sass_inst_executed_op_global_atom.sum",   # ATOM, ATOMG
    ("global", "red", "requests"): "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    ("global", "red", "cost"): "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    ("global", "red", "executed"): "smsp__inst_executed_op_global_red.sum",
    ("shared", "ld", "executed"): "smsp__inst_executed_op_shared_ld.sum",
    ("shared", "ld", "cost"): "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    ("shared", "ld", "conflicts"): "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    ("shared", "st", "executed"): "smsp__inst_executed_op_shared_st.sum",
    ("shared", "st", "cost"): "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    ("shared", "st", "conflicts"): "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    ("shared", "atom", "executed"): "smsp__inst_executed_op_shared_atom.sum",
    ("shared", "atom", "cost"): "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
}
REQUIRED_METRICS = sorted(METRIC_NAMES.values())


def metrics_of(instrs) -> dict[str, int]:
    """Sum instruction summaries into a dict keyed by Nsight Compute names (every known name present)."""
    out = {name: 0 for name in REQUIRED_METRICS}
    for s in instrs:
        for what in ("requests", "cost", "executed", "conflicts"):
            name = METRIC_NAMES.get((s.space, s.op, what))
            if name:
                out[name] += getattr(s, what)
    return out


class Stats:
    """What one launch did to memory.

    Seed fields: ``gld_sectors``, ``gld_instr`` (global load requests), ``gst_sectors``, ``gst_instr``,
    ``g_bytes_requested`` (bytes the active lanes asked for, loads and stores), ``race_count``; plus
    ``metrics`` (Nsight Compute names), ``by_line``, ``instructions`` (one ``InstrSummary`` per static memory
    instruction, each with a sampled ``WarpAccess``) and ``races`` (the first reported hazards).
    ``model_version``: the version of the counting model (``labsim.model``) that produced the counters;
    ``counting``: what decided the compiler's rewrites ("sass": the kernel's SASS from nvcc; "source-rules":
    labsim's rules, no nvcc; "source": none applied, a Python kernel).
    """

    def __init__(self, kernel: str, grid, block, gpu: GPU, instructions: list[InstrSummary], races: list[Race],
                 race_count: int, races_by_line: dict, schedule: str, model_version: str = MODEL_VERSION,
                 racecheck: "dict | None" = None, counting: str = "source") -> None:
        self.kernel = kernel
        self.counting = counting   # "sass", "source-rules" (labsim.cuda) or "source" (a Python kernel)
        self.model_version = model_version
        self.grid = grid
        self.block = block
        self.gpu = gpu
        self.schedule = schedule
        self.instructions = instructions
        self.races = races
        self.race_count = race_count
        self.races_by_line = races_by_line
        self.racecheck = dict(racecheck or {})   # labsim.racecheck reads it: racecheck-style hazard bytes
        self.metrics = metrics_of(instructions)
        m = self.metrics
        self.gld_sectors = m[METRIC_NAMES["global", "ld", "cost"]]
        self.gld_instr = m[METRIC_NAMES["global", "ld", "requests"]]
        self.gst_sectors = m[METRIC_NAMES["global", "st", "cost"]]
        self.gst_instr = m[METRIC_NAMES["global", "st", "requests"]]
        self.g_bytes_requested = sum(s.bytes_requested for s in instructions if s.space == "global")
        self.shared_requests = sum(s.requests for s in instructions if s.space == "shared")
        self.shared_wavefronts = sum(s.cost for s in instructions if s.space == "shared")

    @property
    def by_line(self) -> dict[int | None, dict[str, int]]:
        """Metrics per source line ({line: {ncu name: value}}), plus 'races' where hazards were seen."""
        lines: dict[int | None, list[InstrSummary]] = {}
        for s in self.instructions:
            lines.setdefault(s.line, []).append(s)
        out = {}
        for line, group in sorted(lines.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
            m = {k: v for k, v in metrics_of(group).items() if v}
            if self.races_by_line.get(line):
                m["races"] = self.races_by_line[line]
            out[line] = m
        return out

    def coalescing_efficiency(self) -> float:
        """Bytes the threads asked for / bytes moved in sectors (global loads and stores)."""
        moved = (self.gld_sectors + self.gst_sectors) * self.gpu.sector_bytes
        return self.g_bytes_requested / moved if moved else 1.0

    def bank_conflict_factor(self) -> float:
        """Shared-memory wavefronts per shared request (1.0 = conflict-free 4-byte accesses)."""
        return self.shared_wavefronts / self.shared_requests if self.shared_requests else 1.0

    def instruction(self, line: int | None = None, *, space: str | None = None, op: str | None = None,
                    array: str | None = None, col: int | None = None) -> InstrSummary:
        """The one instruction summary matching the filters (error if none or several)."""
        hits = [s for s in self.instructions if (line is None or s.line == line) and
                (space is None or s.space == space) and (op is None or s.op == op) and
                (array is None or s.array == array) and (col is None or s.col == col)]
        if len(hits) != 1:
            raise LookupError(f"{len(hits)} memory instructions match line={line} col={col} space={space} "
                              f"op={op} array={array}; have: {self.instructions}")
        return hits[0]

    def __repr__(self) -> str:
        return (f"Stats({self.kernel}, model {self.model_version}, grid={self.grid}, block={self.block}, "
                f"gld {self.gld_instr} req/"
                f"{self.gld_sectors} sectors, gst {self.gst_instr} req/{self.gst_sectors} sectors, shared "
                f"{self.shared_requests} req/{self.shared_wavefronts} wavefronts, races {self.race_count})")


def estimate_time(stats: Stats, gpu: "str | GPU | None" = None) -> dict[str, float]:
    """A first-order time estimate from the counters.

    ``t_mem``: every global sector moved once at the GPU's peak DRAM bandwidth; ``t_shared``: every wavefront
    at ``gpu.smem_clocks_per_wavefront`` SM clocks (1 on Kepler and later, 2 on Fermi), all SMs busy;
    ``t_est``: the larger of the two (the kernel waits for whichever is the bottleneck).

    Limitations: no caches (L1/L2 reuse and write combining are ignored, so uncoalesced code is
    over-charged), no latency, no occupancy. For comparing ways to write a kernel, not predicting seconds.
    ``estimate_traffic`` adds the caches' effect where the counters show it.
    """
    g = get_gpu(gpu) if gpu is not None else stats.gpu
    dram_bytes = (stats.gld_sectors + stats.gst_sectors) * g.sector_bytes
    t_mem = dram_bytes / g.dram_bandwidth
    t_shared = stats.shared_wavefronts * g.smem_clocks_per_wavefront / (g.sms * g.sm_clock_hz)
    return {"t_mem": t_mem, "t_shared": t_shared, "t_est": max(t_mem, t_shared), "dram_bytes": float(dram_bytes),
            "gpu": g.name}


def estimate_traffic(stats: Stats, gpu: "str | GPU | None" = None, *, footprint: "dict[str, int] | None" = None,
                     scale: float = 1.0) -> dict[str, float]:
    """A time estimate that follows what the memory system moves, not the L1 sectors alone.

    Three mechanisms, each visible in the H200's counters (measurements/h200/bandwidth/details.json):

    * DRAM moves each sector of an array once: the L1 keeps sectors that other warps of a block read again, and
      the L2 merges the partial-sector writes of neighbouring warps before writing back. So per (array, load or
      store), DRAM bytes = min(sectors × 32, the array's bytes) when ``footprint`` gives the array's size in
      bytes (the naive transpose at 8192²: 67 108 864 store sectors, yet 291 MiB written to DRAM for a 256 MiB
      output). ``t_dram`` = those bytes at the sustained bandwidth of a streaming copy measured on the GPU
      (``GPU.dram_bandwidth_sustained``; the datasheet peak where none was measured).
    * Each store sector an instruction only partly fills is a separate L2 write transaction (the L1 is
      write-through and merges no stores): ``t_l2`` = such sectors (sectors beyond the bytes requested / 32)
      at ``GPU.l2_partial_store_rate``, measured with the naive transpose.
    * ``t_l1``: the L1's tag stage looks up one 128-byte line per clock per SM (a model assumption, not a
      documented rate): a warp request spread over 32 lines takes 32 clocks whether or not the L1 hits, which
      is what limits the column-reading transpose (8× the load sectors of copy, yet copy's L2 and DRAM traffic).
      Lines per sector are read off each instruction's sampled warp.
    * ``t_shared``: shared-memory wavefronts as in ``estimate_time``.

    ``t_est`` is the largest of the four (they overlap). ``scale`` multiplies every count: a launch simulated
    on a smaller grid of identical blocks stands for a larger one (the transposes at 8192² are simulated at a
    few blocks: their per-block counts do not depend on N).

    Limitations: no latency, occupancy or launch overhead (a launch of a few microseconds is dominated by
    them); reuse is assumed complete within each array (true for kernels that stream whole arrays, not for
    gathers whose sectors are reused only partly); loads through the read-only path (``__restrict__``) and
    plain loads are costed alike, though the H200's plain copy is 16% slower; the two measured rates are
    calibrated on one kernel each (copy with ``__restrict__``, naive transpose at 8192²), so those two agree
    by construction.
    """
    g = get_gpu(gpu) if gpu is not None else stats.gpu
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    bw = g.dram_bandwidth_sustained or g.dram_bandwidth
    footprint = footprint or {}
    moved: dict[tuple[str, str], float] = {}
    partial = lines = 0.0
    for s in stats.instructions:
        if s.space != "global" or s.op not in ("ld", "st"):
            continue
        key = (s.array, s.op)
        moved[key] = moved.get(key, 0.0) + s.cost * g.sector_bytes * scale
        lines += s.cost * _lines_per_sector(s.sample) * scale
        if s.op == "st":
            partial += max(s.cost - -(-s.bytes_requested // g.sector_bytes), 0) * scale
    dram_bytes = sum(min(b, footprint.get(arr, b)) for (arr, _), b in moved.items())
    t_dram = dram_bytes / bw
    t_l2 = partial / g.l2_partial_store_rate if g.l2_partial_store_rate else 0.0
    t_l1 = lines / (g.sms * g.sm_clock_hz)
    t_shared = stats.shared_wavefronts * scale * g.smem_clocks_per_wavefront / (g.sms * g.sm_clock_hz)
    return {"t_dram": t_dram, "t_l2": t_l2, "t_l1": t_l1, "t_shared": t_shared,
            "t_est": max(t_dram, t_l2, t_l1, t_shared), "dram_bytes": float(dram_bytes),
            "partial_store_sectors": partial, "l1_lines": lines, "gpu": g.name}


def _lines_per_sector(sample) -> float:
    """Distinct 128-byte lines per distinct 32-byte sector in one warp's access (1.0 without a sample)."""
    if sample is None or not np.any(sample.active):
        return 1.0
    addr = sample.addr[sample.active].astype(np.int64)
    first, last = addr // 32, (addr + sample.itemsize - 1) // 32
    sectors = np.unique(np.concatenate([first, last]))
    return np.unique(sectors // 4).size / sectors.size
