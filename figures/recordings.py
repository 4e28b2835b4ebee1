"""The one reader of the H200 recordings (``measurements/h200/``), in the repo and in the student kit alike.

Lessons and figures ask for a recording by name (``load("gemm")``, ``gemm_counters("gemm_tiled16")``) and get
the parsed data, or None where nothing is recorded (the caller then says "not recorded", never a guess).

Where the data comes from:

* the student kit has no ``measurements/``: its build writes :data:`BUNDLE` into the kit's copy of this package
  (:func:`write_bundle`: every recording in :data:`KIT`, parsed, gzipped JSON) and this module reads it with
  ``importlib.resources``;
* in the repo there is no bundle, and the same parsers read ``measurements/h200/`` directly.

Raw reports (compute-sanitizer's text, SASS listings, ncu CSV) are parsed here into what the lessons show, so
the kit carries results, not reports. Standard library only.
"""
from __future__ import annotations

import copy
import csv
import functools
import gzip
import importlib.resources
import json
import re
from pathlib import Path
from typing import Any, Callable

BUNDLE = "_kitdata/h200.json.gz"      # relative to this package; present only in the student kit


def _json(text: str) -> Any:
    return json.loads(text)


def _text(text: str) -> str:
    return text


def parse_sanitizer(text: str) -> dict:
    """What the lessons read of raw/sanitizer.txt (compute-sanitizer and plain runs of race.cu, misaligned.cu):

    ``wrong_outputs``: ``{"plain"|"racecheck": {"MxN": [wrong, total]}}`` of the no-barrier transpose;
    ``hazards``: racecheck's hazard summary of the 32×32 kernel ``{"errors", "warnings"}`` or None;
    ``misaligned``: the plain run's error line and the first 4 lines of the memcheck report of misaligned.cu.
    """
    wrong: dict = {"plain": {}, "racecheck": {}}
    section = None
    lines = text.splitlines()
    for line in lines:
        if line.startswith("#####"):
            section = "plain" if "plain runs: race" in line else "racecheck" if "racecheck" in line and " race " in \
                line + " " else None
            continue
        m = re.match(r"transpose_tiled_nosync (\d+)x(\d+): (\d+) of (\d+) outputs wrong", line)
        if m and section:
            wrong[section][f"{m[1]}x{m[2]}"] = [int(m[3]), int(m[4])]
    m = re.search(r"racecheck-report hazard race 32 32.*?RACECHECK SUMMARY: \d+ hazards? displayed "
                  r"\((\d+) errors?, (\d+) warnings?\)", text, re.S)
    hazards = {"errors": int(m[1]), "warnings": int(m[2])} if m else None
    plain = next((ln.strip() for ln in lines if ln.startswith("sync:") and "isaligned" in ln), None)
    report: list[str] = []
    for i, ln in enumerate(lines):
        if "Invalid __shared__ read" in ln:
            report = [x.strip("= ").strip() for x in lines[i:i + 4]]
            break
    return {"wrong_outputs": wrong, "hazards": hazards, "misaligned": {"plain": plain, "report": report}}


def parse_registers(text: str) -> dict[str, int]:
    """``{kernel: registers per thread}`` of an ncu raw CSV with ``launch__registers_per_thread``."""
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        return {}
    head = rows[0]
    name, regs = head.index("Kernel Name"), head.index("launch__registers_per_thread")
    return {r[name]: int(r[regs]) for r in rows[1:] if len(r) > regs and r[regs].isdigit()}


def parse_sass_counts(text: str) -> dict[str, dict[str, int]]:
    """Static shared-memory instructions per kernel of a cuobjdump SASS listing: ``{kernel: {"LDS": n, ...}}``."""
    out: dict[str, dict[str, int]] = {}
    current = None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = out.setdefault(m[1], {})
            continue
        m = re.search(r"\*/\s+(?:@!?P\d+\s+)?(LDS|STS)(\.\w+)?\s", line)
        if m and current is not None:
            op = m[1] + (m[2] or "")
            current[op] = current.get(op, 0) + 1
    return out


def parse_round3_sweep(text: str) -> dict:
    """round3/results.json reduced to P2's offset/stride sweep (its ``sweep`` block) and the run's meta
    (gpu, driver, nvcc, ncu, date, command): the whole file is 650 KB, the kit needs 30 KB of it."""
    data = json.loads(text)
    keep = ("gpu", "driver", "nvcc", "ncu", "date", "nvcc_flags", "command", "ncu_flags")
    meta = {k: data.get("meta", {}).get(k) for k in keep}
    meta["sweep_commands"] = {k: v for k, v in data.get("meta", {}).get("commands", {}).items() if "sweep" in k}
    return {"meta": meta, **data["sweep"]}


def parse_round3_gemm(text: str) -> dict:
    """round3/results.json reduced to lesson 10's GEMMs (its ``gemm`` block: 4096³ timing and ncu metrics, 64³ and
    70×45×33 counters of the +4 variants), the device's properties and FFMA peak, and the run's meta."""
    data = json.loads(text)
    keep = ("gpu", "driver", "nvcc", "ncu", "date", "nvcc_flags", "command", "ncu_flags", "sm_clock_max_mhz")
    meta = {k: data.get("meta", {}).get(k) for k in keep}
    meta["gemm_commands"] = {k: v for k, v in data.get("meta", {}).get("commands", {}).items() if "gemm" in k}
    peak = dict(data.get("device", {}).get("ffma_peak", {}))
    peak.pop("ms", None)
    return {"meta": meta, "properties": data.get("device", {}).get("properties"), "ffma_peak": peak,
            **data["gemm"]}


def parse_round3_transpose8(text: str) -> dict:
    """round3/results.json reduced to lesson 8's 8192² kernels (its ``transpose8`` block: timing and ncu metrics of
    copy, the naive transposes, the block-shape sweep, Q3's fill and column sums) and the run's meta."""
    data = json.loads(text)
    keep = ("gpu", "driver", "nvcc", "ncu", "date", "nvcc_flags", "command", "ncu_flags", "sm_clock_max_mhz")
    meta = {k: data.get("meta", {}).get(k) for k in keep}
    meta["transpose8_commands"] = {k: v for k, v in data.get("meta", {}).get("commands", {}).items()
                                   if "transpose8" in k}
    return {"meta": meta, **data["transpose8"]}


def parse_round3_challenges(text: str) -> dict:
    """round3/results.json reduced to the challenges' timing (its ``challenges.timing`` block: median of 20 launches
    of each challenge's reference, baseline and variants at the H200's size) and the run's meta."""
    data = json.loads(text)
    keep = ("gpu", "driver", "nvcc", "ncu", "date", "nvcc_flags", "command")
    meta = {k: data.get("meta", {}).get(k) for k in keep}
    return {"meta": meta, "timing": data["challenges"]["timing"]}


def parse_run_lines(text: str) -> list[dict]:
    """The JSON result lines a program printed (``{"mode": "race", ..., "wrong": n}``), e.g. while it ran under
    compute-sanitizer: what that run computed, beside the sanitizer's report."""
    return [json.loads(ln) for ln in text.splitlines() if ln.startswith("{") and ln.rstrip().endswith("}")]


# name -> (file under measurements/h200/, parser). README.md there describes each file.
SOURCES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "round1": ("results.json", _json),                    # microbench.cu: one-warp/small kernels, contract counters
    "patterns": ("patterns/results.json", _json),         # 471 table-driven one-warp patterns
    "bandwidth": ("bandwidth/results.json", _json),       # Harris's experiment: name, n, runs, median_ms, gbps_*
    "bandwidth_details": ("bandwidth/details.json", _json),   # every timed run and each kernel's ncu counters
    "gemm": ("gemm/results.json", _json),                 # lesson 10's GEMMs: check, counters, timing
    "classes": ("classes/results.json", _json),           # issue 17's kernel classes
    "p2": ("p2/results.json", _json),                     # P2's patterns as the P2 script launches them
    "racecheck": ("racecheck/results.json", _json),       # racecheck cases, plain runs without a barrier
    "n8192": ("n8192/results.json", _json),               # shared wavefronts vs N, occupancy
    "sanitizer": ("raw/sanitizer.txt", parse_sanitizer),  # parsed: see parse_sanitizer
    "gemm_registers": ("raw2/gemm/ncu_gemm_64.csv", parse_registers),
    "gemm_sass": ("raw2/sass_gemm_bench.txt", parse_sass_counts),
    "gemm_tiled_source": ("gemm/gemm_tiled.cuh", _text),  # the CUDA source the H200 ran (2 KB), for line numbers
    "round3_sweep": ("round3/results.json", parse_round3_sweep),   # P2's offset/stride copy sweep (issue 26)
    "round3_gemm": ("round3/results.json", parse_round3_gemm),     # lesson 10 at 4096³, +4 padding, FP32 peak
    "round3_transpose8": ("round3/results.json", parse_round3_transpose8),   # lesson 8 at 8192² (issue 27)
    "round3_challenges": ("round3/results.json", parse_round3_challenges),   # the challenges' speed (issue 29)
    # lesson 10's kernels without one barrier, run under racecheck at 64³: the wrong outputs of those runs
    "racecheck_gemm_tiled16_nosync1_64x64x64": ("raw2/racecheck/gemm_tiled16_nosync1_analysis_64x64x64.txt",
                                                parse_run_lines),
    "racecheck_gemm_tiled16_nosync2_64x64x64": ("raw2/racecheck/gemm_tiled16_nosync2_analysis_64x64x64.txt",
                                                parse_run_lines),
}
# What the lessons read: the student kit carries these (tests/figures/test_recordings.py runs every lesson's
# H200 table from the bundle alone).
KIT = ("round1", "bandwidth", "bandwidth_details", "gemm", "p2", "racecheck", "sanitizer", "gemm_registers",
       "gemm_sass", "gemm_tiled_source", "round3_sweep", "round3_gemm", "round3_transpose8", "round3_challenges", "n8192", "racecheck_gemm_tiled16_nosync1_64x64x64",
       "racecheck_gemm_tiled16_nosync2_64x64x64")


def measurements_dir() -> Path:
    """``measurements/h200/`` of the repo this package runs from (absent in the student kit)."""
    return Path(__file__).resolve().parents[1] / "measurements" / "h200"


def parse_file(name: str, path: str | Path) -> Any:
    """Recording ``name`` parsed from the file at ``path``; None when there is no such file."""
    _check(name)
    p = Path(path)
    if not p.is_file():
        return None
    return SOURCES[name][1](p.read_text(encoding="utf-8", errors="replace"))


def _check(name: str) -> None:
    if name not in SOURCES:
        raise KeyError(f"unknown H200 recording {name!r}; known: {', '.join(SOURCES)}")


@functools.lru_cache(maxsize=1)
def _bundle() -> dict | None:
    res = importlib.resources.files(__package__).joinpath(BUNDLE)
    if not res.is_file():
        return None
    return json.loads(gzip.decompress(res.read_bytes()).decode("utf-8"))


@functools.lru_cache(maxsize=32)
def _from_repo(name: str, where: str) -> Any:
    return parse_file(name, Path(where) / SOURCES[name][0])


def load(name: str) -> Any:
    """Recording ``name`` (a key of :data:`SOURCES`), parsed (the caller's own copy); None when it is not
    recorded here."""
    _check(name)
    bundle = _bundle()
    data = bundle.get(name) if bundle is not None else _from_repo(name, str(measurements_dir()))
    return copy.deepcopy(data)


def read(name: str, path: str | Path | None = None) -> Any:
    """:func:`load`, or, given ``path``, the recording parsed from that file (tests pass their own); None when
    absent."""
    return load(name) if path is None else parse_file(name, path)


def source() -> str:
    """Where :func:`load` reads: "kit bundle", "measurements/h200" or "nothing recorded"."""
    if _bundle() is not None:
        return "kit bundle"
    return "measurements/h200" if measurements_dir().is_dir() else "nothing recorded"


def bundle(where: str | Path | None = None, names: tuple[str, ...] = KIT) -> dict:
    """``{name: parsed recording}`` of ``names`` read from ``where`` (default: this repo's measurements/h200/);
    a recording that is not there is left out."""
    base = Path(where) if where is not None else measurements_dir()
    out = {}
    for name in names:
        data = parse_file(name, base / SOURCES[name][0])
        if data is not None:
            out[name] = data
    return out


def write_bundle(package_dir: str | Path, where: str | Path | None = None) -> Path:
    """Write :data:`BUNDLE` into ``package_dir`` (a copy of this package, e.g. the student kit's figures/);
    returns its path. Raises FileNotFoundError when nothing is recorded: a kit without the H200 is a bug."""
    data = bundle(where)
    if not data:
        raise FileNotFoundError(f"no H200 recording under {Path(where) if where else measurements_dir()}")
    out = Path(package_dir) / BUNDLE
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    out.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    return out


# ---- convenience readers ------------------------------------------------------------------------------------

def bandwidth_record(name: str, n: int) -> dict | None:
    """One record of bandwidth/results.json (e.g. ``bandwidth_record("transpose_naive", 8192)``), or None."""
    data = load("bandwidth")
    if data is None:
        return None
    return next((r for r in data["records"] if r["name"] == name and r["n"] == n), None)


def gemm_counters(kernel: str, shape: str = "64x64x64") -> dict | None:
    """ncu counters of one GEMM kernel at ``shape`` ("64x64x64" or "70x45x33"), or None."""
    data = load("gemm")
    return None if data is None else data["counters"].get(shape, {}).get(kernel)


def gemm_gflops(name: str) -> float | None:
    """Median GFLOP/s at 4096³ of a GEMM kernel, "cublas_sgemm" or "torch_matmul_fp32_no_tf32", or None."""
    data = load("gemm")
    if data is None:
        return None
    return next((t["gflops_median"] for t in data["timing"] if t["name"] == name), None)


def challenge_speed(challenge: str, variant: str) -> dict | None:
    """Round 3's timing record of one challenge kernel (``variant`` "solution", "baseline", ...): its sizes,
    ``gbps_median`` or ``gflops_median``; None when not recorded."""
    data = load("round3_challenges")
    if data is None:
        return None
    return next((t for t in data["timing"] if t.get("variant") == f"{challenge}/{variant}"), None)


def kernel_counters(recording: str, kernel: str) -> dict | None:
    """Counters of one kernel of the "classes" or "p2" recording, or None."""
    data = load(recording)
    return None if data is None else data["kernels"].get(kernel)


def racecheck_run(kernel: str, shape: str) -> dict | None:
    """The program's own result line (``{"mode": "race", ..., "wrong": n}``) printed while ``kernel`` ran at
    ``shape`` ("64x64x64") under ``compute-sanitizer --tool racecheck`` (its recorded analysis run), or None."""
    name = f"racecheck_{kernel}_{shape}"
    if name not in SOURCES:
        return None
    return next((r for r in load(name) or [] if "wrong" in r), None)


def racecheck_hazards(kernel: str, shape: str) -> list[tuple[str, str, int, str, int]] | None:
    """racecheck's hazards of the recorded analysis run of ``kernel`` at ``shape``, grouped: sorted distinct
    (severity, first access, first line, second access, second line); None when not recorded."""
    data = load("racecheck") or {}
    case = next((c for c in data.get("cases", []) if c["kernel"] == kernel and c["shape"] == shape
                 and c["mode"] == "analysis"), None)
    if case is None:
        return None
    return sorted({(p["severity"], p["first"]["access"], p["first"]["line"], p["second"]["access"],
                    p["second"]["line"]) for p in case["pairs"]})
