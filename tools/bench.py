"""Speed and memory targets of labsim and the grader, PASS/FAIL (`make bench`; not a test: no test asserts time).

    .venv/bin/python tools/bench.py                          # every group (4 to 6 minutes on 2 cores)
    .venv/bin/python tools/bench.py --only gemm,numba        # some groups
    .venv/bin/python tools/bench.py --quick                  # smaller sizes, no 8192², 20-submission batch
    .venv/bin/python tools/bench.py --list                   # the groups and their targets, nothing run

Groups (``--only``): transpose (1024² Python API, lesson 9's kernel at 1024² and 8192² through labsim.cuda),
p2 (the P2 script), gemm (lesson 10's kernel and its register-tiled challenge through labsim.cuda, ns per
multiply-add at 128³-512³), scaling (ns per element of copy/naive/tiled/GEMM from 256² to 8192², Python API and
labsim.cuda), grading (lesson 10: one submission, a batch on 2 workers), numba (the same tiled transpose and
GEMM in Numba's CUDA simulator at a small size, side by side; needs the optional ``bench`` extra:
``pip install -e '.[bench]'``).

Times are CPU seconds of the process (``time.process_time``: less disturbed than wall time when other jobs share
the cores; wall seconds and the load average are printed too). Each case runs in a fresh child process, so its
peak RSS is its own. The kernels are in tools/bench_kernels.py; the grading figures come from grading/bench.py.
A scaling row passes when every size is within ±30% of the row's median time per element ("flat with size").
Each size of the scaling table is measured in SCALE_ROUNDS child processes, the whole table's cases in turn (so
the samples of one size are minutes apart); the least time per element is judged. Other jobs on the shared cores
slow a process for seconds to minutes at a time (the same 512² launch measured 22 and 33 ns per element in two
processes a minute apart, while callgrind counts the same instructions), and a single child per size let one
such spell fail a row.

What a GEMM row measures: the kernel is compiled and launched once in its child process (that first launch's
CPU time is printed as "first", not judged: it also fills the process's memo of costed access patterns), then
launched again until GEMM_RUNS warm launches have run and they have taken GEMM_MIN_CPU seconds of CPU in all
(at most GEMM_MAX_RUNS); the least CPU time of those warm launches, divided by n³, is the figure judged, the
least over GEMM_ROUNDS such child processes (each round runs every size in turn, so a burst of other work on
shared cores spoils one sample of a size, not all). Each size is thus watched for about as long as the others:
a fixed count of launches watched a 128³ launch (6 ms) for 20 ms per process against 512³'s 1 s, and the
challenge's 128³ launch took 3.0 to 5.5 ns per multiply-add from one launch to the next in one process on an
idle machine, and 2.5 ns at the least of 40, so its least of three measured mostly the noise (2026-12-02).
The expected C is computed before the timed launches and compared after each. Children run with numpy's BLAS
on one thread (OPENBLAS_NUM_THREADS=1 etc.): labsim never calls BLAS, but the bench's own reference products
(``A @ B``) would otherwise leave OpenBLAS's worker threads spinning for a while, and ``process_time`` counts
every thread of the process, so that spin was billed to the next launch (at 128³ it doubled the figure).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)     # this checkout's labsim and grading, installed or not

TOLERANCE = 0.30     # every size within ±30% of the row's median time per element
GROUPS = ("transpose", "p2", "gemm", "scaling", "grading", "numba")
# (group, what, target) per case; the checks are in _verdict
CASES = {
    "transpose_1024_pad1": ("transpose", "1024x1024 tiled transpose, +1 padding, all counters and race tracking "
                            "(Python API)", "<= 0.15 s CPU, <= 1 GiB"),
    "cuda_seed_1024": ("transpose", "lesson 9's kernel at 1024x1024 through labsim.cuda Program.call",
                       "<= 0.2 s CPU, <= 2x the Python API"),
    "transpose_8192": ("transpose", "8192x8192 tiled transpose through labsim.cuda (the H200's size)",
                       "<= 15 s CPU, <= 6 GiB"),
    "p2_script": ("p2", "P2 script at its default size (lessons/prelude/02_memory_coalescing.py)", "<= 2 s CPU"),
}
GEMM_NS = 50.0       # ns of CPU per multiply-add, every size
GEMM_ROUNDS = 3      # child processes per size, the sizes in turn (the least is judged; as SCALE_ROUNDS)
SCALE_ROUNDS = 3     # scaling table: child processes per size, the whole table in turn (the least is judged)
GEMM_RUNS = 3        # warm launches per size after the first one, at least (the least CPU time is judged)
GEMM_MIN_CPU = 0.5   # ... and until the warm launches have taken this many CPU seconds in all
GEMM_MAX_RUNS = 200  # ... but no more launches than this
# numpy's BLAS on one thread in every child: a reference's ``A @ B`` must not leave worker threads spinning
# while a launch is timed (labsim itself never calls BLAS)
CHILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
GEMM_SIZES, GEMM_QUICK = (128, 256, 512), (128, 256)
GEMM_KERNELS = {     # name: (source, host function)
    "lesson10": ("grading/exercises/lesson10/solution.cu", "launch_gemm_tiled"),
    "lesson10_challenge": ("measurements/h200/round3/challenges/lesson10_challenge/solution.cu", "launch_gemm"),
}
GRADING_ONE_S, GRADING_BATCH_S = 1.0, 120.0
GRADING_EXERCISE = "lesson10"
SIZES = {"copy": (256, 512, 1024, 2048, 4096, 8192), "naive": (256, 512, 1024, 2048, 4096, 8192),
         "tiled": (256, 512, 1024, 2048, 4096, 8192), "gemm": (128, 256, 512)}
QUICK_SIZES = {"copy": (256, 1024, 2048), "naive": (256, 1024, 2048), "tiled": (256, 1024, 2048),
               "gemm": (128, 256)}
NUMBA_SIZES = {"tiled": 64, "gemm": 32}   # Numba's simulator runs a Python thread per CUDA thread: keep it small


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="tools/bench.py", description=__doc__.split("\n\n")[0],
                                epilog="Groups: " + ", ".join(GROUPS) + ". See the module docstring for each.")
    p.add_argument("--only", default=",".join(GROUPS), metavar="GROUPS",
                   help="comma-separated groups to run (default: all): " + ",".join(GROUPS))
    p.add_argument("--skip", default="", metavar="GROUPS", help="comma-separated groups to leave out")
    p.add_argument("--quick", action="store_true",
                   help="smaller sizes, no 8192² transpose, GEMM up to 256³, a 20-submission grading batch")
    p.add_argument("--list", action="store_true", help="print the groups and targets, run nothing")
    p.add_argument("--repeat", type=int, default=None,
                   help="launches per size in the scaling table (least CPU time kept; default 10 up to 512² "
                        "elements, 3 up to 2048², 2 above)")
    p.add_argument("--rounds", type=int, default=SCALE_ROUNDS,
                   help=f"scaling table: child processes per size, the whole table in turn, the least judged "
                        f"(default {SCALE_ROUNDS})")
    p.add_argument("--kernels", default=None, help="scaling table: comma-separated kernels (copy,naive,tiled,gemm)")
    p.add_argument("--sizes", default=None, help="scaling table: comma-separated sizes for every kernel")
    p.add_argument("--batch", type=int, default=None, help="grading batch size (default 200; 20 with --quick)")
    p.add_argument("--jobs", type=int, default=2, help="grading batch workers (default 2)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)    # internal: run one case, print JSON
    a = p.parse_args(argv)
    for opt in ("only", "skip"):
        names = [g for g in getattr(a, opt).split(",") if g]
        bad = [g for g in names if g not in GROUPS]
        if bad:
            p.error(f"--{opt}: unknown group(s) {', '.join(bad)}; choose from {', '.join(GROUPS)}")
        setattr(a, opt, names)
    a.groups = [g for g in GROUPS if g in a.only and g not in a.skip]
    return a


def spread(per: list[float]) -> tuple[float, float, float, bool]:
    """(median, max/min, the deviation from the median farthest from it as a signed fraction, within TOLERANCE)."""
    s = sorted(per)
    med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    dev = max((p / med - 1 for p in per), key=abs)
    return med, s[-1] / s[0], dev, abs(dev) <= TOLERANCE


def _mark(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


# ---- cases (each runs in a child process) ------------------------------------------------------------------
def repeats(elements: int, repeat: int | None) -> int:
    """Launches per size in the scaling table (the least CPU time is kept)."""
    return repeat or (10 if elements <= 512 ** 2 else 3 if elements <= 2048 ** 2 else 2)


def _best(runs) -> dict:
    """The run with the least CPU time: {"seconds": wall, "cpu_seconds": cpu}."""
    wall, cpu = min(runs, key=lambda r: r[1])
    return {"seconds": wall, "cpu_seconds": cpu}


def _timed(fn) -> tuple[float, float]:
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def _transpose_python(n: int = 1024) -> tuple[float, float]:
    import numpy as np
    sys.path.insert(0, os.path.join(ROOT, "lessons", "prelude"))
    mod = __import__("02_memory_coalescing")
    A = np.random.default_rng(0).random((n, n), dtype=np.float32)
    B = np.zeros_like(A)
    from labsim import launch

    def kernel(blk, A_, B_, N_):
        mod.transpose_tiled(blk, A_, B_, N_, pad=1)

    out = _timed(lambda: launch(kernel, grid=(n // 32, n // 32), block=(32, 8), args=(A, B, n)))
    assert np.array_equal(B, A.T)
    return out


def _cuda_seed(n: int = 1024) -> tuple[float, float]:
    import numpy as np
    from labsim import cuda
    src = open(os.path.join(ROOT, "grading", "exercises", "lesson09", "solution.cu"), encoding="utf-8").read()
    prog = cuda.compile(src)
    A = np.random.default_rng(0).random((n, n), dtype=np.float32)
    B = np.zeros((n, n), dtype=np.float32)
    out = _timed(lambda: prog.call("launch_transpose_tiled", A, B, n, n, 0))
    assert np.array_equal(B, A.T)
    return out


def warm_runs(launch, least: int = GEMM_RUNS, cpu: float = GEMM_MIN_CPU, most: int = GEMM_MAX_RUNS) -> list:
    """``launch()`` (which returns (wall, CPU) seconds) run until ``least`` runs have taken ``cpu`` CPU seconds in
    all, at most ``most`` runs: their (wall, CPU) pairs."""
    runs: list = []
    while len(runs) < most and (len(runs) < least or sum(c for _, c in runs) < cpu):
        runs.append(launch())
    return runs


def _gemm(name: str, n: int) -> dict:
    """Lesson 10's GEMM (or its challenge) at n³ through labsim.cuda, all counters and races on: a first launch
    (reported, not judged), then the least CPU time of the warm launches (``warm_runs``), per multiply-add."""
    import numpy as np
    from labsim import cuda
    path, host = GEMM_KERNELS[name]
    prog = cuda.compile(open(os.path.join(ROOT, path), encoding="utf-8").read(), os.path.basename(path))
    rng = np.random.default_rng(0)
    A = rng.integers(-4, 5, (n, n)).astype(np.float32)   # small integers: float sums are exact
    B = rng.integers(-4, 5, (n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    want = A @ B                                          # before any launch is timed (BLAS on one thread)
    res = []

    def launch():
        C[:] = 0
        got = _timed(lambda: res.append(prog.call(host, A, B, C, n, n, n, 0)))
        assert np.array_equal(C, want), f"{name} at {n}: wrong C"
        return got
    runs = [launch()] + warm_runs(launch)
    out = _best(runs[1:])
    out["per_madd_ns"] = out["cpu_seconds"] / n ** 3 * 1e9
    out["first_cpu_seconds"] = runs[0][1]
    out["runs_cpu_seconds"] = [c for _, c in runs[1:]]
    out["threads"] = int(np.prod(res[-1].grid)) * int(np.prod(res[-1].block))
    out["chunk_lanes"] = importlib.import_module("labsim.launch").CHUNK_LANES   # lanes of a thread set
    return out


def _scale(kernel: str, api: str, n: int, repeat: int | None) -> dict:
    sys.path.insert(0, TOOLS)
    import bench_kernels
    program = None
    if api == "cuda":
        from labsim import cuda
        program = cuda.compile(bench_kernels.CUDA_SRC, "bench_kernels.cu")
    best = None
    for _ in range(repeats(bench_kernels.elements(kernel, n), repeat)):
        times = {}
        _, ok = bench_kernels.run(kernel, api, n, program, times=times)
        assert ok, f"{kernel} {api} {n}: wrong result"
        if best is None or times["cpu"] < best[1]:
            best = (times["wall"], times["cpu"])
    return {"seconds": best[0], "cpu_seconds": best[1],
            "per_element_ns": best[1] / bench_kernels.elements(kernel, n) * 1e9}


def _numba(kernel: str, n: int) -> dict:
    """The same kernel at the same size in Numba's CUDA simulator and in labsim (Python API and labsim.cuda)."""
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"           # before numba is imported
    sys.path.insert(0, TOOLS)
    import bench_kernels
    from labsim import cuda
    numba_cpu, ok = bench_kernels.numba_run(kernel, n)
    assert ok, f"Numba's simulator got {kernel} at {n} wrong"
    out = {"numba_cpu_seconds": numba_cpu}
    program = cuda.compile(bench_kernels.CUDA_SRC, "bench_kernels.cu")
    for api in ("python", "cuda"):
        best = None
        for _ in range(5):
            times = {}
            _, ok = bench_kernels.run(kernel, api, n, program, times=times)
            assert ok
            best = times["cpu"] if best is None else min(best, times["cpu"])
        out[f"{api}_cpu_seconds"] = best
    return out


def child(case: str, repeat: int | None) -> None:
    kind, _, rest = case.partition(":")
    if kind == "scale":
        kernel, api, n = rest.split(":")
        out = _scale(kernel, api, int(n), repeat)
    elif kind == "gemm":
        name, n = rest.split(":")
        out = _gemm(name, int(n))
    elif kind == "numba":
        name, n = rest.split(":")
        out = _numba(name, int(n))
    elif kind == "grading":
        sys.path.insert(0, ROOT)
        from grading import bench as gbench
        jobs, n = rest.split(":")
        out = gbench.run(int(n), int(jobs), GRADING_EXERCISE, quiet=True)
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


def _child_run(case: str, repeat: int | None = None) -> dict | str:
    """One case in a fresh process: its figures, or the last line of its error."""
    args = [sys.executable, __file__, "--child", case] + (["--repeat", str(repeat)] if repeat else [])
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env={**os.environ, **CHILD_ENV})
    if r.returncode:
        return r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit status {r.returncode}"
    return json.loads(r.stdout.strip().splitlines()[-1])


# ---- groups ------------------------------------------------------------------------------------------------
def _verdict(case: str, d: dict) -> bool:
    gib = d["peak_rss_mib"] / 1024
    return {"transpose_1024_pad1": d["cpu_seconds"] <= 0.15 and gib <= 1,
            "cuda_seed_1024": d["cpu_seconds"] <= 0.2 and d.get("ratio", 0) <= 2,
            "transpose_8192": d["cpu_seconds"] <= 15 and gib <= 6,
            "p2_script": d["cpu_seconds"] <= 2}[case]


def run_cases(group: str, quick: bool) -> None:
    for case, (g, what, target) in CASES.items():
        if g != group or (quick and case == "transpose_8192"):
            continue
        d = _child_run(case)
        if isinstance(d, str):
            print(f"FAIL {case:<22} error: {d}", flush=True)
            continue
        extra = (f"; Python API {d['python_api_cpu_seconds']:.3f} s CPU, ratio {d['ratio']:.2f}x" if "ratio" in d
                 else "")
        print(f"{_mark(_verdict(case, d))} {case:<22} {d['cpu_seconds']:7.3f} s CPU ({d['seconds']:.3f} s wall), "
              f"{d['peak_rss_mib']:.0f} MiB  {what} (target {target}){extra}", flush=True)


def run_gemm(quick: bool) -> None:
    sizes = GEMM_QUICK if quick else GEMM_SIZES
    print(f"GEMM through labsim.cuda, all counters and race tracking; ns of process CPU per multiply-add, the "
          f"least of the warm launches after a first one ('first': shown, not judged; at least {GEMM_RUNS}, and "
          f"{GEMM_MIN_CPU:g} s of CPU in all) in each of {GEMM_ROUNDS} child processes run at different times, BLAS "
          f"on one thread (target <= {GEMM_NS:.0f} ns at every size, flat within ±{TOLERANCE:.0%})")
    for name, (path, _) in GEMM_KERNELS.items():
        if not os.path.isfile(os.path.join(ROOT, path)):
            print(f"SKIP gemm {name:<18} {path} not found")
            continue
        per, cells, small = [], [], []
        # the sizes in turn, GEMM_ROUNDS times: a burst of other jobs on the shared cores spoils one round of a
        # size, not every sample of it
        rounds = [{n: _child_run(f"gemm:{name}:{n}") for n in sizes} for _ in range(GEMM_ROUNDS)]
        for n in sizes:
            got = [r[n] for r in rounds if not isinstance(r[n], str)]
            if not got:
                cells.append(f"{n}³: error ({rounds[0][n][:60]})")
                continue
            d = min(got, key=lambda x: x["per_madd_ns"])
            per.append(d["per_madd_ns"])
            cells.append(f"{n}³: {d['per_madd_ns']:.1f} ns ({d['cpu_seconds']:.3f} s CPU, least of "
                         f"{sum(len(x['runs_cpu_seconds']) for x in got)}; first "
                         f"{d['first_cpu_seconds'] / n ** 3 * 1e9:.1f} ns; {d['peak_rss_mib']:.0f} MiB)")
            if d["threads"] < d["chunk_lanes"]:
                small.append(f"{n}³ launches {d['threads']} threads")
                chunk = d["chunk_lanes"]
        ok = len(per) == len(sizes) and max(per) <= GEMM_NS and spread(per)[3]
        flat = f", max/min {spread(per)[1]:.2f}" if per else ""
        print(f"{_mark(ok)} gemm {name:<18} " + "; ".join(cells) + flat, flush=True)
        if small:   # what makes such a row not flat: each instruction's fixed cost is shared by fewer lanes
            print(f"     {name}: {', '.join(small)}, fewer than a thread set's {chunk} lanes (labsim.launch."
                  "CHUNK_LANES): the fixed cost of each simulated instruction is shared by fewer threads", flush=True)


def scaling_table(sizes: dict, repeat: int | None, rounds: int = SCALE_ROUNDS) -> None:
    """Time per simulated element for every kernel, API and size; PASS when every size is within ±30% of the
    row's median (cost linear in the work). Every case runs once per round, the whole table in turn; the least
    time per element over the rounds is judged (a spell of other work on the shared cores spoils one sample of a
    size, not all of them)."""
    rounds = max(1, rounds)
    print(f"ns of CPU time per element (transposes: matrix elements; GEMM: multiply-adds), least of the repeated "
          f"launches in each of {rounds} child processes per size (the whole table in turn, so a size's samples "
          f"are minutes apart); peak RSS in MiB; PASS: every size within ±{TOLERANCE:.0%} of the row's median")
    cases = [(kernel, api, n) for kernel, ns in sizes.items() for api in ("python", "cuda") for n in ns]
    got: dict[tuple, list] = {c: [] for c in cases}
    for r in range(rounds):
        t = time.perf_counter()
        for kernel, api, n in cases:
            got[(kernel, api, n)].append(_child_run(f"scale:{kernel}:{api}:{n}", repeat))
        if rounds > 1:
            print(f"     round {r + 1}/{rounds}: {time.perf_counter() - t:.0f} s, load average "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
    for kernel, ns in sizes.items():
        for api in ("python", "cuda"):
            cells, per = [], []
            for n in ns:
                runs = got[(kernel, api, n)]
                ok = [d for d in runs if not isinstance(d, str)]
                if len(ok) < len(runs):     # a wrong result or a crash is a failure, whatever the other rounds say
                    bad = next(d for d in runs if isinstance(d, str))
                    cells.append(f"{n}: error ({bad[:60]})")
                    continue
                d = min(ok, key=lambda x: x["per_element_ns"])
                per.append(d["per_element_ns"])
                each = "/".join(f"{x['per_element_ns']:.0f}" for x in ok)
                spread_note = f", rounds {each}" if len(ok) > 1 else ""
                cells.append(f"{n}: {d['per_element_ns']:.0f} ns ({d['cpu_seconds']:.2f} s, "
                             f"{d['peak_rss_mib']:.0f} MiB{spread_note})")
            verdict = "FAIL (errors)" if len(per) < len(ns) else ""
            if len(per) > 1:
                med, ratio, dev, ok_ = spread(per)
                verdict = verdict or _mark(ok_)
                verdict += f" median {med:.0f} ns, max/min {ratio:.2f}, worst {dev:+.0%}"
            print(f"{verdict:<46} {kernel:>6} {api:<7} " + "; ".join(cells), flush=True)


def run_grading(quick: bool, batch: int | None, jobs: int) -> None:
    n = batch or (20 if quick else 200)
    d = _child_run(f"grading:{jobs}:{n}")
    if isinstance(d, str):
        print(f"FAIL grading: error: {d}")
        return
    one, b = d["one"], d["batch"]
    print(f"{_mark(one['median_warm_cpu_s'] <= GRADING_ONE_S)} grading_one   {d['exercise']}: one submission, hidden "
          f"checks, no nvcc, warm: {one['median_warm_cpu_s']:.3f} s CPU ({one['median_warm_s']:.3f} s wall); first in "
          f"its process {one['first_cpu_s']:.3f} s CPU; fresh `python -m grading grade` {d['cold_cli_s']:.2f} s wall "
          f"(target <= {GRADING_ONE_S:.0f} s CPU)")
    # the batch's target is for the machine's 2 cores: CPU seconds over the workers, what it takes on idle cores
    idle = b["cpu_seconds"] / b["jobs"]
    scaled = idle * 200 / max(b["n"], 1)
    print(f"{_mark(scaled <= GRADING_BATCH_S)} grading_batch {b['n']} generated submissions on {b['jobs']} workers: "
          f"{b['cpu_seconds']:.1f} s CPU, {idle:.1f} s per worker ({b['seconds']:.1f} s wall); for 200: "
          f"{scaled:.1f} s per worker (target <= {GRADING_BATCH_S:.0f} s); verdicts {b['verdicts']}, worker peak "
          f"RSS {b['peak_rss_mib']:.0f} MiB", flush=True)


def run_numba() -> None:
    try:
        import numba  # noqa: F401  (only to know it is there; the kernels run in a child process)
    except ImportError:
        print("SKIP numba: not installed (the optional bench extra: pip install -e '.[bench]')")
        return
    print("Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) vs labsim on the same kernel and size, CPU seconds")
    for kernel, n in NUMBA_SIZES.items():
        d = _child_run(f"numba:{kernel}:{n}")
        if isinstance(d, str):
            print(f"     numba {kernel}: error: {d}")
            continue
        size = f"{n}³" if kernel == "gemm" else f"{n}²"
        print(f"     numba {kernel:<6} {size}: Numba {d['numba_cpu_seconds']:.3f} s; labsim Python API "
              f"{d['python_cpu_seconds']:.4f} s ({d['numba_cpu_seconds'] / d['python_cpu_seconds']:.0f}x faster), "
              f"labsim.cuda {d['cuda_cpu_seconds']:.4f} s ({d['numba_cpu_seconds'] / d['cuda_cpu_seconds']:.0f}x "
              "faster)", flush=True)


def list_targets() -> None:
    for case, (group, what, target) in CASES.items():
        print(f"{group:<10} {case:<22} {what}: {target}")
    print(f"{'gemm':<10} {'gemm':<22} {', '.join(GEMM_KERNELS)} through labsim.cuda at "
          f"{', '.join(f'{n}³' for n in GEMM_SIZES)}: <= {GEMM_NS:.0f} ns CPU per multiply-add, "
          f"flat ±{TOLERANCE:.0%}")
    print(f"{'scaling':<10} {'scaling table':<22} copy, naive, tiled 256²-8192², GEMM 128³-512³, Python API and "
          f"labsim.cuda: ns per element flat ±{TOLERANCE:.0%}")
    print(f"{'grading':<10} {'grading_one':<22} {GRADING_EXERCISE}, one submission with hidden checks, warm: "
          f"<= {GRADING_ONE_S:.0f} s CPU")
    print(f"{'grading':<10} {'grading_batch':<22} 200 submissions on 2 workers: <= {GRADING_BATCH_S:.0f} s")
    print(f"{'numba':<10} {'numba':<22} tiled {NUMBA_SIZES['tiled']}², GEMM {NUMBA_SIZES['gemm']}³ in Numba's "
          "simulator beside labsim: the ratio (printed, no target)")


def main(argv: list[str] | None = None) -> None:
    a = parse_args(argv)
    if a.child:
        child(a.child, a.repeat)
        return
    if a.list:
        list_targets()
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; groups: {', '.join(a.groups)}"
          f"{' (quick)' if a.quick else ''}", flush=True)
    for group in a.groups:
        print(f"\n== {group}", flush=True)
        if group in ("transpose", "p2"):
            run_cases(group, a.quick)
        elif group == "gemm":
            run_gemm(a.quick)
        elif group == "scaling":
            sizes = dict(QUICK_SIZES if a.quick else SIZES)
            if a.kernels:
                unknown = [k for k in a.kernels.split(",") if k not in sizes]
                if unknown:
                    raise SystemExit(f"--kernels: unknown {', '.join(unknown)}; choose from {', '.join(sizes)}")
                sizes = {k: sizes[k] for k in a.kernels.split(",")}
            if a.sizes:
                sizes = {k: tuple(int(s) for s in a.sizes.split(",")) for k in sizes}
            scaling_table(sizes, a.repeat, a.rounds)
        elif group == "grading":
            run_grading(a.quick, a.batch, a.jobs)
        elif group == "numba":
            run_numba()


if __name__ == "__main__":
    main()
