"""Errors raised by labsim. Each names the place: kernel, line, block, thread, array, index."""
from __future__ import annotations

from typing import Any


class LabsimError(Exception):
    """Base class. ``where`` holds the place (kernel, line, block, thread, array, index, ...)."""

    def __init__(self, message: str, **where: Any) -> None:
        self.where = {k: v for k, v in where.items() if v is not None}
        self.message = message
        super().__init__(self._format())

    def _format(self) -> str:
        parts = []
        for key in ("file", "kernel", "line", "col", "block", "thread", "warp", "lane", "array", "index"):
            if key in self.where:
                parts.append(f"{key} {_fmt(self.where[key])}")
        return f"{self.message}" + (f" [{', '.join(parts)}]" if parts else "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, where={self.where!r})"


def _fmt(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ",".join(str(int(x)) for x in v) + ")"
    return str(v)


class LaunchError(LabsimError):
    """Bad launch configuration (CUDA would refuse it with 'invalid configuration argument')."""


class LaunchTooLargeError(LaunchError):
    """A launch over labsim's memory limit for simulating it (a GPU would run it): a lab limit, not a fault."""


class MemoryArgumentError(LabsimError):
    """A memory operation got something that is not a usable device array or index."""


class OutOfBoundsError(LabsimError):
    """A global or shared access outside its array."""


class MisalignedAddressError(LabsimError):
    """An 8- or 16-byte access whose address is not a multiple of its size (the GPU faults)."""


class DivergentBarrierError(LabsimError):
    """__syncthreads() reached by only part of a block."""


class StepBudgetError(LabsimError):
    """The step budget ran out (an endless loop, or a kernel far too long for the lab)."""


class WorkBudgetError(LabsimError):
    """A launch asks for more work (threads x steps) than labsim's work limit (labsim.budget)."""


class UnsupportedError(LabsimError):
    """A construct or type labsim does not model."""


class KernelError(LabsimError):
    """A Python exception raised inside a kernel, re-raised with the kernel and line."""
