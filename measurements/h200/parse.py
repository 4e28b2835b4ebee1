"""Turn Nsight Compute raw CSV (`ncu --import R.ncu-rep --csv --page raw`) into results.json.

Usage (from the repo root):
    python measurements/h200/parse.py                       # raw/ncu_main.csv (+ raw/ncu_extra.csv) -> results.json
    python measurements/h200/parse.py --csv A.csv [--csv B.csv] --versions V.txt -o OUT.json [--summary]

Output: {kernel_name: {metric: value}, "provenance": {...}}. Kernel names are ncu's "Kernel Name" without a
return type, namespace or parameter list; a name profiled twice gets "#2", "#3"... Values are int where
integral, float otherwise, None where ncu printed "n/a" or nothing. Metrics of several CSVs (main and extra
passes over the same program) are merged per kernel. Standard library only, so it also runs on the GPU machine.

The raw CSV layout this reads: optional lines before the header (==PROF== messages, comments), a header row
whose first cell is "ID", an optional units row (empty ID), then one row per kernel launch; numbers may carry
thousands separators ("1,024").
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
_NAME_COLUMNS = ("Kernel Name", "Function Name", "Name")
_METRIC = re.compile(r"^[a-z0-9]+__\w+(\.\w+)*$")  # e.g. l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
# The raw page also carries device__attribute_*, launch__*, nvlink__*... (strings among them). Kept per kernel:
# the counters' .sum rollups. Launch facts a simulator needs go to provenance.launches.
DEFAULT_KEEP = r"^(l1tex|smsp|sm|lts|dram)__\w+\.sum$"
_LAUNCH_FACTS = ("launch__registers_per_thread", "launch__shared_mem_per_block_static", "launch__thread_count")


class NcuCsvError(ValueError):
    """A CSV that is not ncu's raw page; the message names the file and line."""


@dataclass
class Launch:
    """One profiled kernel launch: its name, launch shape and metric values."""

    id: int
    name: str
    grid: str
    block: str
    metrics: dict[str, int | float | None] = field(default_factory=dict)
    facts: dict[str, int | float | str | None] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Launch(id={self.id}, name={self.name!r}, grid={self.grid!r}, block={self.block!r}, {len(self.metrics)} metrics)"


def kernel_base_name(raw: str) -> str:
    """'void (anonymous namespace)::k<1>(const float *, int)' -> 'k<1>'; plain C names pass through."""
    name = raw.strip()
    if name.startswith("void "):
        name = name[5:]
    depth = 0
    for i, ch in enumerate(name):  # cut the parameter list: the first '(' outside template brackets
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and not name.startswith("(anonymous", i):
            name = name[:i]
            break
    return name.replace("(anonymous namespace)::", "").strip()


def parse_value(text: str) -> int | float | None:
    """'1,024' -> 1024, '12.5' -> 12.5, 'n/a' or '' -> None; anything else raises ValueError."""
    t = text.strip().replace(",", "").replace("\u202f", "").replace(" ", "")
    if t == "" or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        return int(t)
    except ValueError:
        pass
    v = float(t)  # raises ValueError with the text in it
    return int(v) if v.is_integer() else v


def parse_ncu_csv(
    text: str, source: str = "<csv>", keep: str = DEFAULT_KEEP
) -> tuple[list[Launch], dict[str, str]]:
    """Launches of one raw-page CSV (metrics whose name matches `keep`), and each kept metric's unit."""
    keep_re = re.compile(keep)
    rows = list(csv.reader(io.StringIO(text)))
    header_at = next((i for i, r in enumerate(rows) if r and r[0].strip().strip('"') == "ID"), None)
    if header_at is None:
        raise NcuCsvError(f"{source}: no header row starting with \"ID\" (is this `ncu --csv --page raw` output?)")
    header = [h.strip() for h in rows[header_at]]
    name_col = next((header.index(c) for c in _NAME_COLUMNS if c in header), None)
    if name_col is None:
        raise NcuCsvError(f"{source}, line {header_at + 1}: header has none of the columns {_NAME_COLUMNS}")
    metric_cols = [i for i, h in enumerate(header) if _METRIC.match(h) and keep_re.search(h)]
    if not metric_cols:
        raise NcuCsvError(f"{source}, line {header_at + 1}: no metric column matches {keep!r}")
    col = {h: i for i, h in enumerate(header)}
    units: dict[str, str] = {}
    launches: list[Launch] = []
    for lineno, row in enumerate(rows[header_at + 1 :], start=header_at + 2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise NcuCsvError(f"{source}, line {lineno}: {len(row)} cells, header has {len(header)}")
        ident = row[0].strip()
        if not ident:  # units row
            units.update({header[i]: row[i].strip() for i in metric_cols if row[i].strip()})
            continue
        try:
            launch_id = int(ident.replace(",", ""))
        except ValueError as exc:
            raise NcuCsvError(f"{source}, line {lineno}: ID {ident!r} is not a number") from exc
        launch = Launch(
            id=launch_id,
            name=kernel_base_name(row[name_col]),
            grid=row[col["Grid Size"]].strip() if "Grid Size" in col else "",
            block=row[col["Block Size"]].strip() if "Block Size" in col else "",
        )
        for fact in _LAUNCH_FACTS:
            if fact in col:
                try:
                    launch.facts[fact] = parse_value(row[col[fact]])
                except ValueError:
                    launch.facts[fact] = row[col[fact]].strip()
        for i in metric_cols:
            try:
                launch.metrics[header[i]] = parse_value(row[i])
            except ValueError as exc:
                raise NcuCsvError(
                    f"{source}, line {lineno}, column {header[i]!r}: value {row[i]!r} is not a number"
                ) from exc
        launches.append(launch)
    return launches, units


def parse_versions(text: str) -> dict[str, str]:
    """Provenance fields from run.sh's versions.txt (`key: value` lines, nvidia-smi -q, tool banners)."""
    info: dict[str, str] = {}
    for key in ("date_utc", "command", "nvcc_flags", "host", "ncu_main_command", "ncu_extra_command"):
        m = re.search(rf"^{key}: (.*)$", text, re.M)
        if m:
            info[key] = m.group(1).strip()
    patterns = {
        "gpu": r"^\s*Product Name\s*:\s*(.+)$",
        "driver": r"^\s*Driver Version\s*:\s*(\S+)",
        "cuda_driver_api": r"^\s*CUDA Version\s*:\s*(\S+)",
        "ncu_version": r"Nsight Compute Command Line Profiler[\s\S]*?Version\s+(\S+(?:\s+\(build\s+\d+\))?)",
        "nvcc_version": r"Cuda compilation tools, release [^\n]*?(V[\d.]+)",
        "sanitizer_version": r"Compute Sanitizer[\s\S]*?Version\s+(\S+)",
    }
    for key, pat in patterns.items():
        m = re.search(pat, text, re.M)
        if m:
            info[key] = m.group(1).strip()
    return info


def _display_path(path: Path) -> str:
    """Repo-relative where possible, so results.json does not depend on where the repo lives."""
    try:
        return str(path.resolve().relative_to(HERE.parents[1]))
    except ValueError:
        return str(path)


def build_results(csv_paths: list[Path], versions_path: Path | None, keep: str = DEFAULT_KEEP) -> dict:
    """Merge the CSVs per kernel (launch order of the first CSV) and attach provenance."""
    results: dict[str, dict] = {}
    launches_info: dict[str, dict] = {}
    units: dict[str, str] = {}
    for path in csv_paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise NcuCsvError(f"{path}: cannot read ({exc.strerror})") from exc
        launches, u = parse_ncu_csv(text, str(path), keep)
        units.update(u)
        seen: dict[str, int] = {}
        for launch in launches:
            seen[launch.name] = seen.get(launch.name, 0) + 1
            key = launch.name if seen[launch.name] == 1 else f"{launch.name}#{seen[launch.name]}"
            results.setdefault(key, {}).update(launch.metrics)
            info = launches_info.setdefault(key, {"id": launch.id, "grid": launch.grid, "block": launch.block})
            info.update(launch.facts)
    provenance: dict = {
        "what": "Nsight Compute counters of measurements/h200/microbench.cu, one entry per kernel launch",
        "sources": [_display_path(p) for p in csv_paths],
        "units": units,
        "launches": launches_info,
    }
    if versions_path is not None:
        try:
            provenance.update(parse_versions(versions_path.read_text(encoding="utf-8", errors="replace")))
        except OSError as exc:
            raise NcuCsvError(f"{versions_path}: cannot read ({exc.strerror})") from exc
    if "provenance" in results:
        raise NcuCsvError("a kernel is named 'provenance', which would clash with the provenance block")
    results["provenance"] = provenance
    return results


def _summary(results: dict) -> str:
    short = {
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "ld_req",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "ld_sec",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "st_req",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "st_sec",
        "smsp__inst_executed_op_global_ld.sum": "gld_inst",
        "smsp__inst_executed_op_shared_ld.sum": "lds_inst",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "lds_wf",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "lds_bc",
        "smsp__inst_executed_op_shared_st.sum": "sts_inst",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "sts_wf",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "sts_bc",
    }
    lines = [f"{'kernel':32s} " + " ".join(f"{s:>8s}" for s in short.values())]
    for name, metrics in results.items():
        if name == "provenance":
            continue
        cells = []
        for m in short:
            v = metrics.get(m)
            cells.append(f"{'-' if v is None else v:>8}")
        lines.append(f"{name:32s} " + " ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="ncu raw CSV -> results.json")
    ap.add_argument("--csv", action="append", type=Path, help="ncu raw CSV (repeatable); default raw/ncu_main.csv "
                    "and raw/ncu_extra.csv if present")
    ap.add_argument("--versions", type=Path, help="run.sh's versions.txt; default raw/versions.txt if present")
    ap.add_argument("-o", "--output", type=Path, default=HERE / "results.json")
    ap.add_argument("--summary", action="store_true", help="print a per-kernel table of the main counters")
    ap.add_argument("--keep", default=DEFAULT_KEEP, help=f"regex of metric columns kept (default {DEFAULT_KEEP})")
    args = ap.parse_args(argv)
    csvs = args.csv or [p for p in (HERE / "raw" / "ncu_main.csv", HERE / "raw" / "ncu_extra.csv") if p.exists()]
    if not csvs:
        print(f"parse.py: no CSV given and none under {HERE / 'raw'}", file=sys.stderr)
        return 2
    versions = args.versions
    if versions is None and (HERE / "raw" / "versions.txt").exists():
        versions = HERE / "raw" / "versions.txt"
    try:
        results = build_results(csvs, versions, args.keep)
    except NcuCsvError as exc:
        print(f"parse.py: {exc}", file=sys.stderr)
        return 2
    args.output.write_text(json.dumps(results, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    n = len(results) - 1
    print(f"parse.py: {n} kernels from {', '.join(map(_display_path, csvs))} -> {_display_path(args.output)}")
    if args.summary:
        print(_summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
