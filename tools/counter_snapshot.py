"""Everything labsim reports for a corpus of launches, as one JSON file, to show that a speed change changed no count.

    .venv/bin/python tools/counter_snapshot.py before.json          # on the old code (a worktree of it)
    .venv/bin/python tools/counter_snapshot.py after.json           # on the new code
    .venv/bin/python tools/counter_snapshot.py --compare before.json after.json

Per launch it keeps every instruction site's counters (executed, requests, cost, conflicts, bytes and the sampled
warp's lanes and addresses), the ncu metrics, by_line, race_count, the first 100 races as printed, racecheck's
tally and a hash of every output; a launch that fails keeps its error's class, message and place. The corpus:
lesson 10's kernel, the register-tiled challenge's reference and baseline and its graded corpus
(tests/grading/submissions/lesson10_challenge), each also with its last and with its first __syncthreads()
removed (races), at 64³, 100x70x45, 33x17x65 and 128x96x32, the smallest also under the adversarial schedule;
lesson 9's reference, seed and both lesson 9 corpora at 70x45 and 256², both schedules; tools/bench_kernels.py's
kernels through the Python API and labsim.cuda. Not a test (no test compares two versions of the code); about a
minute of CPU. Grading's own outputs are compared by grading the corpora with both versions
(``python -m grading grade --nvcc off --secret S``) and diffing the folders, execution times aside.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tools"))


def _stats(st) -> dict:
    ins = []
    for s in sorted(st.instructions, key=lambda s: (s.space, s.op, s.line or 0, s.col or 0, s.array, s.itemsize)):
        smp = s.sample
        ins.append([s.space, s.op, s.line, s.col, s.array, s.itemsize, int(s.executed), int(s.requests), int(s.cost),
                    int(s.conflicts), int(s.bytes_requested),
                    None if smp is None else [list(smp.block), smp.warp, smp.active.astype(int).tolist(),
                                              smp.addr.tolist()]])
    return {"metrics": {k: int(v) for k, v in sorted(st.metrics.items())},
            "by_line": {str(k): {m: int(x) for m, x in sorted(v.items())}
                        for k, v in sorted(st.by_line.items(), key=lambda kv: str(kv[0]))},
            "instructions": ins, "race_count": int(st.race_count), "races": [str(r) for r in st.races],
            "races_by_line": {str(k): int(v) for k, v in sorted(st.races_by_line.items(), key=lambda kv: str(kv[0]))},
            "racecheck": sorted([list(map(str, k)), int(v)] for k, v in st.racecheck.items()),
            "counting": st.counting, "model_version": st.model_version}


def _digest(a) -> str:
    import numpy as np
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def snapshot() -> dict:
    import numpy as np
    import bench_kernels
    from labsim import LabsimError, cuda

    out: dict = {}

    def case(tag, fn):
        try:
            out[tag] = fn()
        except LabsimError as e:
            out[tag] = {"error": type(e).__name__, "message": str(e),
                        "where": {k: str(v) for k, v in sorted(e.where.items())}}
        except Exception as e:      # a front-end bug is part of the picture too
            out[tag] = {"error": type(e).__name__, "message": str(e)}

    def read(path):
        return open(os.path.join(ROOT, path), encoding="utf-8", errors="replace").read()

    def gemm(src, host, M, N, K, schedule):
        prog = cuda.compile(src, "k.cu")
        rng = np.random.default_rng(M * 7 + N * 3 + K)
        A = rng.integers(-4, 5, (M, K)).astype(np.float32)
        B = rng.integers(-4, 5, (K, N)).astype(np.float32)
        C = np.full((M, N), -7, np.float32)
        r = prog.call(host, A, B, C, M, N, K, 0, schedule=schedule)
        return {"C": _digest(C), "launches": [_stats(x.stats) for x in r]}

    def transpose(src, host, M, N, schedule):
        prog = cuda.compile(src, "k.cu")
        A = np.random.default_rng(1).random((M, N), dtype=np.float32)
        B = np.zeros((N, M), np.float32)
        r = prog.call(host, A, B, M, N, 0, schedule=schedule)
        return {"B": _digest(B), "launches": [_stats(x.stats) for x in r]}

    gemms = {"lesson10": ("grading/exercises/lesson10/solution.cu", "launch_gemm_tiled"),
             "challenge": ("grading/exercises/lesson10_challenge/solution.cu", "launch_gemm"),
             "challenge_baseline": ("grading/exercises/lesson10_challenge/baseline.cu", "launch_gemm")}
    for f in sorted(glob.glob(os.path.join(ROOT, "tests/grading/submissions/lesson10_challenge/*.cu"))):
        gemms["corpus/" + os.path.basename(f)] = (os.path.relpath(f, ROOT), "launch_gemm")
    for name, (path, host) in gemms.items():
        src = read(path)
        variants = {"": src}
        at = [m.start() for m in re.finditer(r"__syncthreads\(\);", src)]
        if at:
            variants["no_last_barrier"] = src[:at[-1]] + src[at[-1]:].replace("__syncthreads();", ";", 1)
            variants["no_first_barrier"] = src[:at[0]] + src[at[0]:].replace("__syncthreads();", ";", 1)
        for vn, vs in variants.items():
            for M, N, K in [(64, 64, 64), (100, 70, 45), (33, 17, 65), (128, 96, 32)]:
                for sched in ("lockstep", "adversarial"):
                    if sched == "adversarial" and (M, N, K) != (33, 17, 65):
                        continue
                    case(f"gemm {name} {vn} {M}x{N}x{K} {sched}", lambda: gemm(vs, host, M, N, K, sched))
    files = sorted(glob.glob(os.path.join(ROOT, "tests/grading/submissions/lesson09*/*.cu")))
    files += [os.path.join(ROOT, "grading/exercises/lesson09/solution.cu"),
              os.path.join(ROOT, "tests/cuda/transpose_tiled_seed.cu")]
    for f in files:
        src = read(os.path.relpath(f, ROOT))
        m = re.search(r"void\s+(launch_\w+)\s*\(", src)
        if not m:
            continue
        for M, N in [(70, 45), (256, 256)]:
            for sched in ("lockstep", "adversarial"):
                case(f"transpose {os.path.relpath(f, ROOT)} {M}x{N} {sched}",
                     lambda: transpose(src, m.group(1), M, N, sched))
    prog = cuda.compile(bench_kernels.CUDA_SRC, "bench_kernels.cu")
    for k in ("copy", "naive", "tiled", "gemm"):
        for api in ("python", "cuda"):
            for n in ((32, 64) if k == "gemm" else (64, 256)):
                def bench_case(k=k, api=api, n=n):
                    st, ok = bench_kernels.run(k, api, n, prog)
                    return {"ok": ok, **_stats(st)}
                case(f"bench {k} {api} {n}", bench_case)
    return out


def compare(a_path: str, b_path: str) -> int:
    a, b = (json.load(open(p, encoding="utf-8")) for p in (a_path, b_path))
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    launches = sum(len(v.get("launches", [v])) for v in a.values() if "error" not in v)
    print(f"{len(a)} cases ({launches} launches, {sum('error' in v for v in a.values())} errors) in {a_path}; "
          f"{len(differ)} differ in {b_path}")
    for k in differ[:20]:
        print(f"  {k}")
    return 1 if differ else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="tools/counter_snapshot.py", description=__doc__.split("\n\n")[0])
    p.add_argument("out", nargs="?", help="write the snapshot here")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two snapshots; exit status 1 if they differ")
    a = p.parse_args(argv)
    if a.compare:
        return compare(*a.compare)
    if not a.out:
        p.error("give a file to write, or --compare A B")
    import warnings
    warnings.simplefilter("ignore")         # dtype notes of the corpus' half-precision kernels
    snap = snapshot()
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(snap, f, sort_keys=True)
    print(f"{len(snap)} cases written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
