"""Round 3 of the H200 recordings: raw files in ``raw3/`` -> ``results.json`` (this folder).

    python measurements/h200/round3/parse3.py              # rewrites results.json from raw3/
    python measurements/h200/round3/parse3.py --markdown   # the README's tables, from results.json
    python measurements/h200/round3/parse3.py --markdown --classes   # the classes3 table

``results.json`` has one block per part of the run, each with what was measured and how:

* ``meta``        GPU, driver, nvcc/ncu/compute-sanitizer versions, date, the exact commands and metric lists
* ``device``      cudaGetDeviceProperties, the FP32 peak of a pure-FFMA kernel (GFLOP/s) and its ncu counters
* ``classes3``    issue 23 item 7: ``kernels`` {name: {metric: value, grid, block}} as in ../classes/results.json,
                  plus the host checks and which counters are data-dependent
* ``sweep``       issue 26 item 9: offset and stride copy sweeps, GB/s per point, ncu memory levels per point
* ``transpose8``  issue 27 items 5-8: lesson 8's kernels at 8192^2, block-shape sweep, Q3 kernels: time + levels
* ``gemm``        issue 28 items 1 and 3: 4096^3 GFLOP/s, stall reasons, FFMA, wavefronts, DRAM/L2; small shapes
* ``challenges``  issue 29: each challenge's reference and baseline: checks, ncu at small shapes, speed and ncu
                  at the H200's size
* ``sanitizer``   racecheck / memcheck summaries (and racecheck's pairs)

Standard library only (plus ../parse.py and ../round2_parse.py of this folder's parent). Tested in test_round3.py.
"""
from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw3"      # first device call (round3.sh)
RAW_B = HERE / "raw3b"   # second device call (round3b.sh): the challenges again, after two fixes
# the first call measured p2's first reference under the name solution.cu; the file is now alt_staged_loop.cu
# (same kernel, a comment added) and solution.cu is the fixed reference measured in raw3b/
RENAMED_IN_RAW3 = {"p2_challenge/solution": "p2_challenge/alt_staged_loop"}
sys.path.insert(0, str(HERE.parent))
import parse  # noqa: E402  (round 1's ncu CSV reader)
import round2_parse  # noqa: E402  (racecheck report parser)

KEEP = r"^(l1tex|smsp|sm|lts|dram|gpu)__\w+\."
VARIANT_NS = {"p2": "p2_challenge", "l08": "lesson08_challenge", "l09": "lesson09_challenge",
              "l10": "lesson10_challenge"}
# the data-dependent counters of classes3 (not exact-testable): random bytes into 256 shared bins
DATA_DEPENDENT = {
    "hist_random_4x256": "shared atomics on random bytes: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum "
                         "and the conflicts of ATOMS depend on how many lanes of a warp hit one bin (contention), "
                         "and ncu reports them as the hardware served them; the instruction and request counts "
                         "do not depend on the data",
    "fold_shared_cond_atomic_b256": "how many threads take the atomic depends on the sign of the input "
                                    "(deterministic here, but a property of the data, not of the code)",
}
# colsum kernels: the host check allowed 1e-3 relative, too tight for float32 sums of 8192 terms whose columns
# (LCG data with period structure at stride 8192) reach |sum| = 1195; a float32 simulation of each kernel's
# summation order in numpy gives exactly the recorded counts (11, 3, 3): see README "Column sums".
FLOAT32_ORDER = {"colsum_coalesced": 11, "colsum_strided_block": 3, "colsum_strided_spread": 3}


# ------------------------------------------------------------------------------------------------ generic
def read_jsonl(path: Path) -> list[dict]:
    return round2_parse.read_jsonl(path.read_text(encoding="utf-8"), str(path.relative_to(HERE)))


def kernel_name(raw: str) -> str:
    """ncu's kernel name without parameters and anonymous namespaces: 'p2_baseline::<unnamed>::k' -> 'p2_baseline::k'."""
    return parse.kernel_base_name(raw).replace("<unnamed>::", "").replace("(anonymous namespace)::", "")


def variant_of(kernel: str) -> str | None:
    """'l09_alt_pad1::transpose_half_pad1' -> 'lesson09_challenge/alt_pad1' (None for other kernels)."""
    m = re.match(r"^(p2|l08|l09|l10)_(\w+?)::", kernel)
    return f"{VARIANT_NS[m.group(1)]}/{m.group(2)}" if m else None


def launches(path: Path, wanted: list[str] | None = None) -> list[dict]:
    """Every launch of one ``ncu --csv --page raw`` file: name, grid, block, launch facts and the metrics
    (only those in ``wanted`` when given: the metrics the command asked for)."""
    rows, _ = parse.parse_ncu_csv(path.read_text(encoding="utf-8", errors="replace"), str(path.name), KEEP)
    out = []
    for r in rows:
        metrics = {k: v for k, v in r.metrics.items() if wanted is None or k in wanted}
        out.append({"name": kernel_name(r.name), "grid": r.grid, "block": r.block, "facts": dict(r.facts),
                    "metrics": metrics})
    return out


def commands(raw: Path = RAW) -> dict[str, str]:
    """{label: exact command} of raw3/commands.txt (ncu runs and plain runs)."""
    out = {}
    for line in (raw / "commands.txt").read_text(encoding="utf-8").splitlines():
        m = re.match(r"(?:ncu_)?command\[([^\]]+)\]: (.*)$", line)
        if m:
            out[m.group(1)] = re.sub(r"/tmp/round3[^ ]*/", "", m.group(2))
    return out


def metric_list(command: str) -> list[str]:
    """The --metrics list of an ncu command line."""
    m = re.search(r"--metrics (\S+)", command)
    if not m:
        raise ValueError(f"no --metrics in {command[:80]!r}")
    return m.group(1).split(",")


def timing(ms: list[float], bytes_moved: float | None = None, flop: float | None = None) -> dict:
    """Median, min and max of a list of kernel times (ms); GB/s (1e9 bytes) or GFLOP/s at each."""
    if not ms:
        raise ValueError("no timed runs")
    if any(t <= 0 for t in ms):
        raise ValueError("a non-positive time")
    med = statistics.median(ms)
    out = {"runs": len(ms), "median_ms": med, "min_ms": min(ms), "max_ms": max(ms)}
    if bytes_moved is not None:
        out.update(gbps_median=bytes_moved / (med * 1e-3) / 1e9, gbps_min=bytes_moved / (max(ms) * 1e-3) / 1e9,
                   gbps_max=bytes_moved / (min(ms) * 1e-3) / 1e9)
    if flop is not None:
        out.update(gflops_median=flop / (med * 1e-3) / 1e9, gflops_max=flop / (min(ms) * 1e-3) / 1e9)
    return out


def meta(raw: Path = RAW) -> dict:
    text = (raw / "versions.txt").read_text(encoding="utf-8")
    m: dict = {}
    gpu = re.search(r"^(NVIDIA [^,]+), ([\d.]+), (\d+) MiB, (\d+) MHz, (\d+) MHz, (\d+) MHz", text, re.M)
    if gpu:
        m.update(gpu=gpu.group(1), driver=gpu.group(2), memory_mib=int(gpu.group(3)),
                 sm_clock_max_mhz=int(gpu.group(5)), mem_clock_mhz=int(gpu.group(6)))
    for key, pat in (("nvcc", r"Cuda compilation tools, release [^\n]*?(V[\d.]+)"),
                     ("ncu", r"Nsight Compute Command Line Profiler[\s\S]*?Version\s+([\d.]+)"),
                     ("compute_sanitizer", r"Compute Sanitizer[\s\S]*?Version\s+([\d.]+)"),
                     ("date", r"^date_utc: (\S+)"), ("nvcc_flags", r"^nvcc_flags: (.*)$"), ("host", r"^host: (.*)$")):
        hit = re.search(pat, text, re.M)
        if hit:
            m[key] = hit.group(1).strip()
    script = "round3.sh" if raw == RAW else "round3b.sh"
    m["command"] = (f"H=<copy of measurements/h200> bash measurements/h200/round3/{script} (one device call; raw "
                    f"files in measurements/h200/round3/{raw.name}/)")
    m["ncu_flags"] = "--clock-control none (the card's own clocks); kernel replay; caches flushed between passes"
    m["commands"] = commands(raw)
    return m


# ------------------------------------------------------------------------------------------------ parts
def build_device() -> dict:
    props = read_jsonl(RAW / "gemm3" / "props.json")[0]
    peak = read_jsonl(RAW / "gemm3" / "peak.jsonl")[0]
    if peak["flop"] != 2 * peak["chains"] * peak["iters"] * peak["grid"] * peak["block"]:
        raise ValueError("ffma_peak: the FLOP count does not match chains x iters x threads x 2")
    pk = launches(RAW / "gemm3" / "ncu_peak.csv")[0]["metrics"]
    clocks = {p.stem: (RAW / "gemm3" / p.name).read_text(encoding="utf-8").strip().splitlines()[-1]
              for p in sorted((RAW / "gemm3").glob("clocks_*.txt"))}
    return {"properties": props,
            "ffma_peak": {"what": "ffma_peak<<<132*8, 256>>>: 8 independent FFMA chains a thread, 65536 iterations; "
                                  "FLOP = 2 per FFMA; 3 warm-ups then 20 timed launches (CUDA events)",
                          "grid": peak["grid"], "block": peak["block"], "flop": peak["flop"],
                          **timing(peak["ms"], flop=peak["flop"]), "ms": peak["ms"],
                          "ncu": {k: pk.get(k) for k in ("gpu__time_duration.sum",
                                                         "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                                         "smsp__inst_executed_pipe_fma.sum",
                                                         "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
                                                         "sm__cycles_elapsed.avg.per_second")},
                          "nvidia_smi": clocks}}


def build_classes3(cmds: dict) -> dict:
    wanted = metric_list(cmds["classes3/ncu_classes3"])
    kernels: dict[str, dict] = {}
    for ln in launches(RAW / "classes3" / "ncu_classes3.csv", wanted):
        if ln["name"] in kernels:
            raise ValueError(f"classes3: {ln['name']} launched twice")
        kernels[ln["name"]] = dict(ln["metrics"], grid=ln["grid"], block=ln["block"])
    checks = {}
    for line in (RAW / "classes3" / "run.log").read_text(encoding="utf-8").splitlines():
        m = re.match(r"check (\S+): (OK|BAD)$", line)
        if m:
            checks[m.group(1)] = m.group(2)
    m = meta()
    return {"meta": {k: m[k] for k in ("gpu", "driver", "nvcc", "ncu", "date", "nvcc_flags") if k in m}
            | {"what": "measurements/h200/round3/classes3.cu, one launch per kernel (shapes in the suffix)",
               "command": cmds["classes3/ncu_classes3"]},
            "kernels": kernels, "checks": checks, "data_dependent": DATA_DEPENDENT}


SWEEP_POINTS = {"offset": [0, 1, 2, 4, 8, 16, 32], "stride": [1, 2, 4, 8, 16, 32]}


def build_sweep(cmds: dict) -> dict:
    points = []
    for d in read_jsonl(RAW / "sweep" / "timing.jsonl"):
        points.append({"sweep": d["sweep"], "s": d["s"], "threads": d["threads"], "bytes_used": d["bytes_used"],
                       "wrong": d["wrong"], **timing(d["ms"], bytes_moved=d["bytes_used"])})
    ncu = {}
    for kind in ("offset", "stride"):
        cmd = cmds[f"sweep/ncu_{kind}"]
        listed = [int(x) for x in re.search(rf"once {kind} ([\d,]+)", cmd).group(1).split(",")]
        rows = launches(RAW / "sweep" / f"ncu_{kind}.csv", metric_list(cmd))
        if len(rows) != len(listed):
            raise ValueError(f"sweep {kind}: {len(rows)} profiled launches for {len(listed)} points")
        ncu[kind] = {str(s): r["metrics"] for s, r in zip(listed, rows)}
    return {"what": "copy_offset: out[i+s] = in[i+s], 64 Mi threads (256 MiB per array); copy_stride: "
                    "out[i*s] = in[i*s], 32 Mi threads (arrays 4 GiB); block 256; GB/s = 8 bytes per thread / time; "
                    "20 timed launches after 3 warm-ups (CUDA events); three touched elements checked per point",
            "source": "measurements/h200/round3/sweep.cu", "points": points, "ncu": ncu}


def _block(b: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", b)[:2]]


def transpose_bytes(name: str, n: int) -> float:
    """Bytes the kernel must move at n x n float32: read + write for copies/transposes, write for fills,
    read + one float per column for column sums."""
    if name.startswith("fill_"):
        return 4.0 * n * n
    if name.startswith("colsum_"):
        return 4.0 * n * n + 4.0 * n
    return 8.0 * n * n


def build_transpose8(cmds: dict) -> dict:
    times = []
    for d in read_jsonl(RAW / "transpose8" / "timing_8192.jsonl"):
        rec = {"name": d["name"], "block": d["block"], "n": d["n"], "wrong": d["wrong"],
               **timing(d["ms"], bytes_moved=transpose_bytes(d["name"], d["n"]))}
        if d["wrong"] and d["name"] in FLOAT32_ORDER:
            rec["wrong_reason"] = ("float32 summation order vs the float64 host sum at a 1e-3 tolerance; a numpy "
                                   f"float32 simulation of this kernel's order gives the same {FLOAT32_ORDER[d['name']]}")
        times.append(rec)
    rows = []
    for r in launches(RAW / "transpose8" / "ncu_8192.csv", metric_list(cmds["transpose8/ncu_8192"])):
        m = r["metrics"]
        t = m.get("gpu__time_duration.sum")
        derived = {}
        if t:
            derived["l2_write_bytes_per_s"] = 32 * m["lts__t_sectors_srcunit_tex_op_write.sum"] / (t * 1e-9)
            derived["l2_read_bytes_per_s"] = 32 * m["lts__t_sectors_srcunit_tex_op_read.sum"] / (t * 1e-9)
            derived["dram_bytes_per_s"] = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) / (t * 1e-9)
        ld = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        if ld:
            derived["l1_ld_hit_rate"] = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] / ld
        rows.append({"name": r["name"], "block": _block(r["block"]), "grid": _block(r["grid"]), "metrics": m,
                     "derived": derived})
    return {"what": "8192 x 8192 float32. copy / copy_restrict / transpose_naive / transpose_naive_colread: "
                    "block (32, 8), 4 rows a thread (Harris, lesson 8). transpose_naive_1e (row read, column write) "
                    "and transpose_colread_1e (column read, row write): one element a thread, block shape swept. "
                    "fill_row / fill_col: Q3's write-only kernel (a warp along a row / down a column). colsum_*: "
                    "Q3's read-only kernel storing one float per column (coalesced; strided with 8 adjacent "
                    "columns in a block; strided with adjacent columns on different blocks). GB/s = bytes the "
                    "kernel must move / median time (30 runs after 5 warm-ups)",
            "source": "measurements/h200/round3/transpose8.cu", "timing": times, "ncu": rows}


def build_gemm(cmds: dict) -> dict:
    check = read_jsonl(RAW / "gemm3" / "check.jsonl")
    perf = []
    for d in read_jsonl(RAW / "gemm3" / "timing_4096.jsonl"):
        perf.append({"name": d["name"], "M": d["M"], "N": d["N"], "K": d["K"], "nan": d["nan"],
                     **timing(d["ms"], flop=d["flop"])})
    big = {r["name"]: r["metrics"] for r in launches(RAW / "gemm3" / "ncu_gemm_4096.csv",
                                                     metric_list(cmds["gemm3/ncu_gemm_4096"]))}
    small = {}
    for shape in ("64", "70x45x33"):
        key = "64x64x64" if shape == "64" else shape
        small[key] = {r["name"]: dict(r["metrics"], grid=r["grid"], block=r["block"])
                      for r in launches(RAW / "gemm3" / f"ncu_gemm_{shape}.csv",
                                        metric_list(cmds[f"gemm3/ncu_gemm_{shape}"]))}
    return {"what": "lesson 10's kernels (measurements/h200/gemm/gemm_tiled.cuh, gemm_naive.cuh) at TILE 16/32, "
                    "PAD 0/1/4, row layout Bs[k][tx] and column layout Bs[tx][k] (_bt); 4096^3: 2 warm-ups then 20 "
                    "timed launches; GFLOP/s = 2 M N K / median time",
            "source": "measurements/h200/round3/gemm3.cu", "check": check, "timing_4096": perf,
            "ncu_4096": big, "counters": small}


CHALLENGE_SMALL_SHAPES = {"p2_challenge": ["n=1000", "n=4096"], "lesson08_challenge": ["64x64", "33x45"],
                          "lesson09_challenge": ["64x64", "33x45"], "lesson10_challenge": ["64x64x64", "70x45x33"]}


def build_challenges(raw: Path = RAW_B, rename: dict | None = None) -> dict:
    """One call's challenge recording; ``rename`` maps the variant names of that call to today's file names."""
    cmds = commands(raw)
    ren = (lambda v: (rename or {}).get(v, v))  # noqa: E731
    check = [dict(d, variant=ren(d["variant"])) for d in read_jsonl(raw / "challenges" / "check.jsonl")]
    perf = []
    for d in read_jsonl(raw / "challenges" / "timing.jsonl"):
        rec = {k: v for k, v in d.items() if k != "ms"}
        rec["variant"] = ren(rec["variant"])
        rec.update(timing(d["ms"], bytes_moved=d.get("bytes"), flop=d.get("flop")))
        perf.append(rec)
    small: dict[str, dict] = {}
    seen: dict[str, int] = {}
    for r in launches(raw / "challenges" / "ncu_small.csv", metric_list(cmds["challenges/ncu_small"])):
        v = ren(variant_of(r["name"]))
        if v is None:
            raise ValueError(f"challenges: unexpected kernel {r['name']}")
        i = seen.get(v, 0)
        seen[v] = i + 1
        shape = CHALLENGE_SMALL_SHAPES[v.split("/")[0]][i]
        small.setdefault(v, {})[shape] = dict(r["metrics"], kernel=r["name"], grid=r["grid"], block=r["block"])
    big = {}
    for r in launches(raw / "challenges" / "ncu_big.csv", metric_list(cmds["challenges/ncu_big"])):
        big[ren(variant_of(r["name"]))] = dict(r["metrics"], kernel=r["name"], grid=r["grid"], block=r["block"])
    m = meta(raw)
    return {"meta": {k: m[k] for k in ("date", "command", "commands") if k in m},
            "sanitizer": build_sanitizer(raw, only="challenges"), "what": "issue 29: each challenge's baseline, reference solution and variants (challenges/<name>/*.cu): "
                    "host checks on ragged shapes, ncu at small shapes (labsim's), and speed (20 timed launches after "
                    "3 warm-ups) and ncu at the H200's size: p2 n = 2^26 structs; lesson 8 8192^2 float; lesson 9 "
                    "8192^2 __half; lesson 10 4096^3 (output compared with the baseline's)",
            "source": "measurements/h200/round3/challenges_bench.cu including challenges/*/*.cu",
            "check": check, "timing": perf, "ncu_small": small, "ncu_big": big}


def build_sanitizer(raw: Path = RAW, only: str = "") -> dict:
    out = {}
    for p in sorted((raw / "racecheck").glob(f"{only}*.txt")):
        text = p.read_text(encoding="utf-8", errors="replace")
        entry = {"command": text.splitlines()[0].lstrip("# ").strip()}
        s = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", text)
        e = re.search(r"ERROR SUMMARY: (\d+) errors?", text)
        if s:
            entry["racecheck"] = {"displayed": int(s.group(1)), "errors": int(s.group(2)), "warnings": int(s.group(3))}
            entry["pairs"] = round2_parse.parse_racecheck_analysis(text)["pairs"]
            entry["kernels"] = sorted(set(re.findall(r"access at (\w+)\+0x", text)))
        if e:
            entry["memcheck_errors"] = int(e.group(1))
        entry["checks"] = re.findall(r"check (\S+): (OK|BAD)", text)
        out[p.stem] = entry
    return out


def build() -> dict:
    cmds = commands()
    return {"meta": meta(), "device": build_device(), "classes3": build_classes3(cmds), "sweep": build_sweep(cmds),
            "transpose8": build_transpose8(cmds), "gemm": build_gemm(cmds), "challenges": build_challenges(RAW_B),
            "challenges_first_call": build_challenges(RAW, RENAMED_IN_RAW3), "sanitizer": build_sanitizer()}


# ------------------------------------------------------------------------------------------------ tables
STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


CLASS_COLS = [("gld", "smsp__inst_executed_op_global_ld.sum"), ("ld_req", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
              ("ld_sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ("gst", "smsp__inst_executed_op_global_st.sum"),
              ("st_sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), ("lds", "smsp__inst_executed_op_shared_ld.sum"),
              ("lds_wf", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
              ("lds_bc", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
              ("sts", "smsp__inst_executed_op_shared_st.sum"), ("sts_wf", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
              ("sts_bc", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
              ("atoms", "smsp__inst_executed_op_shared_atom.sum"), ("red_req", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"),
              ("128b", "smsp__sass_inst_executed_op_memory_128b.sum"), ("64b", "smsp__sass_inst_executed_op_memory_64b.sum"),
              ("shfl/vote thr", "smsp__sass_thread_inst_executed_op_inter_thread_communication_pred_on.sum")]


def markdown_classes(d: dict) -> str:
    out = ["| classes3 kernel | grid | block | " + " | ".join(c for c, _ in CLASS_COLS) + " |",
           "|---" * (len(CLASS_COLS) + 3) + "|"]
    for name, k in d["classes3"]["kernels"].items():
        out.append(f"| `{name}` | {k['grid']} | {k['block']} | " + " | ".join(str(k.get(m)) for _, m in CLASS_COLS) + " |")
    return "\n".join(out)


def markdown(d: dict) -> str:
    out = []
    dev = d["device"]
    p, pk = dev["properties"], dev["ffma_peak"]
    out += ["| device | SMs | SM clock (MHz) | L2 (MiB) | FP32 peak at that clock (GFLOP/s) | ffma_peak measured "
            "(GFLOP/s, median [max]) |", "|---|---|---|---|---|---|",
            f"| {p['name']} | {p['sm_count']} | {p['clock_khz'] / 1000:.0f} | {p['l2_bytes'] / 2**20:.0f} | "
            f"{p['fp32_peak_gflops_at_clock']:.0f} | {pk['gflops_median']:.0f} [{pk['gflops_max']:.0f}] |"]
    # sweep
    sw = d["sweep"]
    out += ["", "| sweep | s | GB/s (median) | L1 ld sectors | L1 ld hits | L2 read sectors | L2 write sectors | "
            "DRAM read MiB | DRAM write MiB |", "|---|---|---|---|---|---|---|---|---|"]
    for pt in sw["points"]:
        m = sw["ncu"][pt["sweep"]].get(str(pt["s"]))
        if m is None:
            continue
        out.append(f"| {pt['sweep']} | {pt['s']} | {pt['gbps_median']:.0f} | "
                   f"{m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum']:,} | "
                   f"{m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum']:,} | "
                   f"{m['lts__t_sectors_srcunit_tex_op_read.sum']:,} | {m['lts__t_sectors_srcunit_tex_op_write.sum']:,} | "
                   f"{m['dram__bytes_read.sum'] / 2**20:.0f} | {m['dram__bytes_write.sum'] / 2**20:.0f} |")
    out += ["", "GB/s at every point: " + "; ".join(
        f"{k} " + ", ".join(f"{pt['s']}: {pt['gbps_median']:.0f}" for pt in sw["points"] if pt["sweep"] == k)
        for k in ("offset", "stride"))]
    # transposes
    tr = d["transpose8"]
    tmap = {(t["name"], tuple(t["block"])): t for t in tr["timing"]}
    out += ["", "| kernel (8192²) | block | µs | GB/s | L1 ld sectors | L1 ld hit % | L1 st sectors | L2 rd sectors "
            "| L2 wr sectors | L2 wr GB/s | L2 % peak | DRAM rd MiB | DRAM wr MiB |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in tr["ncu"]:
        m, dv = r["metrics"], r["derived"]
        t = tmap.get((r["name"], tuple(r["block"])))
        hit = dv.get("l1_ld_hit_rate")
        out.append(f"| `{r['name']}` | ({r['block'][0]}, {r['block'][1]}) | {t['median_ms'] * 1e3:.1f} | "
                   f"{t['gbps_median']:.0f} | {m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum']:,} | "
                   f"{'—' if hit is None else f'{100 * hit:.1f}'} | {m['l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum']:,} | "
                   f"{m['lts__t_sectors_srcunit_tex_op_read.sum']:,} | {m['lts__t_sectors_srcunit_tex_op_write.sum']:,} | "
                   f"{dv['l2_write_bytes_per_s'] / 1e9:.0f} | {m['lts__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} | "
                   f"{m['dram__bytes_read.sum'] / 2**20:.0f} | {m['dram__bytes_write.sum'] / 2**20:.0f} |")
    # GEMM
    g = d["gemm"]
    stalls = ["long_scoreboard", "mio_throttle", "barrier", "short_scoreboard", "math_pipe_throttle", "not_selected",
              "wait", "lg_throttle"]
    out += ["", "| kernel (4096³) | GFLOP/s | FFMA (warp) | LDS wavefronts | wf / FFMA | bank conflicts (ld) | "
            "L2 rd sectors | DRAM rd MiB | " + " | ".join(stalls) + " |", "|---" * (8 + len(stalls)) + "|"]
    for t in g["timing_4096"]:
        m = g["ncu_4096"][t["name"]]
        ffma = m["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] / 32
        wf = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        out.append(f"| `{t['name']}` | {t['gflops_median']:.0f} | {ffma:,.0f} | {wf:,} | {wf / ffma:.2f} | "
                   f"{m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum']:,} | "
                   f"{m['lts__t_sectors_srcunit_tex_op_read.sum']:,} | {m['dram__bytes_read.sum'] / 2**20:.0f} | "
                   + " | ".join(f"{m.get(STALL.format(s), 0):.2f}" for s in stalls) + " |")
    # challenges
    c = d["challenges"]
    out += ["", "| challenge variant | H200 size | median ms | GB/s or GFLOP/s | small shape | ld sectors/req | "
            "st sectors/req | LDS wavefronts | LDS conflicts | FFMA (warp) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for t in c["timing"]:
        v = t["variant"]
        rate = f"{t['gflops_median']:.0f} GFLOP/s" if "gflops_median" in t else f"{t['gbps_median']:.0f} GB/s"
        size = f"n={t['n']}" if "n" in t else (f"{t['M']}x{t['N']}" + (f"x{t['K']}" if "K" in t else ""))
        for shape, m in c["ncu_small"].get(v, {}).items():
            ldr = m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
            str_ = m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
            out.append(f"| `{v}` | {size} | {t['median_ms']:.3f} | {rate} | {shape} | "
                       f"{m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'] / ldr:.2f} | "
                       f"{m['l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum'] / str_:.2f} | "
                       f"{m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum']} | "
                       f"{m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum']} | "
                       f"{m['smsp__sass_thread_inst_executed_op_ffma_pred_on.sum'] / 32:.0f} |")
    return "\n".join(out)


def main() -> int:
    if "--markdown" in sys.argv[1:]:
        data = json.loads((HERE / "results.json").read_text(encoding="utf-8"))
        print(markdown_classes(data) if "--classes" in sys.argv[1:] else markdown(data))
        return 0
    data = build()
    (HERE / "results.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print("wrote results.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
