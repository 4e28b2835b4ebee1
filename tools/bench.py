"""Speed and memory numbers (not a test): prints seconds and peak RSS for the targets in the issues.

    .venv/bin/python tools/bench.py [--skip-grading] [--quick] [--sizes 256,1024] [--kernels tiled,gemm]

    .venv/bin/python tools/bench.py --skip-targets --repeat 3 --kernels copy,naive

Each case runs in a fresh child process so its peak RSS is its own. The scaling table gives the time per
simulated element (matrix elements for the transposes, multiply-adds for the GEMM) from 256² to 8192², in CPU
seconds of the process (less disturbed than wall time when other jobs share the cores; the load average is
printed too), the least of ``--repeat`` launches in that process (default 10 up to 512² elements, 3 up to 2048²,
2 above; ``--repeat 1`` shows each process's first launch). A row passes when every size is within ±30% of the
row's median time per element (issue 18's "constant within ±30%").
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
                            "target <= 0.15 s, <= 1 GiB"),
    "p2_script": ("P2 script at its default size (python lessons/prelude/02_memory_coalescing.py)", "target <= 2 s"),
    "cuda_seed_1024": ("seed lesson-9 kernel at 1024x1024 through labsim.cuda Program.call",
                       "target <= 0.2 s, <= 2x Python API"),
    "transpose_8192": ("8192x8192 tiled transpose through labsim.cuda (the H200's size)", "target <= 30 s, <= 6 GiB"),
}
SIZES = {"copy": (256, 512, 1024, 2048, 4096, 8192), "naive": (256, 512, 1024, 2048, 4096, 8192),
         "tiled": (256, 512, 1024, 2048, 4096, 8192), "gemm": (128, 256, 512)}
QUICK_SIZES = {"copy": (256, 1024, 2048), "naive": (256, 1024, 2048), "tiled": (256, 1024, 2048),
               "gemm": (128, 256)}
TOLERANCE = 0.30     # every size within ±30% of the row's median time per element


def repeats(elements: int) -> int:
    """Launches per size in the scaling table (the least CPU time is kept): --repeat, else 10 up to 512² elements
    (a few milliseconds each, easily disturbed by other jobs), 3 up to 2048², 2 above."""
    r = _option("--repeat")
    return int(r) if r else (10 if elements <= 512 ** 2 else 3 if elements <= 2048 ** 2 else 2)


def spread(per: list[float]) -> tuple[float, float, float, bool]:
    """(median, max/min, the deviation from the median farthest from it as a signed fraction, within TOLERANCE)."""
    s = sorted(per)
    med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    dev = max((p / med - 1 for p in per), key=abs)
    return med, s[-1] / s[0], dev, abs(dev) <= TOLERANCE


def _best(runs) -> dict:
    """The run with the least CPU time: {"seconds": wall, "cpu_seconds": cpu}."""
    wall, cpu = min(runs, key=lambda r: r[1])
    return {"seconds": wall, "cpu_seconds": cpu}


def _transpose_python(n: int = 1024) -> tuple[float, float]:
    import numpy as np
    sys.path.insert(0, os.path.join(ROOT, "lessons", "prelude"))
    mod = __import__("02_memory_coalescing")
    A = np.random.default_rng(0).random((n, n), dtype=np.float32)
    B = np.zeros_like(A)
    from labsim import launch

    def kernel(blk, A_, B_, N_):
        mod.transpose_tiled(blk, A_, B_, N_, pad=1)

    t, c = time.perf_counter(), time.process_time()
    launch(kernel, grid=(n // 32, n // 32), block=(32, 8), args=(A, B, n))
    t, c = time.perf_counter() - t, time.process_time() - c
    assert np.array_equal(B, A.T)
    return t, c


def _cuda_seed(n: int = 1024) -> tuple[float, float]:
    import numpy as np
    from labsim import cuda
    src = open(os.path.join(ROOT, "grading", "exercises", "lesson09", "solution.cu"), encoding="utf-8").read()
    prog = cuda.compile(src)
    A = np.random.default_rng(0).random((n, n), dtype=np.float32)
    B = np.zeros((n, n), dtype=np.float32)
    t, c = time.perf_counter(), time.process_time()
    prog.call("launch_transpose_tiled", A, B, n, n, 0)
    t, c = time.perf_counter() - t, time.process_time() - c
    assert np.array_equal(B, A.T)
    return t, c


def _scale(kernel: str, api: str, n: int) -> dict:
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import bench_kernels
    program = None
    if api == "cuda":
        from labsim import cuda
        program = cuda.compile(bench_kernels.CUDA_SRC, "bench_kernels.cu")
    best = None
    for _ in range(repeats(bench_kernels.elements(kernel, n))):
        times = {}
        _, ok = bench_kernels.run(kernel, api, n, program, times=times)
        assert ok, f"{kernel} {api} {n}: wrong result"
        if best is None or times["cpu"] < best[1]:
            best = (times["wall"], times["cpu"])
    return {"seconds": best[0], "cpu_seconds": best[1], "per_element_ns": best[1] / bench_kernels.elements(kernel, n)
            * 1e9}


def child(case: str) -> None:
    if case.startswith("scale:"):
        _, kernel, api, n = case.split(":")
        out = _scale(kernel, api, int(n))
    elif case == "transpose_8192":
        out = _best([_cuda_seed(8192)])
    elif case == "transpose_1024_pad1":
        out = _best([_transpose_python() for _ in range(3)])
    elif case == "p2_script":
        t = time.perf_counter()
        subprocess.run([sys.executable, os.path.join(ROOT, "lessons", "prelude", "02_memory_coalescing.py")],
                       check=True, stdout=subprocess.DEVNULL)
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = {"seconds": time.perf_counter() - t, "cpu_seconds": ru.ru_utime + ru.ru_stime}
    elif case == "cuda_seed_1024":
        py = _best([_transpose_python() for _ in range(3)])
        out = _best([_cuda_seed() for _ in range(3)])
        out.update(python_api_cpu_seconds=py["cpu_seconds"], ratio=out["cpu_seconds"] / py["cpu_seconds"])
    else:
        raise SystemExit(f"unknown case {case}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # KiB -> MiB (Linux)
    rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out["peak_rss_mib"] = max(rss, rss_children)
    print(json.dumps(out))


def _child_run(case: str) -> dict | str:
    repeat = ["--repeat", _option("--repeat")] if _option("--repeat") else []
    r = subprocess.run([sys.executable, __file__, "--child", case, *repeat], capture_output=True, text=True,
                       cwd=ROOT)
    if r.returncode:
        return r.stderr.strip().splitlines()[-1] if r.stderr else f"exit status {r.returncode}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def _option(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else None


def scaling_table(sizes: dict) -> None:
    """Time per simulated element for every kernel, API and size; PASS when every size is within ±30% of the
    row's median (cost linear in the work)."""
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; ns of CPU time per element "
          "(transposes: matrix elements; GEMM: multiply-adds), least of the repeated launches; peak RSS in MiB; "
          f"PASS: every size within ±{TOLERANCE:.0%} of the row's median")
    for kernel, ns in sizes.items():
        for api in ("python", "cuda"):
            cells, per = [], []
            for n in ns:
                d = _child_run(f"scale:{kernel}:{api}:{n}")
                if isinstance(d, str):
                    cells.append(f"{n}: error ({d[:60]})")
                    continue
                per.append(d["per_element_ns"])
                cells.append(f"{n}: {d['per_element_ns']:.0f} ns ({d['seconds']:.2f} s, {d['peak_rss_mib']:.0f} MiB)")
            verdict = "FAIL (errors)" if len(per) < len(ns) else ""
            if len(per) > 1:
                med, ratio, dev, ok = spread(per)
                verdict = verdict or ("PASS" if ok else "FAIL")
                verdict += f" median {med:.0f} ns, max/min {ratio:.2f}, worst {dev:+.0%}"
            print(f"{kernel:>6} {api:<7} {verdict:<48} " + "; ".join(cells), flush=True)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    quick = "--quick" in sys.argv
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; seconds: wall (CPU)")
    print(f"{'case':<22} {'seconds':>15} {'peak RSS':>10}  notes")
    for case, (what, target) in CASES.items():
        if "--skip-targets" in sys.argv or (quick and case == "transpose_8192"):
            continue
        d = _child_run(case)
        if isinstance(d, str):
            print(f"{case:<22} {'error':>15} {'':>10}  {d}")
            continue
        extra = (f"; Python API {d['python_api_cpu_seconds']:.3f} s CPU, ratio {d['ratio']:.2f}x" if "ratio" in d
                 else "")
        secs = f"{d['seconds']:.3f} ({d['cpu_seconds']:.3f})"
        print(f"{case:<22} {secs:>15} {d['peak_rss_mib']:8.0f} MiB  {what} ({target}){extra}", flush=True)
    sizes = dict(QUICK_SIZES if quick else SIZES)
    if _option("--kernels"):
        sizes = {k: sizes[k] for k in _option("--kernels").split(",")}
    if _option("--sizes"):
        want = [int(s) for s in _option("--sizes").split(",")]
        sizes = {k: tuple(want) for k in sizes}
    if sizes and "--skip-scaling" not in sys.argv:
        scaling_table(sizes)
    if "--skip-grading" not in sys.argv:
        try:
            from grading import bench as gbench  # provided by the grading package
        except ImportError as e:
            print(f"grading benchmark unavailable: {e}")
        else:
            gbench.main()


if __name__ == "__main__":
    main()
