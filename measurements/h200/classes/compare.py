"""labsim against the H200 on issue 17's kernel classes (classes.cu, results.json), and lesson 10's GEMM.

Each kernel of classes.cu is compiled on labsim on its own (the file's helpers and macros, without the host
``main``), launched with the shape and buffers ``main`` uses, and its counters compared with the recording.

    .venv/bin/python measurements/h200/classes/compare.py                     # table on stdout
    .venv/bin/python measurements/h200/classes/compare.py --json out.json     # labsim's counters, for the table
    .venv/bin/python measurements/h200/classes/compare.py --markdown COMPARISON.md --before labsim_before.json
    .venv/bin/python measurements/h200/classes/compare.py --write-sass-fixtures   # needs nvcc + nvdisasm

labsim counts each kernel both ways (``labsim.cuda.sass``): by its source rules (the default) and from the
kernel's SASS. The SASS is the recorded ``nvdisasm -gi`` output in tests/fixtures/sass/ (written by
``--write-sass-fixtures``: ``nvcc -cubin -arch=sm_90 -O3 -lineinfo`` then ``nvdisasm -gi -c``, nvcc 13), so
the comparison and the tests need no compiler. ``labsim_before.json`` holds labsim's counters before issue 17
(counting model 1), made by this script's ``--json`` on commit 19f2df0; COMPARISON.md is generated from it, the
recording and the current labsim.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "sass"
MODES = ("source-rules", "sass")

# the counters compared: labsim reports each under its ncu name
METRICS = [
    "smsp__inst_executed_op_global_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "smsp__inst_executed_op_global_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__sass_inst_executed_op_global_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "smsp__inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_atom.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
]
# labsim model 1 named ATOMG executions smsp__inst_executed_op_global_atom.sum (no such ncu metric)
OLD_NAMES = {"smsp__sass_inst_executed_op_global_atom.sum": "smsp__inst_executed_op_global_atom.sum"}
# the shared float atomicAdd is a CAS loop whose retries depend on timing: not comparable exactly
TIMING = {"satom_f32_same_one_2x256"}


def short(metric: str) -> str:
    m = metric.replace(".sum", "").replace("smsp__sass_inst_executed_op_", "executed ")
    m = m.replace("smsp__inst_executed_op_", "executed ").replace("l1tex__t_requests_pipe_lsu_mem_", "requests ")
    m = m.replace("l1tex__t_sectors_pipe_lsu_mem_", "sectors ")
    m = m.replace("l1tex__data_pipe_lsu_wavefronts_mem_", "wavefronts ")
    m = m.replace("l1tex__data_bank_conflicts_pipe_lsu_mem_", "conflicts ")
    return m.replace("_op_", " ").replace("global_", "global ").replace("shared_", "shared ")


def split_source(text: str) -> tuple[str, dict[str, str], list[tuple]]:
    """(preamble, {kernel: its source}, launches [(kernel, grid, block, args)]) of classes.cu."""
    body, main = text.split("\nint main()", 1)
    body = re.sub(r"#define CHECK\(call\).*?while \(0\)\n", "", body, flags=re.S)
    body = body.replace("#include <cstdio>\n", "").replace("#include <cstdlib>\n", "")
    kernels: dict[str, str] = {}
    first = None
    for m in re.finditer(r"^(?:KERNEL (\w+)\(|F4\((\w+), )", body, flags=re.M):
        first = m.start() if first is None else first
        if m.group(2):
            kernels[m.group(2)] = body[m.start():body.index("\n", m.start()) + 1]
            continue
        depth, i = 0, body.index("{", m.start())
        while True:      # the matching closing brace
            depth += {"{": 1, "}": -1}.get(body[i], 0)
            if depth == 0:
                break
            i += 1
        kernels[m.group(1)] = body[m.start():i + 1] + "\n"
    pre = body[:first]
    launches = []
    for m in re.finditer(r"^\s*L\((\w+), (\d+), (\d+), (.*?)\);", main, flags=re.M):
        launches.append((m.group(1), int(m.group(2)), int(m.group(3)), [a.strip() for a in m.group(4).split(",")]))
    return pre, kernels, launches


def _buffers():
    from labsim.cuda.runtime import Ptr
    ci = np.zeros(4096, np.int32)
    cf = np.zeros(4096, np.float32)
    sink = np.zeros((1 << 20) // 4, np.float32)
    inb = np.zeros(4096 + 64, np.float32)
    out = np.zeros(4096, np.float32)
    raw = np.ones(1 << 20, np.uint8)

    def arg(text: str):
        cast = re.match(r"\((?:const )?([\w ]+?)\s*\*\)\s*(\w+)", text)
        name = cast.group(2) if cast else text
        if text == "in + 32":
            return Ptr(inb, 32 * 4, "in", "global")
        if text.isdigit():
            return int(text)
        return {"ci": ci, "cf": cf, "sink": sink, "in": inb, "out": out, "bytes": raw}[name]
    return arg


def kernel_source(name: str, path: Path = HERE / "classes.cu") -> tuple[str, int, int, list[str]]:
    """(labsim-ready source, grid, block, argument texts) of one kernel of classes.cu: the kernel at its own
    lines (so labsim's and the SASS's line numbers are classes.cu's), the helpers before it, the F4 macro and
    the single-line #defines it may use; the struct declarations only where it uses them."""
    full = path.read_text(encoding="utf-8")
    pre, kernels, launches = split_source(full)
    _, grid, block, args = next(x for x in launches if x[0] == name)
    f4 = re.search(r"^#define F4\(.*?[^\\]\n", full, flags=re.S | re.M).group(0)
    keep = [pre if re.search(r"\bP[34]\b", kernels[name]) else re.sub(r"^struct .*$", "", pre, flags=re.M)]
    if kernels[name].startswith("F4("):
        keep.append(f4)
    keep += [d for d in re.findall(r"^#define \w+ [^\\\n]*\n", full[:full.index(kernels[name])], flags=re.M)
             if d not in pre]
    keep.append(kernels[name])
    lines = ["" for _ in full.split("\n")]
    for part in keep:
        at = full.count("\n", 0, full.index(part) if part is not keep[0] else 0)
        for j, text in enumerate(part.split("\n")):
            lines[at + j] = text
    return "\n".join(lines), grid, block, args


def fixture_path(group: str, name: str) -> Path:
    return FIXTURES / group / f"{name}.sass"


def recorded_analysis(group: str, name: str) -> dict | None:
    """The recorded SASS of one kernel (tests/fixtures/sass/<group>/<name>.sass), parsed; None if not recorded."""
    from labsim.cuda import sass
    path = fixture_path(group, name)
    if not path.is_file():
        return None
    return sass.parse_nvdisasm(path.read_text(encoding="utf-8"), "kernel.cu")


def _launch_opts(group: str, name: str, mode: str | None) -> dict:
    """Keyword arguments of Program.launch for ``mode``: SASS mode reads the recorded SASS where there is one."""
    if mode == "sass":
        analysis = recorded_analysis(group, name)
        return {"analysis": analysis} if analysis is not None else {"counting": "sass"}
    return {} if mode is None else {"counting": mode}


def run_one(name: str, mode: str | None = None) -> dict:
    """{"counting": mode, metric: value} of one kernel of classes.cu on labsim, or {"refused": message}.
    ``mode``: None (labsim's default), "source-rules" or "sass" (the recorded SASS, else nvcc's)."""
    import warnings

    import labsim.cuda as lc
    src, grid, block, args = kernel_source(name)
    arg = _buffers()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # untyped device bytes viewed as short/float: intended here
            res = lc.compile(src, "classes.cu").launch(name, grid, block, [arg(a) for a in args],
                                                       **_launch_opts("classes", name, mode))
    except Exception as e:  # a refusal is a result of the comparison
        return {"refused": f"{type(e).__name__}: {e}".splitlines()[0][:200]}
    m = res.stats.metrics
    rec = {"counting": getattr(res.stats, "counting", "source")}
    for metric in METRICS:
        rec[metric] = int(m.get(metric, m.get(OLD_NAMES.get(metric, ""), 0)))
    return rec


def kernel_names(path: Path = HERE / "classes.cu") -> list[str]:
    return [x[0] for x in split_source(path.read_text(encoding="utf-8"))[2]]


def run_labsim(mode: str | None = None) -> dict:
    """{kernel: run_one(kernel, mode)} for every launch of classes.cu."""
    return {name: run_one(name, mode) for name in kernel_names()}


GEMMS = (("gemm_tiled16", 0, 0), ("gemm_tiled16_pad", 1, 0), ("gemm_tiled16_bt", 0, 1), ("gemm_tiled32", 0, 0),
         ("gemm_tiled32_bt", 0, 1))


def gemm_source(name: str) -> str:
    pad, bt = next((p, b) for n, p, b in GEMMS if n == name)
    src = (HERE.parent / "gemm" / "gemm_tiled.cuh").read_text(encoding="utf-8")
    tile = 32 if "32" in name else 16
    s = src.replace("#define TILE 16", f"#define TILE {tile}").replace("#define PAD 0", f"#define PAD {pad}")
    return s.replace("#define BT 0", f"#define BT {bt}")


def run_gemm(mode: str | None = None) -> dict:
    """Lesson 10's kernel (the recorded gemm_tiled16 at 64³) and the recorded GEMM variants at 64³."""
    import labsim.cuda as lc
    out = {}
    for name, _, _ in GEMMS:
        tile = 32 if "32" in name else 16
        rng = np.random.default_rng(0)
        A, B = rng.random((64, 64), dtype=np.float32), rng.random((64, 64), dtype=np.float32)
        st = lc.compile(gemm_source(name), "gemm_tiled.cu").launch(
            "gemm_tiled", (64 // tile, 64 // tile), (tile, tile), (A, B, np.zeros((64, 64), np.float32), 64, 64, 64),
            **_launch_opts("gemm", name, mode)).stats
        out[name] = {"counting": getattr(st, "counting", "source"),
                     **{k: int(st.metrics.get(k, 0)) for k in METRICS}}
    return out


# ---- round 3: issue 23 item 7's classes (measurements/h200/round3/classes3.cu, results.json "classes3") -------
R3 = HERE.parent / "round3"
# ncu counters that depend on the data as the hardware served it (recorded in results.json "data_dependent")
DATA_DEPENDENT = {"hist_random_4x256": {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum":
                                        "shared atomics on random bytes: how many lanes of a warp hit one bin"}}


def classes3_source(path: Path = R3 / "classes3.cu") -> str:
    """classes3.cu's device part at its own line numbers (the host code after the kernels and the CHECK macro,
    which labsim's preprocessor does not take, blanked)."""
    full = path.read_text(encoding="utf-8")
    body = full[:full.index("static unsigned g_seed")]
    return re.sub(r"#define CHECK\(call\).*?while \(0\)\n", lambda m: "\n" * m.group(0).count("\n"), body, flags=re.S)


def classes3_launches(path: Path = R3 / "classes3.cu") -> dict[str, tuple]:
    """{kernel: (grid, block, [argument texts])} in main's order (L, L2D and the histograms' RUN)."""
    main = path.read_text(encoding="utf-8").split("\nint main(", 1)[1]
    out = {}
    for m in re.finditer(r"^\s*(?:if \(which == \d\) )?(L|L2D|RUN)\(([^;]*)\);", main, flags=re.M):
        parts = [a.strip() for a in m.group(2).split(",")]
        if m.group(1) == "L2D":
            name, grid, block, args = parts[0], (int(parts[1]), int(parts[2])), (int(parts[3]), int(parts[4])), parts[5:]
        else:
            if not parts[1].isdigit():
                continue        # the RUN macro's own definition
            name, grid, block, args = parts[0], int(parts[1]), int(parts[2]), parts[3:]
        out[name] = (grid, block, args)
    return out


def _lcg_floats(n: int, seed: int = 12345) -> np.ndarray:
    """classes3.cu's frand(): a 32-bit LCG, (seed >> 8) / 2^24 - 0.5 in float32, n values in order."""
    a, c, mask = 1664525, 1013904223, (1 << 32) - 1
    block = 4096
    first = np.empty(block, np.uint64)
    x = seed
    for i in range(block):
        x = (a * x + c) & mask
        first[i] = x
    ak, ck = 1, 0      # the LCG applied ``block`` times: x -> ak * x + ck
    for _ in range(block):
        ak, ck = (a * ak) & mask, (a * ck + c) & mask
    rows = [first]
    while len(rows) * block < n:
        rows.append((rows[-1] * np.uint64(ak) + np.uint64(ck)) & np.uint64(mask))
    seeds = np.concatenate(rows)[:n]
    return (np.float32(1) * (seeds >> np.uint64(8)).astype(np.float32) / np.float32(16777216.0)
            - np.float32(0.5)).astype(np.float32)


def classes3_buffers():
    """Fresh device buffers with classes3.cu's inputs (data-dependent kernels need the same bytes)."""
    n = 1 << 20
    r = _lcg_floats(2 * n + 4096)
    h_f, h_i = r[:n], (r[n:2 * n] * np.float32(200.0)).astype(np.int32)
    h_b = (((r[2 * n:] + np.float32(0.5)) * np.float32(16777216.0)).astype(np.uint32) & 255).astype(np.uint8)
    bufs = {"fin": h_f.copy(), "fx": h_f.copy(), "fy": h_f.copy(), "fz": h_f.copy(), "iin": h_i,
            "fout": np.zeros(n, np.float32), "fout2": np.zeros(n, np.float32), "C": np.zeros(n, np.float32),
            "iout": np.zeros(n, np.int32), "bins": np.zeros(256, np.uint32), "bytes_rand": h_b,
            "bytes_same": np.full(4096, 7, np.uint8), "bytes_ramp": (np.arange(4096) & 255).astype(np.uint8)}
    coef = (np.float32(0.25) * np.arange(64, dtype=np.float32) - np.float32(3.0)).astype(np.float32)
    return bufs, coef


def _arg3(text: str, bufs: dict):
    from labsim.cuda.runtime import Ptr
    text = re.sub(r"^\((?:const )?\w+\s*\*\)\s*", "", text)       # (const char4*)fin: the buffer, viewed
    m = re.fullmatch(r"(\w+)\s*\+\s*([\d\s*]+)", text)
    if m and m.group(1) in bufs:
        off = 1
        for f in m.group(2).split("*"):
            off *= int(f)
        buf = bufs[m.group(1)]
        return Ptr(buf, off * buf.itemsize, m.group(1), "global")
    if text in bufs:
        return bufs[text]
    if re.fullmatch(r"\d+\.\d*f", text):
        return float(text[:-1])
    return int(text)


_PROGRAMS: dict = {}


def classes3_program():
    import labsim.cuda as lc
    if "p" not in _PROGRAMS:
        _PROGRAMS["p"] = lc.compile(classes3_source(), "classes3.cu")
    return _PROGRAMS["p"]


def run3_one(name: str, mode: str | None = None) -> dict:
    """{"counting": mode, metric: value} of one kernel of classes3.cu on labsim (same source, shape and inputs as
    the H200 run), or {"refused": message}. ``mode`` as run_one's; SASS: tests/fixtures/sass/classes3/."""
    import warnings
    try:
        prog = classes3_program()
        grid, block, args = classes3_launches()[name]
        bufs, coef = classes3_buffers()
        prog.set_constant("c_coef", coef)
        opts = {} if mode is None else {"counting": mode}
        if mode == "sass":
            analysis = recorded_analysis("classes3", "classes3")
            opts = {"analysis": analysis} if analysis is not None else opts
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # float buffers viewed as char4/short2...: intended here
            res = prog.launch(name, grid, block, [_arg3(a, bufs) for a in args], **opts)
    except Exception as e:  # a refusal is a result of the comparison
        return {"refused": f"{type(e).__name__}: {e}".splitlines()[0][:200]}
    m = res.stats.metrics
    rec = {"counting": getattr(res.stats, "counting", "source")}
    for metric in METRICS:
        rec[metric] = int(m.get(metric, 0))
    return rec


def recorded3() -> dict:
    return json.loads((R3 / "results.json").read_text(encoding="utf-8"))["classes3"]["kernels"]


def run3_all(mode: str | None = None) -> dict:
    return {name: run3_one(name, mode) for name in classes3_launches()}


# ---- round 3: issue 29's challenge kernels at labsim's small shapes (results.json "challenges" -> "ncu_small") ----
def recorded_challenges() -> dict:
    return json.loads((R3 / "results.json").read_text(encoding="utf-8"))["challenges"]["ncu_small"]


def run_challenge(key: str, shape: str, mode: str | None = None) -> dict:
    """One challenge file's host function at one recorded shape (inputs are zeros: no branch depends on them),
    counters summed over its launches; ``mode`` as run_one's (SASS: nvcc's, where installed)."""
    import warnings

    import labsim.cuda as lc
    path = R3 / "challenges" / f"{key}.cu"
    if key.startswith("p2"):
        n = int(shape[2:])
        call = ("launch_aos_to_soa", np.zeros(3 * n, np.float32), *(np.zeros(n, np.float32) for _ in range(3)), n, 0)
    elif key.startswith(("lesson08", "lesson09")):
        m, n = map(int, shape.split("x"))
        dt = np.float16 if key.startswith("lesson09") else np.float32
        call = ("launch_transpose_half" if dt is np.float16 else "launch_transpose", np.zeros(m * n, dt),
                np.zeros(m * n, dt), m, n, 0)
    else:
        m, n, k = map(int, shape.split("x"))
        call = ("launch_gemm", np.zeros(m * k, np.float32), np.zeros(k * n, np.float32), np.zeros(m * n, np.float32),
                m, n, k, 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = lc.compile(path.read_text(encoding="utf-8"), path.name).call(
                *call, **({} if mode is None else {"counting": mode}))
    except Exception as e:  # a refusal is a result of the comparison
        return {"refused": f"{type(e).__name__}: {e}".splitlines()[0][:200]}
    rec = {"counting": results[0].stats.counting}
    for metric in METRICS:
        rec[metric] = sum(int(r.stats.metrics.get(metric, 0)) for r in results)
    return rec


def write_sass_fixtures() -> list[Path]:
    """Record the SASS of every compared kernel into tests/fixtures/sass/ (needs nvcc and nvdisasm)."""
    from labsim.cuda import sass
    if not sass.available():
        raise SystemExit("--write-sass-fixtures needs nvcc and nvdisasm")
    jobs = [("classes", n, kernel_source(n)[0]) for n in kernel_names()]
    jobs += [("gemm", n, gemm_source(n)) for n, _, _ in GEMMS]
    jobs.append(("classes3", "classes3", (R3 / "classes3.cu").read_text(encoding="utf-8")))
    written = []
    for group, name, src in jobs:
        text = sass.disassemble(src)
        if text is None:
            raise SystemExit(f"nvcc rejected {group}/{name}")
        text = re.sub(r'"/tmp/labsim-sass-[^/"]*/', '"', text)     # the temporary folder: not part of the SASS
        path = fixture_path(group, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def recorded() -> tuple[dict, dict]:
    classes = json.loads((HERE / "results.json").read_text(encoding="utf-8"))["kernels"]
    gemm = json.loads((HERE.parent / "gemm" / "results.json").read_text(encoding="utf-8"))["counters"]["64x64x64"]
    return classes, gemm


def _cell(rec: dict, metric: str):
    return "refused" if "refused" in rec else rec.get(metric)


def _equal(rec: dict, h: dict, keys: list[str]) -> str:
    return "refused" if "refused" in rec else str(sum(rec.get(m) == h[m] for m in keys))


def markdown(after: dict, before: dict) -> str:
    """COMPARISON.md: ``after`` is {mode: {kernel: counters}} for both modes, ``before`` labsim model 1's."""
    classes, gemm = recorded()
    h200 = {**classes, **gemm}
    rules, sass = after["source-rules"], after["sass"]
    names = [n for n in list(classes) + [g for g in rules if g.startswith("gemm")] if n in h200]
    same = [n for n in names if n not in TIMING and all(_cell(rules[n], m) == h200[n][m] == _cell(sass[n], m)
                                                        for m in METRICS if m in h200[n])]
    head = ["# labsim against the H200: issue 17's kernel classes", "",
            "Generated by `measurements/h200/classes/compare.py --markdown` (do not edit). H200: "
            "`classes/results.json` and `gemm/results.json` (64³); labsim before: counting model 1 "
            "(`labsim_before.json`, made on commit 19f2df0). labsim now counts each kernel two ways "
            "(`labsim.cuda.sass`): **source rules**, the default whatever is installed, and **SASS**, decided by "
            "the kernel's recorded SASS (`tests/fixtures/sass/`, nvcc 13, `-arch=sm_90 -O3`). ✗ marks a difference "
            "from the H200; \"refused\" means labsim rejected the kernel.", "",
            f"Kernels with every counter equal to the H200 in both modes: **{len(same)} of "
            f"{len([n for n in names if n not in TIMING])}** compared ({len(TIMING)} not compared: a timing-dependent "
            "CAS loop).", ""]
    summary = ["## Per kernel: counters equal to the H200", "",
               "| kernel | counters | labsim before | source rules | SASS |", "| --- | ---: | ---: | ---: | ---: |"]
    cols = "| kernel | counter | H200 | labsim before | source rules | SASS |"
    diffs = ["## Every counter where labsim (before, source rules or SASS) differs from the H200", "", cols,
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    full = ["## Every non-zero counter", "", cols, "| --- | --- | ---: | ---: | ---: | ---: |"]
    for name in names:
        h = h200[name]
        a, b, c = rules.get(name, {}), before.get(name, {}), sass.get(name, {})
        note = " (timing-dependent CAS loop)" if name in TIMING else ""
        keys = [m for m in METRICS if m in h]
        summary.append(f"| `{name}`{note} | {len(keys)} | {_equal(b, h, keys)} | {_equal(a, h, keys)} | "
                       f"{_equal(c, h, keys)} |")
        for metric in keys:
            hv = h[metric]
            vals = [_cell(b, metric), _cell(a, metric), _cell(c, metric)]
            if not hv and all(not v or v == "refused" for v in vals):
                continue
            row = f"| `{name}`{note} | {short(metric)} | {hv} | " + " | ".join(
                f"{v}{'' if v == hv else ' ✗'}" for v in vals) + " |"
            full.append(row)
            if any(v != hv for v in vals):
                diffs.append(row)
    return "\n".join(head + summary + [""] + diffs + [""] + full) + "\n"


def markdown3(after3: dict) -> str:
    """The round-3 section of COMPARISON.md: issue 23's classes (round3/classes3.cu), both modes."""
    h200 = recorded3()
    rules, sass = after3["source-rules"], after3["sass"]
    names = [n for n in classes3_launches() if n in h200]

    def keys(n):
        return [m for m in METRICS if m in h200[n] and m not in DATA_DEPENDENT.get(n, {})]
    same = {mode: [n for n in names if all(_cell(res[n], m) == h200[n][m] for m in keys(n))]
            for mode, res in after3.items()}
    head = ["# Round 3: issue 23's kernel classes (`measurements/h200/round3/classes3.cu`)", "",
            "The same source, shapes and inputs as the H200 run (`round3/results.json`, block `classes3`; labsim "
            "compiles the file's device part and launches each kernel as `main` does). SASS: "
            "`tests/fixtures/sass/classes3/classes3.sass`. Counters that depend on how the hardware served contended "
            "atomics are left out: " + "; ".join(f"`{n}` {', '.join(short(m) for m in ms)} ({next(iter(ms.values()))})"
                                                   for n, ms in DATA_DEPENDENT.items()) + ".", "",
            f"Kernels with every compared counter equal to the H200: source rules **{len(same['source-rules'])} of "
            f"{len(names)}**, SASS **{len(same['sass'])} of {len(names)}**.", "",
            "| kernel | counters | source rules | SASS |", "| --- | ---: | ---: | ---: |"]
    diffs = ["", "## Round 3: every counter where labsim differs from the H200", "",
             "| kernel | counter | H200 | source rules | SASS |", "| --- | --- | ---: | ---: | ---: |"]
    for n in names:
        ks = keys(n)
        head.append(f"| `{n}` | {len(ks)} | {_equal(rules[n], h200[n], ks)} | {_equal(sass[n], h200[n], ks)} |")
        for m in ks:
            hv, a, b = h200[n][m], _cell(rules[n], m), _cell(sass[n], m)
            if a != hv or b != hv:
                diffs.append(f"| `{n}` | {short(m)} | {hv} | {a}{'' if a == hv else ' ✗'} | {b}{'' if b == hv else ' ✗'} |")
    return "\n".join(head + diffs) + "\n"


def markdown_challenges(rules: dict) -> str:
    """The challenge section of COMPARISON.md (source rules; SASS mode needs nvcc here, see the tests)."""
    h200 = recorded_challenges()
    rows = ["# Round 3: issue 29's challenge kernels (`round3/challenges/`, ncu at labsim's small shapes)", "",
            "labsim runs each file's host function on the recorded shape (source rules, the default).", "",
            "| kernel | shape | counters equal | differs (H200 / labsim) |", "| --- | --- | ---: | --- |"]
    for key, shapes in h200.items():
        for shape, h in shapes.items():
            got = rules[(key, shape)]
            keys = [m for m in METRICS if m in h]
            diff = "; ".join(f"{short(m)} {h[m]}/{_cell(got, m)}" for m in keys if _cell(got, m) != h[m])
            rows.append(f"| `{key}` | {shape} | {_equal(got, h, keys)} of {len(keys)} | {diff} |")
    return "\n".join(rows) + "\n"


def run_all(mode: str | None) -> dict:
    return {**run_labsim(mode), **run_gemm(mode)}


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write labsim's counters here ({mode: {kernel: counters}})")
    ap.add_argument("--markdown", help="write the comparison table here")
    ap.add_argument("--before", default=str(HERE / "labsim_before.json"))
    ap.add_argument("--write-sass-fixtures", action="store_true",
                    help="record every kernel's SASS into tests/fixtures/sass/ (needs nvcc and nvdisasm)")
    args = ap.parse_args(argv)
    if args.write_sass_fixtures:
        for path in write_sass_fixtures():
            print(path.relative_to(ROOT))
        return 0
    after = {mode: run_all(mode) for mode in MODES}
    after3 = {mode: run3_all(mode) for mode in MODES}
    if args.json:
        Path(args.json).write_text(json.dumps({"classes": after, "classes3": after3}, indent=1, sort_keys=True)
                                   + "\n", encoding="utf-8")
    if args.markdown:
        before = json.loads(Path(args.before).read_text(encoding="utf-8"))
        chal = {(k, s): run_challenge(k, s) for k, shapes in recorded_challenges().items() for s in shapes}
        Path(args.markdown).write_text(markdown(after, before) + "\n" + markdown3(after3) + "\n"
                                       + markdown_challenges(chal), encoding="utf-8")
    classes, gemm = recorded()
    h200 = {**classes, **gemm}
    for mode, results in after.items():
        for name, rec in results.items():
            if "refused" in rec:
                print(f"{name} [{mode}]: refused: {rec['refused']}")
                continue
            diff = [f"{short(k)} {h200[name][k]}/{rec[k]}" for k in METRICS if k in h200[name]
                    and h200[name][k] != rec[k]]
            print(f"{name} [{rec['counting']}]: {'OK' if not diff else 'H200/labsim: ' + '; '.join(diff)}")
    h3 = recorded3()
    for mode, results in after3.items():
        for name, rec in results.items():
            if "refused" in rec:
                print(f"{name} [{mode}]: refused: {rec['refused']}")
                continue
            diff = [f"{short(k)} {h3[name][k]}/{rec[k]}" for k in METRICS if k in h3[name]
                    and h3[name][k] != rec[k] and k not in DATA_DEPENDENT.get(name, {})]
            print(f"{name} [{rec['counting']}]: {'OK' if not diff else 'H200/labsim: ' + '; '.join(diff)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
