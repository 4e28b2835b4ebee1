"""Summarise `cuobjdump -sass` output: the memory instructions of each kernel, in program order.

Usage: python measurements/h200/sass_table.py SASS_TXT [--markdown]

Each kernel becomes one line such as ``loop{STS} BAR LDS STG``: memory instructions (global, shared, atomics,
barriers) with their guard predicate (``@P0 LDG.E``), ``loop{...}`` around instructions between a backward
branch and its target, ``?EXIT``/``?BRA`` where a predicated exit or forward branch skips the rest for some warps.
Standard library only, so it also runs on the device machine.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field

_FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)")
_INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
_MEM = re.compile(r"^(LDG|STG|LDS|STS|LD|ST|ATOM|ATOMS|ATOMG|RED|REDG|LDGSTS|BAR|LDSM|STSM|ATOMS\.\w+)(\.|$)")
_BRA_TARGET = re.compile(r"0x([0-9a-f]+)")


@dataclass
class _Instr:
    addr: int
    guard: str
    op: str
    operands: str


@dataclass
class KernelSass:
    """Memory-relevant SASS of one kernel."""

    name: str
    instrs: list[_Instr] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"KernelSass({self.name!r}, {self.summary()!r})"

    def summary(self) -> str:
        """Memory instructions in program order, loops and guarded exits/branches marked."""
        loops: list[tuple[int, int]] = []  # (target, branch address) of backward branches
        for ins in self.instrs:
            if ins.op.startswith("BRA"):
                m = _BRA_TARGET.search(ins.operands)
                if m and int(m.group(1), 16) < ins.addr:
                    loops.append((int(m.group(1), 16), ins.addr))
        parts: list[str] = []
        for ins in self.instrs:
            for start, _end in loops:
                if ins.addr == start:
                    parts.append("loop{")
            if _MEM.match(ins.op):
                parts.append(f"{ins.guard}{ins.op}".strip() if ins.guard else ins.op)
            elif ins.op == "EXIT" and ins.guard:
                parts.append(f"{ins.guard}EXIT")
            elif ins.op.startswith("BRA") and ins.guard:
                m = _BRA_TARGET.search(ins.operands)
                if m and int(m.group(1), 16) > ins.addr:
                    parts.append(f"{ins.guard}BRA(fwd)")
            for _start, end in loops:
                if ins.addr == end:
                    parts.append("}")
        text = " ".join(parts)
        return text.replace("loop{ ", "loop{").replace(" }", "}")


def parse_sass(text: str) -> dict[str, KernelSass]:
    """Kernels of a `cuobjdump -sass` listing, by function name (first occurrence of each name wins)."""
    kernels: dict[str, KernelSass] = {}
    current: KernelSass | None = None
    for line in text.splitlines():
        fm = _FUNC.match(line)
        if fm:
            name = fm.group(1)
            current = None if name in kernels else KernelSass(name)
            if current is not None:
                kernels[name] = current
            continue
        if current is None:
            continue
        im = _INSTR.match(line)
        if im:
            guard = (im.group(2) or "").strip()
            current.instrs.append(
                _Instr(int(im.group(1), 16), guard + " " if guard else "", im.group(3), im.group(4))
            )
    return kernels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sass", help="output of cuobjdump -sass")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = ap.parse_args(argv)
    try:
        with open(args.sass, encoding="utf-8", errors="replace") as fh:
            kernels = parse_sass(fh.read())
    except OSError as exc:
        print(f"sass_table: cannot read {args.sass}: {exc}", file=sys.stderr)
        return 2
    if not kernels:
        print(f"sass_table: no 'Function :' sections in {args.sass}", file=sys.stderr)
        return 2
    if args.markdown:
        print("| kernel | memory SASS, program order |")
        print("| --- | --- |")
        for k in kernels.values():
            print(f"| `{k.name}` | `{k.summary()}` |")
    else:
        for k in kernels.values():
            print(f"{k.name:34s} {k.summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
