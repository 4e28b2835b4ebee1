"""``nvcc -std=c++17 -c`` where nvcc exists: a compile-only check with a short timeout, errors shown.

Compile only: the object file is discarded and nothing is ever executed natively.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass

# nvcc runs cudafe++, cicc, ptxas as children: a hostile template can keep them busy long after nvcc's own
# timeout, so nvcc gets its own session (its process group is killed as a whole) and every process in it
# inherits limits on CPU seconds and address space
MEMORY_LIMIT_BYTES = 4 << 30


@dataclass(frozen=True)
class NvccResult:
    """``status``: passed, failed, timeout or skipped (no nvcc on this machine)."""

    status: str
    message: str
    seconds: float = 0.0

    def __repr__(self) -> str:
        return f"NvccResult({self.status})"


_CACHE: dict[str, NvccResult] = {}


def find_nvcc() -> str | None:
    return shutil.which("nvcc") or (shutil.which("nvcc", path="/usr/local/cuda/bin"))


def nvcc_compile(source: str, *, display_name: str = "submission.cu", timeout_s: float = 60) -> NvccResult:
    """Compile ``source``; identical sources are compiled once per process."""
    nvcc = find_nvcc()
    if nvcc is None:
        return NvccResult("skipped", "这台机器上没有 nvcc，跳过编译检查（labsim 的检查照常进行）。")
    key = hashlib.sha256(source.encode()).hexdigest()
    if key in _CACHE:
        return _CACHE[key]
    import time
    with tempfile.TemporaryDirectory(prefix="grading-nvcc-") as tmp:
        src = os.path.join(tmp, display_name)
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        t0 = time.perf_counter()
        proc = run_in_own_group([nvcc, "-std=c++17", "-c", src, "-o", os.path.join(tmp, "out.o")], tmp, timeout_s)
        if proc is None:
            res = NvccResult("timeout", f"nvcc 在 {timeout_s:g} 秒内没有编译完，跳过编译检查。", timeout_s)
            _CACHE[key] = res
            return res
        dt = time.perf_counter() - t0
        out = (proc.stdout + proc.stderr).replace(tmp + os.sep, "")
    lines = [ln for ln in out.splitlines() if ln.strip()]
    shown = "\n".join(lines[:30]) + ("\n…" if len(lines) > 30 else "")
    if proc.returncode == 0:
        res = NvccResult("passed", "nvcc -std=c++17 -c 编译通过。" + (f"\n{shown}" if shown else ""), dt)
    else:
        res = NvccResult("failed", f"nvcc -std=c++17 -c 编译失败：\n{shown}", dt)
    _CACHE[key] = res
    return res


def _limits(cpu_s: float) -> None:                # runs in the child, before exec
    import resource
    cpu = max(1, int(cpu_s) + 1)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def run_in_own_group(argv: list[str], cwd: str, timeout_s: float) -> subprocess.CompletedProcess | None:
    """Run ``argv`` in a new session under CPU and memory limits; on timeout kill its whole process group
    (nvcc's children included) and return None. The group is killed after a normal exit too, so nothing it
    started outlives it."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True, preexec_fn=lambda: _limits(timeout_s))
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        proc.communicate()
        return None
    finally:
        kill_group(proc.pid)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def kill_group(pgid: int) -> None:
    """SIGKILL the process group ``pgid`` (gone already: nothing to do)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
