"""Round 2 of the H200 recordings: raw files in ``raw2/`` -> the JSON files the lessons and tests read.

    python measurements/h200/round2_parse.py          # rewrites the results files below from raw2/

Writes (each with a ``meta`` block: GPU, driver, nvcc, ncu, date, the exact commands):

* ``bandwidth/results.json``  Harris's transpose experiment (schema fixed by the course's lead, see README.md)
* ``bandwidth/details.json``  the same runs' every time and their ncu counters (sectors, L2, shared wavefronts)
* ``gemm/results.json``       lesson 10's GEMMs: ncu counters at 64³ and 70×45×33, GFLOP/s at 4096³, cuBLAS
* ``classes/results.json``    issue 17's kernel classes: ncu counters per kernel (+ the extra pass)
* ``p2/results.json``         prelude P2's demo-1 patterns, launched as the P2 script launches them
* ``racecheck/results.json``  compute-sanitizer racecheck, both report modes, parsed per hazard
* ``n8192/results.json``      the N = 8192 wavefront study (sizes, occupancy, no-load variants, source counters)

Standard library only. The functions are tested on hand-written inputs in ``test_round2.py``.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw2"
sys.path.insert(0, str(HERE))
import parse  # noqa: E402  (the round-1 ncu CSV reader)

KEEP = r"^(l1tex|smsp|sm|lts|dram|gpu)__\w+\.sum$"
HARRIS_NAMES = ("copy", "copy_restrict", "transpose_naive", "transpose_naive_colread", "transpose_tiled_pad0",
                "transpose_tiled_pad1", "transpose_tiled_swizzle")


# ------------------------------------------------------------------------------------------------ generic
def read_text(path: Path) -> str:
    """A raw file, gzip-compressed (``.gz``) or not."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return path.read_text(encoding="utf-8", errors="replace")


def read_jsonl(text: str, source: str = "<jsonl>") -> list[dict]:
    """The JSON objects of a log: lines starting with '{' (other lines, e.g. a program's notes, are skipped)."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{source}, line {i}: not JSON ({exc.msg})") from exc
    return out


def ncu_launches(path: Path) -> list[parse.Launch]:
    """Launches of one ``ncu --csv --page raw`` file (counters' ``.sum`` rollups)."""
    launches, _ = parse.parse_ncu_csv(read_text(path), str(path.relative_to(HERE)), KEEP)
    return launches


def ncu_by_name(path: Path) -> dict[str, dict]:
    """{kernel: metrics}; a kernel launched again gets '#2', '#3'..."""
    out: dict[str, dict] = {}
    for launch in ncu_launches(path):
        key, k = launch.name, 1
        while key in out:
            k += 1
            key = f"{launch.name}#{k}"
        out[key] = dict(launch.metrics, grid=launch.grid, block=launch.block)
    return out


def meta(commands: dict[str, str] | None = None) -> dict:
    """GPU, driver, tool versions and date of the round-2 run (raw2/versions.txt), with the commands used."""
    text = read_text(RAW / "versions.txt")
    m = {}
    gpu = re.search(r"^(NVIDIA [^,]+), ([\d.]+), (\d+) MiB", text, re.M)
    if gpu:
        m["gpu"], m["driver"] = gpu.group(1), gpu.group(2)
    for key, pat in (("nvcc", r"Cuda compilation tools, release [^\n]*?(V[\d.]+)"),
                     ("ncu", r"Nsight Compute Command Line Profiler[\s\S]*?Version\s+([\d.]+)"),
                     ("compute_sanitizer", r"Compute Sanitizer[\s\S]*?Version\s+([\d.]+)"),
                     ("date", r"^date_utc: (\S+)"), ("nvcc_flags", r"^nvcc_flags: (.*)$")):
        hit = re.search(pat, text, re.M)
        if hit:
            m[key] = hit.group(1).strip()
    m["command"] = "bash measurements/h200/round2.sh (one device call; raw files in measurements/h200/raw2/)"
    if commands:
        m["commands"] = commands
    return m


def ncu_commands() -> dict[str, str]:
    """{label: exact ncu command} from raw2/commands.txt (paths on the device shortened)."""
    out = {}
    for line in read_text(RAW / "commands.txt").splitlines():
        hit = re.match(r"ncu_command\[([^\]]+)\]: (.*)$", line)
        if hit:
            out[hit.group(1)] = re.sub(r"/tmp/round2[^ ]*/", "", hit.group(2))
    return out


# ------------------------------------------------------------------------------------------------ bandwidth
def bandwidth_record(name: str, n: int, ms: list[float], dram_read: int | None, dram_write: int | None) -> dict:
    """One record of bandwidth/results.json. Effective bandwidth = 2·n²·4 bytes / time (Harris)."""
    if not ms:
        raise ValueError(f"{name} at n={n}: no timed runs")
    if any(t <= 0 for t in ms):
        raise ValueError(f"{name} at n={n}: a non-positive time")
    bytes_moved = 2 * n * n * 4
    gbps = lambda t_ms: bytes_moved / (t_ms * 1e-3) / 1e9  # noqa: E731
    med = statistics.median(ms)
    return {"name": name, "n": n, "runs": len(ms), "median_ms": med, "gbps_median": gbps(med),
            "gbps_min": gbps(max(ms)), "gbps_max": gbps(min(ms)),
            "dram_bytes_read": dram_read, "dram_bytes_write": dram_write}


def build_bandwidth() -> tuple[dict, dict]:
    runs = read_jsonl(read_text(RAW / "bandwidth" / "timing.jsonl"), "raw2/bandwidth/timing.jsonl")
    ncu = {n: ncu_by_name(RAW / "bandwidth" / f"ncu_bw_{n}.csv") for n in (1024, 8192)}
    cmds = ncu_commands()
    records, details = [], []
    for run in runs:
        name, n = run["name"], int(run["n"])
        if run.get("wrong"):
            raise ValueError(f"{name} at n={n}: {run['wrong']} wrong outputs in the recorded run")
        c = ncu[n].get(name, {})
        records.append(bandwidth_record(name, n, run["ms"], c.get("dram__bytes_read.sum"),
                                        c.get("dram__bytes_write.sum")))
        details.append({"name": name, "n": n, "ms": run["ms"], "ncu": c})
    for n, kernels in ncu.items():   # the no-load variants: counters only (not part of Harris's experiment)
        for name, c in kernels.items():
            if name not in HARRIS_NAMES:
                details.append({"name": name, "n": n, "ms": None, "ncu": c})
    m = meta()
    m["command"] = ("bandwidth time N 30 (N = 1024, 8192: 5 warm-up launches, then 30 launches each timed with "
                    "cudaEventRecord/cudaEventElapsedTime; output checked against the host first); "
                    "DRAM bytes: " + cmds.get("bandwidth/ncu_bw_8192", "ncu").replace("bandwidth/", ""))
    m["source"] = "measurements/h200/bandwidth/bandwidth.cu, built with nvcc " + m.get("nvcc_flags", "")
    m["definition"] = "effective bandwidth = 2 * n * n * 4 bytes / kernel time; GB = 1e9 bytes; float32; block 32x8"
    results = {"meta": m, "records": records}
    return results, {"meta": dict(m, commands=cmds), "runs": details}


# ------------------------------------------------------------------------------------------------ GEMM
def build_gemm() -> dict:
    check = read_jsonl(read_text(RAW / "gemm" / "check.jsonl"))
    timing = read_jsonl(read_text(RAW / "gemm" / "timing_4096.jsonl"))
    timing += read_jsonl(read_text(RAW / "gemm" / "torch_4096.jsonl"))
    counters = {"64x64x64": ncu_by_name(RAW / "gemm" / "ncu_gemm_64.csv"),
                "70x45x33": ncu_by_name(RAW / "gemm" / "ncu_gemm_70x45x33.csv")}
    extra = ncu_by_name(RAW / "gemm" / "ncu_gemm_64_extra.csv")
    for name, c in extra.items():
        counters["64x64x64"].setdefault(name, {}).update({k: v for k, v in c.items() if k not in ("grid", "block")})
    perf = []
    for t in timing:
        med = statistics.median(t["ms"])
        perf.append({"name": t["name"], "M": t["M"], "N": t["N"], "K": t["K"], "runs": len(t["ms"]),
                     "median_ms": med, "min_ms": min(t["ms"]), "max_ms": max(t["ms"]),
                     "gflops_median": t["flop"] / (med * 1e-3) / 1e9,
                     "rel_err_vs_cublas": t.get("rel_err_vs_cublas"),
                     **({"math_mode": t["math_mode"]} if "math_mode" in t else {}),
                     **({"torch": t["torch"]} if "torch" in t else {})})
    m = meta(ncu_commands())
    m["source"] = ("measurements/h200/gemm/gemm_bench.cu (includes gemm_naive.cuh and gemm_tiled.cuh once per "
                   "variant), nvcc " + m.get("nvcc_flags", "") + " -DHAVE_CUBLAS -lcublas")
    m["timing"] = ("gemm_bench time 4096 4096 4096 20: 2 warm-up launches then 20 timed with CUDA events; "
                   "cuBLAS cublasSgemm with CUBLAS_PEDANTIC_MATH (plain FP32, no TF32); torch.matmul with "
                   "allow_tf32 = False as a second cuBLAS reading")
    return {"meta": m, "check": check, "counters": counters, "timing": perf}


# ------------------------------------------------------------------------------------------------ classes, P2
def build_counters(csvs: list[Path], what: str) -> dict:
    kernels: dict[str, dict] = {}
    for path in csvs:
        for name, c in ncu_by_name(path).items():
            kernels.setdefault(name, {}).update(c)
    return {"meta": dict(meta(ncu_commands()), what=what), "kernels": kernels}


# ------------------------------------------------------------------------------------------------ racecheck
_ANALYSIS_HEAD = re.compile(r"(Error|Warning): Race reported between (\w+) access at (\w+)\+(0x[0-9a-f]+) in "
                            r"([^:\s]+):(\d+)")
_ANALYSIS_AND = re.compile(r"^=+\s+and (\w+) access at (\w+)\+(0x[0-9a-f]+) in ([^:\s]+):(\d+) \[(\d+) hazards?\]")
_HAZARD = re.compile(r"(Error|Warning): (?:\(Warp Level Programming\) )?Potential (RAW|WAR|WAW) hazard detected at "
                     r"__shared__ (0x[0-9a-f]+) in block \((\d+),(\d+),(\d+)\) :\s*\n"
                     r"=+\s+(Write|Read) Thread \((\d+),(\d+),(\d+)\) at (\w+)\+(0x[0-9a-f]+) in ([^:\s]+):(\d+)\s*\n"
                     r"=+\s+(Write|Read) Thread \((\d+),(\d+),(\d+)\) at (\w+)\+(0x[0-9a-f]+) in ([^:\s]+):(\d+)")
_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")


def parse_racecheck_analysis(text: str) -> dict:
    """racecheck's default (analysis) report: per first access (an instruction), every instruction it races
    with and the hazard count of that pair."""
    pairs = []
    head = None
    for line in text.splitlines():
        h = _ANALYSIS_HEAD.search(line)
        if h:
            head = {"severity": h.group(1).lower(), "access": h.group(2).lower(), "line": int(h.group(6)),
                    "pc": h.group(4)}
            continue
        a = _ANALYSIS_AND.match(line)
        if a and head is not None:
            pairs.append({"severity": head["severity"],
                          "first": {k: head[k] for k in ("access", "line", "pc")},
                          "second": {"access": a.group(1).lower(), "line": int(a.group(5)), "pc": a.group(3)},
                          "hazards": int(a.group(6))})
        elif not line.strip("= \n"):
            head = None
    s = _SUMMARY.search(text)
    return {"pairs": pairs, "summary": None if not s else
            {"displayed": int(s.group(1)), "errors": int(s.group(2)), "warnings": int(s.group(3))}}


def parse_racecheck_hazards(text: str) -> dict:
    """racecheck ``--racecheck-report hazard``: every hazard (one per byte of shared memory and thread pair),
    tallied by (severity, kind, first access line, second access line) and by same-warp or not."""
    tally: Counter = Counter()
    n = 0
    for m in _HAZARD.finditer(text):
        n += 1
        t1 = tuple(int(m.group(i)) for i in (8, 9, 10))
        t2 = tuple(int(m.group(i)) for i in (16, 17, 18))
        tally[(m.group(1).lower(), m.group(2), m.group(7).lower(), int(m.group(14)), m.group(15).lower(),
               int(m.group(22)), _warp(t1) == _warp(t2))] += 1
    s = _SUMMARY.search(text)
    groups = [{"severity": k[0], "kind": k[1], "first": {"access": k[2], "line": k[3]},
               "second": {"access": k[4], "line": k[5]}, "same_warp": k[6], "count": v}
              for k, v in sorted(tally.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][3], kv[0][5], kv[0][6]))]
    return {"parsed": n, "groups": groups, "summary": None if not s else
            {"displayed": int(s.group(1)), "errors": int(s.group(2)), "warnings": int(s.group(3))}}


_BLOCK_X = {"transpose": 32, "gemm": 16}


def _warp(tid: tuple[int, int, int], bdx: int = 0) -> int:
    """Warp of a thread; the block's x extent is set per file by ``build_racecheck`` (via _warp.bdx)."""
    bx = bdx or _warp.bdx  # type: ignore[attr-defined]
    return (tid[0] + tid[1] * bx) // 32


_warp.bdx = 32  # type: ignore[attr-defined]


def build_racecheck() -> dict:
    cases = []
    for path in sorted((RAW / "racecheck").glob("*.txt*")):
        stem = path.name.split(".txt")[0]
        text = read_text(path)
        command = text.splitlines()[0].lstrip("# ").strip() if text.startswith("#") else None
        hit = re.match(r"(?P<kernel>transpose|gemm_tiled16_nosync[12])_(?P<mode>analysis|hazard_full|hazard)_(?P<shape>[\dx]+)$", stem)
        if not hit:
            continue
        _warp.bdx = 32 if hit["kernel"] == "transpose" else 16   # type: ignore[attr-defined]
        mode = "analysis" if hit["mode"] == "analysis" else "hazard"
        entry = {"kernel": "transpose_tiled_nosync" if hit["kernel"] == "transpose" else hit["kernel"],
                 "shape": hit["shape"], "mode": mode, "complete": hit["mode"] != "hazard" or hit["kernel"] == "transpose",
                 "command": command, "file": f"raw2/racecheck/{path.name}"}
        entry.update(parse_racecheck_analysis(text) if mode == "analysis" else parse_racecheck_hazards(text))
        cases.append(entry)
    plain = read_jsonl(read_text(RAW / "racecheck" / "gemm_plain_runs.jsonl"))
    tplain = [line for line in read_text(RAW / "racecheck" / "transpose_plain_runs.txt").splitlines() if line.strip()]
    m = meta()
    m["command"] = "compute-sanitizer --tool racecheck [--racecheck-report hazard] --print-limit 0 PROGRAM ARGS (per case)"
    m["sources"] = {"transpose_tiled_nosync": "measurements/h200/race.cu",
                    "gemm_tiled16_nosync1/2": "measurements/h200/gemm/gemm_tiled.cuh (TILE 16, SYNC1 0 / SYNC2 0)"}
    return {"meta": m, "cases": cases, "plain_runs": {"gemm": plain, "transpose": tplain}}


# ------------------------------------------------------------------------------------------------ N = 8192
def parse_source_csv(text: str) -> dict[str, list[dict]]:
    """``ncu --page source --csv --print-source sass``: per kernel, the shared-memory instructions with their
    executed count and the instrumented L1 wavefronts (actual and ideal)."""
    out: dict[str, list[dict]] = {}
    kernel, header = None, None
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        if row[0] == "Kernel Name":
            kernel, header = row[1], None
            out[kernel] = []
            continue
        if row[0] == "Address":
            header = row
            continue
        if kernel is None or header is None or len(row) < len(header):
            continue
        r = dict(zip(header, row))
        src = r["Source"].strip()
        if not re.match(r"(@!?P\d+\s+)?(LDS|STS)\b", src):
            continue
        num = lambda k: int(r[k].replace(",", "")) if r.get(k, "-") not in ("-", "") else None  # noqa: E731
        out[kernel].append({"address": r["Address"], "sass": src, "executed": num("Instructions Executed"),
                            "wavefronts": num("L1 Wavefronts Shared"),
                            "wavefronts_ideal": num("L1 Wavefronts Shared Ideal"),
                            "conflicts_n_way": num("L1 Conflicts Shared N-Way")})
    return out


def build_n8192() -> dict:
    bw = {n: ncu_by_name(RAW / "bandwidth" / f"ncu_bw_{n}.csv") for n in (1024, 8192)}
    sizes = {1024: bw[1024], 2048: ncu_by_name(RAW / "n8192" / "ncu_size_2048.csv"),
             4096: ncu_by_name(RAW / "n8192" / "ncu_size_4096.csv"), 8192: bw[8192]}
    occ = ncu_by_name(RAW / "n8192" / "ncu_occ2_8192.csv")
    wf_ld = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    wf_st = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
    rows = []
    for variant, runs in [("full occupancy", sizes), ("2 blocks/SM (100 KB dynamic smem)", {8192: occ})]:
        for n, kernels in runs.items():
            for name, c in kernels.items():
                if not name.startswith("transpose_tiled"):
                    continue
                inst_ld = c["smsp__inst_executed_op_shared_ld.sum"]
                inst_st = c["smsp__inst_executed_op_shared_st.sum"]
                per = 32 if name.startswith("transpose_tiled_pad0") else 1   # one-warp model: wavefronts per LDS
                rows.append({"kernel": name, "n": n, "variant": variant, "time_ns": c.get("gpu__time_duration.sum"),
                             "lds_inst": inst_ld, "lds_wavefronts": c[wf_ld], "lds_model": per * inst_ld,
                             "lds_excess": c[wf_ld] - per * inst_ld,
                             "sts_inst": inst_st, "sts_wavefronts": c[wf_st], "sts_model": inst_st,
                             "sts_excess": c[wf_st] - inst_st,
                             "global_st_sectors": c.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                             "global_ld_sectors": c.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")})
    src = parse_source_csv(read_text(RAW / "n8192" / "src_sass.csv"))
    m = meta(ncu_commands())
    return {"meta": m, "hardware_counters": rows, "source_counters_8192": src}


def markdown() -> str:
    """The README's round-2 tables, from the results files (``round2_parse.py --markdown``)."""
    out = []
    bw = _load_json("bandwidth/results.json")
    out += ["| kernel | n | median µs | GB/s median [min, max] | DRAM read MiB | DRAM write MiB |", "|---|---|---|---|---|---|"]
    for r in bw["records"]:
        out.append(f"| `{r['name']}` | {r['n']} | {r['median_ms'] * 1e3:.1f} | {r['gbps_median']:.0f} "
                   f"[{r['gbps_min']:.0f}, {r['gbps_max']:.0f}] | {r['dram_bytes_read'] / 2**20:.1f} | "
                   f"{r['dram_bytes_write'] / 2**20:.1f} |")
    g = _load_json("gemm/results.json")
    out += ["", "| kernel (4096³) | median ms | GFLOP/s | rel. error vs cuBLAS |", "|---|---|---|---|"]
    for t in g["timing"]:
        err = "—" if t["rel_err_vs_cublas"] is None else f"{t['rel_err_vs_cublas']:.1e}"
        out.append(f"| `{t['name']}` | {t['median_ms']:.3f} | {t['gflops_median']:.0f} | {err} |")
    cols = [("ld_req", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
            ("ld_sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
            ("st_sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
            ("lds_inst", "smsp__inst_executed_op_shared_ld.sum"), ("sts_inst", "smsp__inst_executed_op_shared_st.sum"),
            ("lds_wf", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
            ("sts_wf", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
            ("lds_bc", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
            ("sts_bc", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")]
    for shape, ks in g["counters"].items():
        out += ["", f"| GEMM {shape} | " + " | ".join(c for c, _ in cols) + " |", "|---" * (len(cols) + 1) + "|"]
        out += [f"| `{k}` | " + " | ".join(str(c.get(m)) for _, m in cols) + " |" for k, c in ks.items()]
    more = cols + [("red_req", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"),
                   ("red_sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"),
                   ("atom_req", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"),
                   ("atom_sec", "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"),
                   ("gld_inst", "smsp__inst_executed_op_global_ld.sum"), ("gst_inst", "smsp__inst_executed_op_global_st.sum"),
                   ("satom_inst", "smsp__inst_executed_op_shared_atom.sum")]
    for rel in ("p2/results.json", "classes/results.json"):
        d = _load_json(rel)
        use = [(c, m) for c, m in more if any(k.get(m) for k in d["kernels"].values())]
        out += ["", f"| {rel.split('/')[0]} kernel | grid | " + " | ".join(c for c, _ in use) + " |",
                "|---" * (len(use) + 2) + "|"]
        out += [f"| `{k}` | {c['grid']} | " + " | ".join(str(c.get(m)) for _, m in use) + " |"
                for k, c in d["kernels"].items() if k != "ones"]
    n8 = _load_json("n8192/results.json")
    out += ["", "| kernel | n | occupancy | LDS inst | LDS wavefronts (ncu) | model | excess | STS wavefronts | "
            "model | excess | time µs |", "|---" * 11 + "|"]
    for r in n8["hardware_counters"]:
        out.append(f"| `{r['kernel']}` | {r['n']} | {r['variant']} | {r['lds_inst']} | {r['lds_wavefronts']} | "
                   f"{r['lds_model']} | {r['lds_excess']} ({100 * r['lds_excess'] / r['lds_model']:.1f}%) | "
                   f"{r['sts_wavefronts']} | {r['sts_model']} | {r['sts_excess']} | {r['time_ns'] / 1e3:.1f} |")
    out += ["", "| kernel (8192², source counters) | SASS | executed | L1 wavefronts shared | ideal |", "|---|---|---|---|---|"]
    for k, instrs in n8["source_counters_8192"].items():
        out += [f"| `{k}` | `{i['sass'].rstrip(' ;')}` | {i['executed']} | {i['wavefronts']} | {i['wavefronts_ideal']} |"
                for i in instrs]
    return "\n".join(out)


def _load_json(rel: str) -> dict:
    return json.loads((HERE / rel).read_text(encoding="utf-8"))


def main() -> int:
    if "--markdown" in sys.argv[1:]:
        print(markdown())
        return 0
    results, details = build_bandwidth()
    outputs = {
        HERE / "bandwidth" / "results.json": results,
        HERE / "bandwidth" / "details.json": details,
        HERE / "gemm" / "results.json": build_gemm(),
        HERE / "classes" / "results.json": build_counters(
            [RAW / "classes" / "ncu_classes.csv", RAW / "classes" / "ncu_classes_extra.csv"],
            "measurements/h200/classes/classes.cu, one launch per kernel (main + extra ncu pass)"),
        HERE / "p2" / "results.json": build_counters(
            [RAW / "p2" / "ncu_p2.csv"], "measurements/h200/p2/p2.cu, 64 blocks x 256 threads as the P2 script"),
        HERE / "racecheck" / "results.json": build_racecheck(),
        HERE / "n8192" / "results.json": build_n8192(),
    }
    for path, data in outputs.items():
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(HERE)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
