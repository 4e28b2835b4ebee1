"""GPU presets: memory geometry, limits, bandwidths and clocks used by the counters and estimate_time."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GPU:
    """One GPU model. Bandwidths in bytes/s; shared-memory sizes in bytes.

    Limitations: only what the memory lessons need. The sector and bank model is the one checked on an
    H200 (see measurements/h200/); older presets reuse it, which is approximate for Fermi's 128-byte L1
    lines and Kepler's optional 8-byte bank mode.
    """

    name: str
    arch: str
    sms: int
    warp_size: int
    banks: int
    bank_bytes: int
    sector_bytes: int
    max_threads_per_block: int
    max_block_dims: tuple[int, int, int]
    max_grid_dims: tuple[int, int, int]
    smem_per_block: int           # static limit (48 KiB on every CUDA GPU)
    smem_per_block_optin: int     # with cudaFuncSetAttribute; dynamic shared memory may go up to this
    dram_bandwidth: float         # peak, vendor datasheet
    smem_bandwidth_per_sm: float  # bytes per clock per SM the banks deliver (banks x bank bytes per clock)
    sm_clock_hz: float
    # Measured on the GPU itself (0.0 = not measured; estimate_traffic then falls back to the datasheet):
    dram_bandwidth_sustained: float = 0.0  # bytes/s a streaming copy reaches (Harris's effective bandwidth)
    l2_partial_store_rate: float = 0.0     # partly filled store sectors per second the L2 absorbs
    # Residency limits per SM (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"),
    # for occupancy: how many blocks of a kernel fit on one SM at once.
    max_threads_per_sm: int = 2048
    max_blocks_per_sm: int = 32
    smem_per_sm: int = 228 * 1024           # the largest shared-memory carve-out of the unified L1/shared
    smem_reserved_per_block: int = 1024     # the runtime's own shared memory per block (sm_80 and later)
    regs_per_sm: int = 65536
    reg_alloc_unit: int = 256               # registers are allocated per warp in units of this many
    # FP32 multiply-adds one SM completes per clock (CUDA C++ Programming Guide, "Arithmetic Instructions",
    # throughput table: 128 per SM for compute capability 9.0); 0 = not given. For rooflines and the
    # shared-memory cap of lesson 10, never for labsim's counters.
    fp32_fma_per_clock_per_sm: int = 0

    @property
    def smem_clocks_per_wavefront(self) -> float:
        """SM clocks one shared-memory wavefront (one 4-byte word from each of the banks) takes; never below 1,
        since a warp request issues at most one wavefront per clock."""
        return max(1.0, self.banks * self.bank_bytes / self.smem_bandwidth_per_sm)

    def __repr__(self) -> str:
        return f"GPU({self.name!r}, {self.arch}, {self.sms} SMs, {self.dram_bandwidth / 1e9:.0f} GB/s)"


GPUS: dict[str, GPU] = {
    # Vendor datasheet figures (H200 SXM: 141 GB HBM3e at 4.8 TB/s; 132 SMs; boost 1980 MHz).
    # dram_bandwidth_sustained, l2_partial_store_rate: measurements/h200/bandwidth/results.json (8192², the
    # copy with __restrict__ and the naive transpose; tests/labsim/test_h200_bandwidth.py recomputes them).
    "H200": GPU("H200", "sm_90", 132, 32, 32, 4, 32, 1024, (1024, 1024, 64), (2**31 - 1, 65535, 65535),
                48 * 1024, 227 * 1024, 4.8e12, 128, 1.98e9, dram_bandwidth_sustained=3.60e12,
                l2_partial_store_rate=5.96e10,
                max_threads_per_sm=2048, max_blocks_per_sm=32, smem_per_sm=228 * 1024, smem_reserved_per_block=1024,
                regs_per_sm=65536, reg_alloc_unit=256, fp32_fma_per_clock_per_sm=128),
    # Harris's blog compared these two (ECC off for the M2050 figures). Shared-memory bandwidth per SM from the
    # CUDA C Programming Guide 5.0, appendix F: compute capability 2.x "each bank has a bandwidth of 32 bits per
    # two clock cycles" (32 banks: 64 B/clock, a 4-byte wavefront every 2 clocks); 3.x "64 bits per clock cycle"
    # (256 B/clock, which only 8-byte accesses can use: a warp of 4-byte words is still one wavefront a clock).
    "M2050": GPU("M2050", "sm_20", 14, 32, 32, 4, 32, 1024, (1024, 1024, 64), (65535, 65535, 65535),
                 48 * 1024, 48 * 1024, 148.4e9, 64, 1.15e9,
                 max_threads_per_sm=1536, max_blocks_per_sm=8, smem_per_sm=48 * 1024, smem_reserved_per_block=0,
                 regs_per_sm=32768, reg_alloc_unit=64),
    "K20c": GPU("K20c", "sm_35", 13, 32, 32, 4, 32, 1024, (1024, 1024, 64), (2**31 - 1, 65535, 65535),
                48 * 1024, 48 * 1024, 208e9, 256, 0.706e9,
                max_threads_per_sm=2048, max_blocks_per_sm=16, smem_per_sm=48 * 1024, smem_reserved_per_block=0,
                regs_per_sm=65536, reg_alloc_unit=256),
}


def get_gpu(gpu: "str | GPU") -> GPU:
    """Look a preset up by name (case-insensitive) or pass a GPU through."""
    if isinstance(gpu, GPU):
        return gpu
    for name, preset in GPUS.items():
        if name.lower() == str(gpu).lower():
            return preset
    from .errors import LaunchError
    raise LaunchError(f"unknown GPU preset {gpu!r}; known: {', '.join(GPUS)}")


def occupancy(gpu: "str | GPU", threads_per_block: int, smem_per_block: int, regs_per_thread: int | None = None
              ) -> dict:
    """Resident blocks per SM of a kernel and the limit that sets it (threads, blocks, shared memory, registers).

    Returns ``{"blocks": n, "limits": {name: blocks allowed by that resource}, "smem_used": bytes of the SM's
    shared memory the resident blocks take (their reservation included), "smem_per_sm": capacity}``.
    Register allocation follows the per-warp granularity (``reg_alloc_unit``); ``regs_per_thread=None``
    leaves registers out.
    """
    g = get_gpu(gpu)
    if threads_per_block <= 0 or smem_per_block < 0:
        raise ValueError(f"occupancy: need threads_per_block > 0 and smem_per_block >= 0, got "
                         f"{threads_per_block}, {smem_per_block}")
    per_block = smem_per_block + g.smem_reserved_per_block
    limits = {"threads": g.max_threads_per_sm // threads_per_block, "blocks": g.max_blocks_per_sm,
              "shared": g.smem_per_sm // per_block if per_block else g.max_blocks_per_sm}
    if regs_per_thread is not None:
        warps = -(-threads_per_block // g.warp_size)
        per_warp = -(-regs_per_thread * g.warp_size // g.reg_alloc_unit) * g.reg_alloc_unit
        limits["registers"] = g.regs_per_sm // (per_warp * warps)
    n = min(limits.values())
    return {"blocks": n, "limits": limits, "smem_used": n * per_block, "smem_per_sm": g.smem_per_sm}
