"""Speed and memory numbers (not a test): prints seconds and peak RSS for the targets in the issues.

    .venv/bin/python tools/bench.py [--skip-grading]

Each case runs in a fresh child process so its peak RSS is its own.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CASES = {
    "transpose_1024_pad1": ("1024x1024 tiled transpose, +1 padding, all counters and race tracking (Python API)",
                            "target <= 0.3 s, <= 1 GiB"),
    "p2_script": ("P2 script at its default size (python lessons/prelude/02_memory_coalescing.py)", "target <= 2 s"),
    "cuda_seed_1024": ("seed lesson-9 kernel at 1024x1024 through labsim.cuda Program.call", "target <= 2x Python API"),
}


def _transpose_python(n: int = 1024) -> float:
    import numpy as np
    sys.path.insert(0, os.path.join(ROOT, "lessons", "prelude"))
    mod = __import__("02_memory_coalescing")
    A = np.random.default_rng(0).random((n, n), dtype=np.float32)
    B = np.zeros_like(A)
    from labsim import launch

    def kernel(blk, A_, B_, N_):
        mod.transpose_tiled(blk, A_, B_, N_, pad=1)

    t = time.perf_counter()
    launch(kernel, grid=(n // 32, n // 32), block=(32, 8), args=(A, B, n))
    dt = time.perf_counter() - t
    assert np.array_equal(B, A.T)
    return dt


def _cuda_seed(n: int = 1024) -> float:
    import numpy as np
    from labsim import cuda
    src = open(os.path.join(ROOT, "grading", "exercises", "lesson09", "solution.cu"), encoding="utf-8").read()
    prog = cuda.compile(src)
    A = np.random.default_rng(0).random((n, n), dtype=np.float32)
    B = np.zeros((n, n), dtype=np.float32)
    t = time.perf_counter()
    prog.call("launch_transpose_tiled", A, B, n, n, 0)
    dt = time.perf_counter() - t
    assert np.array_equal(B, A.T)
    return dt


def child(case: str) -> None:
    if case == "transpose_1024_pad1":
        best = min(_transpose_python() for _ in range(3))
        out = {"seconds": best}
    elif case == "p2_script":
        t = time.perf_counter()
        subprocess.run([sys.executable, os.path.join(ROOT, "lessons", "prelude", "02_memory_coalescing.py")],
                       check=True, stdout=subprocess.DEVNULL)
        out = {"seconds": time.perf_counter() - t}
    elif case == "cuda_seed_1024":
        py = min(_transpose_python() for _ in range(3))
        cu = min(_cuda_seed() for _ in range(3))
        out = {"seconds": cu, "python_api_seconds": py, "ratio": cu / py}
    else:
        raise SystemExit(f"unknown case {case}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB -> MiB (Linux)
    rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out["peak_rss_mib"] = max(rss, rss_children)
    print(json.dumps(out))


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    print(f"{'case':<22} {'seconds':>8} {'peak RSS':>10}  notes")
    for case, (what, target) in CASES.items():
        r = subprocess.run([sys.executable, __file__, "--child", case], capture_output=True, text=True, cwd=ROOT)
        if r.returncode:
            print(f"{case:<22} {'error':>8} {'':>10}  {r.stderr.strip().splitlines()[-1] if r.stderr else ''}")
            continue
        d = json.loads(r.stdout.strip().splitlines()[-1])
        extra = f"; Python API {d['python_api_seconds']:.3f} s, ratio {d['ratio']:.2f}x" if "ratio" in d else ""
        print(f"{case:<22} {d['seconds']:8.3f} {d['peak_rss_mib']:8.0f} MiB  {what} ({target}){extra}")
    if "--skip-grading" not in sys.argv:
        try:
            from grading import bench as gbench  # provided by the grading package
        except ImportError as e:
            print(f"grading benchmark unavailable: {e}")
        else:
            gbench.main()


if __name__ == "__main__":
    main()
