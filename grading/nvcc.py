"""``nvcc -std=c++17 -c`` where nvcc exists: a compile-only check with a short timeout, errors shown.

Compile only: the object file is discarded and nothing is ever executed natively.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass


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
        try:
            proc = subprocess.run([nvcc, "-std=c++17", "-c", src, "-o", os.path.join(tmp, "out.o")],
                                  capture_output=True, text=True, timeout=timeout_s, cwd=tmp,
                                  errors="replace")
        except subprocess.TimeoutExpired:
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
