"""labsim: a SIMT lab simulator that runs GPU kernels on the CPU and counts memory traffic as an H200 does.

    from labsim import launch, estimate_time
    stats = launch(kernel, grid=(64,), block=(256,), args=(A,))
    stats.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
"""
from .launch_records import InstrSummary, Race, WarpAccess, warp_sectors, warp_wavefronts
from .errors import (DivergentBarrierError, KernelError, LabsimError, LaunchError, LaunchTooLargeError,
                     MemoryArgumentError,
                     MisalignedAddressError, OutOfBoundsError, StepBudgetError, UnsupportedError)
from .gpus import GPU, GPUS, get_gpu
from .launch import Block, launch
from .model import MODEL_VERSION, CountingModel
from .memory import DOUBLE2, FLOAT2, FLOAT4, INT2, INT4, SharedArray
from .stats import METRIC_NAMES, REQUIRED_METRICS, Stats, estimate_time, estimate_traffic

__all__ = [
    "MODEL_VERSION", "CountingModel", "launch", "estimate_time", "estimate_traffic", "Stats", "Block", "GPU", "GPUS", "get_gpu",
    "WarpAccess", "InstrSummary", "Race",
    "SharedArray", "warp_sectors", "warp_wavefronts", "METRIC_NAMES", "REQUIRED_METRICS",
    "FLOAT2", "FLOAT4", "INT2", "INT4", "DOUBLE2",
    "LabsimError", "LaunchError", "LaunchTooLargeError", "MemoryArgumentError", "OutOfBoundsError", "MisalignedAddressError",
    "DivergentBarrierError", "StepBudgetError", "UnsupportedError", "KernelError",
]
