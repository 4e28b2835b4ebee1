"""labsim against the H200 on issue 17's kernel classes (classes.cu, results.json), and lesson 10's GEMM.

Each kernel of classes.cu is compiled on labsim on its own (the file's helpers and macros, without the host
``main``), launched with the shape and buffers ``main`` uses, and its counters compared with the recording.

    .venv/bin/python measurements/h200/classes/compare.py                     # table on stdout
    .venv/bin/python measurements/h200/classes/compare.py --json out.json     # labsim's counters, for the table
    .venv/bin/python measurements/h200/classes/compare.py --markdown COMPARISON.md --before labsim_before.json

``labsim_before.json`` holds labsim's counters before issue 17 (counting model 1), made by this script's
``--json`` on commit 19f2df0; COMPARISON.md is generated from it, the recording and the current labsim.
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


def run_one(name: str) -> dict:
    """{"counting": mode, metric: value} of one kernel of classes.cu on labsim, or {"refused": message}."""
    import warnings

    import labsim.cuda as lc
    src, grid, block, args = kernel_source(name)
    arg = _buffers()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # untyped device bytes viewed as short/float: intended here
            res = lc.compile(src, "classes.cu").launch(name, grid, block, [arg(a) for a in args])
    except Exception as e:  # a refusal is a result of the comparison
        return {"refused": f"{type(e).__name__}: {e}".splitlines()[0][:200]}
    m = res.stats.metrics
    rec = {"counting": getattr(res.stats, "counting", "source")}
    for metric in METRICS:
        rec[metric] = int(m.get(metric, m.get(OLD_NAMES.get(metric, ""), 0)))
    return rec


def kernel_names(path: Path = HERE / "classes.cu") -> list[str]:
    return [x[0] for x in split_source(path.read_text(encoding="utf-8"))[2]]


def run_labsim() -> dict:
    """{kernel: run_one(kernel)} for every launch of classes.cu."""
    return {name: run_one(name) for name in kernel_names()}


def run_gemm() -> dict:
    """Lesson 10's kernel (the recorded gemm_tiled16 at 64³) and the recorded GEMM variants at 64³."""
    import labsim.cuda as lc
    src = (HERE.parent / "gemm" / "gemm_tiled.cuh").read_text(encoding="utf-8")
    out = {}
    for name, pad, bt, unroll1 in (("gemm_tiled16", 0, 0, 0), ("gemm_tiled16_pad", 1, 0, 0),
                                   ("gemm_tiled16_bt", 0, 1, 0), ("gemm_tiled32", 0, 0, 0),
                                   ("gemm_tiled32_bt", 0, 1, 0)):
        tile = 32 if "32" in name else 16
        s = src.replace("#define TILE 16", f"#define TILE {tile}").replace("#define PAD 0", f"#define PAD {pad}")
        s = s.replace("#define BT 0", f"#define BT {bt}")
        rng = np.random.default_rng(0)
        A, B = rng.random((64, 64), dtype=np.float32), rng.random((64, 64), dtype=np.float32)
        st = lc.compile(s, "gemm_tiled.cu").launch("gemm_tiled", (64 // tile, 64 // tile), (tile, tile),
                                                   (A, B, np.zeros((64, 64), np.float32), 64, 64, 64)).stats
        out[name] = {"counting": getattr(st, "counting", "source"),
                     **{k: int(st.metrics.get(k, 0)) for k in METRICS}}
    return out


def recorded() -> tuple[dict, dict]:
    classes = json.loads((HERE / "results.json").read_text(encoding="utf-8"))["kernels"]
    gemm = json.loads((HERE.parent / "gemm" / "results.json").read_text(encoding="utf-8"))["counters"]["64x64x64"]
    return classes, gemm


def markdown(after: dict, before: dict) -> str:
    classes, gemm = recorded()
    h200 = {**classes, **gemm}
    modes = ", ".join(sorted({r.get("counting", "?") for r in after.values() if "refused" not in r}))
    head = ["# labsim against the H200: issue 17's kernel classes", "",
            "Generated by `measurements/h200/classes/compare.py --markdown` (do not edit). H200: "
            "`classes/results.json` and `gemm/results.json` (64³); labsim before: counting model 1 "
            f"(`labsim_before.json`, made on commit 19f2df0); labsim after: counting model 2 ({modes}). ✗ marks a "
            "difference from the H200; \"refused\" means labsim rejected the kernel.", ""]
    summary = ["## Per kernel: counters equal to the H200", "", "| kernel | counters | labsim before | labsim after |",
               "| --- | ---: | ---: | ---: |"]
    diffs = ["## Every counter where labsim before or after differs from the H200", "",
             "| kernel | counter | H200 | labsim before | labsim after |", "| --- | --- | ---: | ---: | ---: |"]
    full = ["## Every non-zero counter", "", "| kernel | counter | H200 | labsim before | labsim after |",
            "| --- | --- | ---: | ---: | ---: |"]
    for name in list(classes) + [g for g in after if g.startswith("gemm")]:
        h = h200.get(name)
        if h is None:
            continue
        a, b = after.get(name, {}), before.get(name, {})
        note = " (timing-dependent CAS loop)" if name in TIMING else ""
        keys = [m for m in METRICS if m in h]
        ok_b = "refused" if "refused" in b else str(sum(b.get(m) == h[m] for m in keys))
        ok_a = "refused" if "refused" in a else str(sum(a.get(m) == h[m] for m in keys))
        summary.append(f"| `{name}`{note} | {len(keys)} | {ok_b} | {ok_a} |")
        for metric in keys:
            hv = h[metric]
            av = "refused" if "refused" in a else a.get(metric)
            bv = "refused" if "refused" in b else b.get(metric)
            if not hv and (not av or av == "refused") and (not bv or bv == "refused"):
                continue
            row = (f"| `{name}`{note} | {short(metric)} | {hv} | {bv}{'' if bv == hv else ' ✗'} | "
                   f"{av}{'' if av == hv else ' ✗'} |")
            full.append(row)
            if av != hv or bv != hv:
                diffs.append(row)
    return "\n".join(head + summary + [""] + diffs + [""] + full) + "\n"


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write labsim's counters here")
    ap.add_argument("--markdown", help="write the comparison table here")
    ap.add_argument("--before", default=str(HERE / "labsim_before.json"))
    args = ap.parse_args(argv)
    after = {**run_labsim(), **run_gemm()}
    if args.json:
        Path(args.json).write_text(json.dumps(after, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.markdown:
        before = json.loads(Path(args.before).read_text(encoding="utf-8"))
        Path(args.markdown).write_text(markdown(after, before), encoding="utf-8")
    classes, gemm = recorded()
    h200 = {**classes, **gemm}
    for name, rec in after.items():
        if "refused" in rec:
            print(f"{name}: refused: {rec['refused']}")
            continue
        diff = [f"{short(k)} {h200[name][k]}/{rec[k]}" for k in METRICS if k in h200[name]
                and h200[name][k] != rec[k]]
        print(f"{name} [{rec['counting']}]: {'OK' if not diff else 'H200/labsim: ' + '; '.join(diff)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
