"""Table-driven lane patterns: one warp, one memory instruction, lane byte offsets and active lanes from a table.

    python measurements/h200/patterns/patterns.py write            # -> patterns.txt (read by patterns.cu)
    python measurements/h200/patterns/patterns.py parse RAW.csv     # ncu raw CSV -> results.json

The same table drives labsim in tests/labsim/test_h200_patterns.py, so the simulator sees exactly the
addresses the H200 saw. Standard library only (runs on the GPU machine too).
"""
from __future__ import annotations

import csv
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = (2, 4, 8, 16)
SPACES = ("shared_ld", "shared_st", "global_ld")
METRICS = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
)


def patterns() -> list[tuple[str, int, list[int], list[int]]]:
    """(name, element size, 32 byte offsets, 32 active flags)."""
    out = []
    lanes = range(32)
    rng = random.Random(2026)
    for s in SIZES:
        full = [1] * 32

        def add(name, offs, act=full):
            out.append((f"s{s}_{name}", s, [int(o) for o in offs], list(act)))

        add("contig", [k * s for k in lanes])
        add("broadcast", [0] * 32)
        add("reverse", [(31 - k) * s for k in lanes])
        add("pairs", [(k // 2) * s for k in lanes])
        add("mod4", [(k % 4) * s for k in lanes])
        add("mod8", [(k % 8) * s for k in lanes])
        add("mod16", [(k % 16) * s for k in lanes])
        add("mod8_far", [(k % 8) * s + (k // 8) * 1024 for k in lanes])
        add("quarter_same_bank", [(k % 8) * s + (k // 8) * 128 * (s // 4 or 1) * 4 for k in lanes])
        for st in (2, 3, 4, 8, 32):
            add(f"stride{st}", [k * st * s for k in lanes])
        for pad in range(5):
            row = (32 + pad) * s
            for col in (0, 1, 7):
                add(f"col{col}_pad{pad}", [k * row + col * s for k in lanes])
        add("half_active", [k * s for k in lanes], [1 if k < 16 else 0 for k in lanes])
        add("upper_half_active", [k * s for k in lanes], [1 if k >= 16 else 0 for k in lanes])
        add("quarter_active", [k * s for k in lanes], [1 if k < 8 else 0 for k in lanes])
        add("odd_active", [k * s for k in lanes], [k % 2 for k in lanes])
        add("lane0_only", [0] * 32, [1 if k == 0 else 0 for k in lanes])
        add("broadcast_half_active", [0] * 32, [1 if k < 16 else 0 for k in lanes])
        add("col0_pad0_half_active", [k * 32 * s for k in lanes], [1 if k < 16 else 0 for k in lanes])
        for r in range(3):
            add(f"random{r}", [rng.randrange(0, 4096 // s) * s for _ in lanes])
        if s == 4:
            add("xor_swizzle_col5", [(k * 32 + (5 ^ k)) * 4 for k in lanes])
    return out


def write(path: Path = HERE / "patterns.txt") -> None:
    lines = []
    for space in SPACES:
        for name, s, offs, act in patterns():
            lines.append(" ".join([space, name, str(s)] + [str(o) for o in offs] + [str(a) for a in act]))
    path.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} launches -> {path}")


def parse(csv_path: str, out: Path = HERE / "results.json") -> None:
    """Launch k of the CSV is line k of patterns.txt (the program launches them in file order)."""
    table = [ln.split() for ln in (HERE / "patterns.txt").read_text().splitlines() if ln.strip()]
    rows = []
    with open(csv_path, newline="") as f:
        lines = [ln for ln in f if ln.startswith('"')]
    reader = csv.reader(lines)
    header = next(reader)
    for row in reader:
        if not row or not row[0].strip():
            continue  # units row
        rows.append(dict(zip(header, row)))
    rows.sort(key=lambda r: int(r["ID"]))
    if len(rows) != len(table):
        raise SystemExit(f"{csv_path}: {len(rows)} launches profiled, patterns.txt has {len(table)}")
    results = {}
    for t, r in zip(table, rows):
        key = f"{t[0]}:{t[1]}"
        results[key] = {m: int(r[m].replace(",", "")) for m in METRICS if r.get(m, "").replace(",", "").isdigit()}
    out.write_text(json.dumps({"provenance": {"command": "bash measurements/h200/patterns/run.sh",
                                              "csv": Path(csv_path).name}, "results": results}, indent=1))
    print(f"{len(results)} results -> {out}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["write"]:
        write()
    elif sys.argv[1:2] == ["parse"]:
        parse(sys.argv[2])
    else:
        raise SystemExit(__doc__)
