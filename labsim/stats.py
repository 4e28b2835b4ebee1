"""Launch statistics: the seed's counters, Nsight Compute-named metrics, per-line tables, estimate_time."""
from __future__ import annotations

from .analysis import InstrSummary, Race
from .gpus import GPU, get_gpu
from .model import MODEL_VERSION

# Nsight Compute metric names, keyed by (space, op, what).
METRIC_NAMES: dict[tuple[str, str, str], str] = {
    ("global", "ld", "requests"): "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    ("global", "ld", "cost"): "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    ("global", "ld", "executed"): "smsp__inst_executed_op_global_ld.sum",
    ("global", "st", "requests"): "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    ("global", "st", "cost"): "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    ("global", "st", "executed"): "smsp__inst_executed_op_global_st.sum",
    ("global", "atom", "requests"): "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    ("global", "atom", "cost"): "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    ("global", "atom", "executed"): "smsp__inst_executed_op_global_atom.sum",
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
    ``model_version``: the version of the counting model (``labsim.model``) that produced the counters.
    """

    def __init__(self, kernel: str, grid, block, gpu: GPU, instructions: list[InstrSummary], races: list[Race],
                 race_count: int, races_by_line: dict, schedule: str, model_version: str = MODEL_VERSION,
                 racecheck: "dict | None" = None) -> None:
        self.kernel = kernel
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
        return (f"Stats({self.kernel}, model {self.model_version}, grid={self.grid}, block={self.block}, gld {self.gld_instr} req/"
                f"{self.gld_sectors} sectors, gst {self.gst_instr} req/{self.gst_sectors} sectors, shared "
                f"{self.shared_requests} req/{self.shared_wavefronts} wavefronts, races {self.race_count})")


def estimate_time(stats: Stats, gpu: "str | GPU | None" = None) -> dict[str, float]:
    """A first-order time estimate from the counters.

    ``t_mem``: every global sector moved once at the GPU's peak DRAM bandwidth; ``t_shared``: every wavefront
    at ``gpu.smem_clocks_per_wavefront`` SM clocks (1 on Kepler and later, 2 on Fermi), all SMs busy;
    ``t_est``: the larger of the two (the kernel waits for whichever is the bottleneck).

    Limitations: no caches (L1/L2 reuse and write combining are ignored, so uncoalesced code is
    over-charged), no latency, no occupancy. For comparing ways to write a kernel, not predicting seconds.
    """
    g = get_gpu(gpu) if gpu is not None else stats.gpu
    dram_bytes = (stats.gld_sectors + stats.gst_sectors) * g.sector_bytes
    t_mem = dram_bytes / g.dram_bandwidth
    t_shared = stats.shared_wavefronts * g.smem_clocks_per_wavefront / (g.sms * g.sm_clock_hz)
    return {"t_mem": t_mem, "t_shared": t_shared, "t_est": max(t_mem, t_shared), "dram_bytes": float(dram_bytes),
            "gpu": g.name}
