"""A stand-in for labsim.cuda's Program, for the grading tests that check pipeline logic.

It reads the tile's second dimension from the graded source (always the lesson-9 template with a filled
blank) and runs the template's kernel, written by hand in labsim's Python kernel API, with source lines
matching the template. Independent of grading's own parser: a plain regex and int() of simple blanks.
"""
from __future__ import annotations

import re

import numpy as np

import labsim
from labsim.errors import LabsimError


def _line(src: str, text: str) -> int:
    return next(i for i, ln in enumerate(src.splitlines(), 1) if text in ln)


class FakeProgram:
    def __init__(self, source: str) -> None:
        m = re.search(r"tile\[TILE_DIM\]\[\s*([^\]]*?)\s*\]", source)
        blank = m.group(1)
        expr = blank.replace("TILE_DIM", "32")
        if not re.fullmatch(r"[0-9+\-* ]+", expr):
            raise LabsimError(f"fake front end cannot read blank {blank!r}")
        self.ld = int(eval(expr, {"__builtins__": {}}))  # test-only: the test's own literal blanks
        self.lines = {k: _line(source, t) for k, t in {
            "decl": "__shared__ float tile", "load": "= input[row * N + col]", "sync": "__syncthreads();",
            "read": "= tile[threadIdx.x][threadIdx.y + j]"}.items()}
        self.calls = 0

    def call(self, host: str, inp, out, M: int, N: int, stream: int = 0, *, schedule: str = "lockstep"):
        assert host == "launch_transpose_tiled"
        self.calls += 1
        ld, L = self.ld, self.lines

        def transpose_tiled_kernel(blk, inp, out, M, N):
            tile = blk.shared((32, ld), np.float32, name="tile", line=L["decl"])
            x = blk.bx * 32 + blk.tx
            y = blk.by * 32 + blk.ty
            for j in range(0, 32, 8):
                row, col = y + j, x
                with blk.where((row < M) & (col < N)):
                    v = blk.load(inp, row * N + col, line=L["load"], name="input")
                    blk.sstore(tile, (blk.ty + j) * ld + blk.tx, v, line=L["load"], name="tile")
            blk.sync(line=L["sync"])
            x = blk.by * 32 + blk.tx
            y = blk.bx * 32 + blk.ty
            for j in range(0, 32, 8):
                row, col = y + j, x
                with blk.where((row < N) & (col < M)):
                    v = blk.sload(tile, blk.tx * ld + blk.ty + j, line=L["read"], name="tile")
                    blk.store(out, row * M + col, v, line=L["read"], name="output")

        grid = ((N + 31) // 32, (M + 31) // 32)
        return labsim.launch(transpose_tiled_kernel, grid, (32, 8), (inp, out, M, N), schedule=schedule)


def compile(source: str, filename: str = "x.cu") -> FakeProgram:  # noqa: A001 - mirrors labsim.cuda.compile
    return FakeProgram(source)
