"""Every number lesson 9 shows comes from labsim (checked here against a brute-force model) or from a recorded
measurement; the few numbers its prose states next to a hardware unit are each derived here, not trusted."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from figref import brute_bank_degrees, brute_column_wavefronts, brute_sectors
from lessonref import LESSON9, answer_only, read_lesson

from figures import lesson09
from figures.kernels import BLOCK_ROWS, TILE_DIM
from labsim.analysis import min_wavefronts
from labsim.gpus import get_gpu

GPU = get_gpu("H200")
RIGHT = ("对", "right")


def wf_col(ld, itemsize, col=0, swizzle=False):
    return brute_column_wavefronts(ld, itemsize, col=col, swizzle=swizzle)


# ---- the tables the lesson prints, against brute force ---------------------------------------------------

def test_transpose_table():
    n = 256
    tab = lesson09.transpose_table(n)
    rows = {r[0]: r for r in tab.data}
    lanes = range(32)
    contiguous = brute_sectors([4 * k for k in lanes], [True] * 32, 4)
    column_write = brute_sectors([4 * n * k for k in lanes], [True] * 32, 4)   # lane k writes row k
    assert contiguous == 4 and column_write == 32
    copy, naive, t32, t33, tsw = tab.data
    assert copy[1:3] == [contiguous, contiguous] and copy[6] in RIGHT
    assert naive[1:3] == [contiguous, column_write] and naive[6] in RIGHT
    for row, ld, sw in ((t32, 32, False), (t33, 33, False), (tsw, 32, True)):
        assert row[1:3] == [contiguous, contiguous]
        assert row[3] == brute_column_wavefronts(ld, 4, row_access=True, swizzle=sw)   # row store
        assert row[4] == wf_col(ld, 4, swizzle=sw)                                     # transposed load
        assert row[6] in RIGHT
    # global sectors relative to copy: naive moves (4 + 32) / (4 + 4) as much
    assert naive[5] == f"{(contiguous + column_write) / (2 * contiguous):.2f}×" and t33[5] == "1.00×"
    assert len(rows) == 5


def test_lane_bank_table_is_the_arithmetic():
    tab = lesson09.lane_bank_table((0, 1))
    for k, row in enumerate(tab.data[:32]):
        assert row[0] == k
        for off, ld in ((1, 32), (4, 33)):
            assert row[off] == f"tile[{k}][0]"
            assert row[off + 1] == k * ld and row[off + 2] == (k * ld) % GPU.banks
    total = tab.data[32]
    assert f"{wf_col(32, 4)} " in total[3] and f"{wf_col(33, 4)} " in total[6]


def test_layout_table():
    tab = lesson09.layout_table(64)
    for row, (pad, sw) in zip(tab.data, [(p, False) for p in range(5)] + [(0, True)]):
        assert row[1] == TILE_DIM * (TILE_DIM + pad) * 4 and row[2] == TILE_DIM * pad * 4
        assert row[3] == brute_column_wavefronts(32 + pad, 4, row_access=True, swizzle=sw)
        assert row[4] == wf_col(32 + pad, 4, swizzle=sw)
        assert row[5] in RIGHT


def test_q3_table():
    tab = lesson09.q3_table()
    expected = [   # (element bytes, addresses of the 32 lanes) built from each declaration by hand
        (4, [k * 32 * 4 for k in range(32)]),
        (4, [k * 33 * 4 for k in range(32)]),
        (2, [k * 32 * 2 for k in range(32)]),
        (2, [k * 33 * 2 for k in range(32)]),
        (2, [k * 33 * 2 + 2 for k in range(32)]),
        (2, [k * 34 * 2 for k in range(32)]),
        (8, [k * 32 * 8 for k in range(32)]),
        (8, [k * 33 * 8 for k in range(32)]),
        (16, [(k // 8 * 32 + 4 * (k % 8)) * 4 for k in range(32)]),
        (16, [(k // 8 * 33 + 4 * (k % 8)) * 4 for k in range(32)]),
        (16, [k * 32 * 4 for k in range(32)]),
        (16, [k * 33 * 4 for k in range(32)]),
        (16, [k * 36 * 4 for k in range(32)]),
        (4, [(k * 32 + (0 ^ k)) * 4 for k in range(32)]),
    ]
    assert len(tab.data) == len(expected)
    for row, (size, addr) in zip(tab.data, expected):
        if any(a % size for a in addr):          # the GPU faults on a misaligned access
            assert "MisalignedAddressError" in row[5] and row[3] == "—"
            continue
        want = brute_bank_degrees(addr, [True] * 32, size)[1]
        least = 32 * size // 128                  # a whole warp's bytes at 128 bytes per wavefront
        assert (row[3], row[4]) == (want, want - max(least, 1)), row


def test_half_table():
    tab = lesson09.half_table()
    for row, pad in zip(tab.data, (0, 1, 2)):
        per_col = [brute_column_wavefronts(32 + pad, 2, col=c) for c in range(32)]
        assert row[1:5] == per_col[:4]
        assert row[5] == round(sum(per_col) / 32, 2)


def test_race_table():
    rows = lesson09.race_table(64).data
    (s_lock, s_adv, n_lock, n_adv) = rows
    assert s_lock[2:] == [0, 0] and s_adv[2:] == [0, 0]
    assert n_lock[2] > 0 and n_lock[3] == 0, "lockstep hides the race"
    assert n_adv[2] > 0 and n_adv[3] > 0, "the adversarial order exposes it"
    notes = lesson09.race_table(64).notes
    assert "tile[threadIdx.y + j][threadIdx.x] = input" in "".join(notes)    # the CUDA lines, not Python


def test_bounds_table():
    rows = lesson09.bounds_table(65, 45).data
    assert rows[0][1] in ("结果正确", "right")
    for row in rows[1:]:
        assert row[1].startswith("OutOfBoundsError") and ("input" in row[1] or "output" in row[1])


def test_gpu_facts_are_the_preset():
    values = [r[1] for r in lesson09.gpu_facts().data]
    assert values == [GPU.warp_size, GPU.banks, GPU.bank_bytes, GPU.sector_bytes, GPU.smem_per_block]


# ---- the recorded H200 measurement -------------------------------------------------------------------------

def test_h200_table_reads_a_recording(tmp_path):
    rec = {k: {lesson09.WAVEFRONTS_LD: 5, lesson09.SHARED_LD_INSTR: 1} for k, *_ in lesson09.H200_CASES}
    rec["sld_f32_col_pad0_w1"] = {lesson09.WAVEFRONTS_LD: 32, lesson09.SHARED_LD_INSTR: 1}
    (tmp_path / "results.json").write_text(json.dumps(rec))
    rows = lesson09.h200_table(tmp_path / "results.json").data
    assert rows[0][3] == 32 and rows[0][4] in ("一致", "same")
    assert rows[1][3] == 5 and rows[1][4] in ("不同", "differs")
    missing = lesson09.h200_table(tmp_path / "none.json")
    assert all(r[4] == "" for r in missing.data) and missing.notes


def test_labsim_agrees_with_the_recorded_h200():
    path = lesson09.measurements_dir() / "results.json"
    if not path.is_file():
        pytest.skip("measurements/h200/results.json not recorded yet")
    rows = lesson09.h200_table(path).data
    recorded = [r for r in rows if not isinstance(r[3], str)]
    assert recorded, "results.json has none of the lesson's kernels"
    bad = [r for r in recorded if r[2] != r[3]]
    assert not bad, f"labsim and the H200 disagree (the lesson would print 'differs'): {bad}"


# ---- numbers in the prose ----------------------------------------------------------------------------------

UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*(个\s*wavefront|个\s*sector|个不同的\s*bank|个\s*bank|字节|个字|路|倍|%|"
                  r"GB/s|个\s*lane|个线程|个\s*warp)")


def _claims() -> dict[tuple[str, str], int]:
    """Each (number, unit) the prose may state, with the value it must equal, derived from labsim here."""
    f4 = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("w", "<f4")]).itemsize
    sample = lesson09.transposed_read(0)
    return {
        ("32", "字节"): GPU.sector_bytes,
        ("4", "字节"): GPU.bank_bytes,
        ("2", "字节"): np.dtype(np.float16).itemsize,
        ("8", "字节"): np.dtype(np.float64).itemsize,
        ("16", "字节"): f4,
        ("66", "字节"): (TILE_DIM + 1) * np.dtype(np.float16).itemsize,
        ("32", "个线程"): GPU.warp_size,
        ("8", "个线程"): BLOCK_ROWS,
        ("256", "个线程"): TILE_DIM * BLOCK_ROWS,
        ("8", "个warp"): TILE_DIM * BLOCK_ROWS // GPU.warp_size,
        ("0", "个warp"): sample.warp,
        ("32", "个lane"): GPU.warp_size,
        ("32", "个bank"): GPU.banks,
        ("32", "个不同的bank"): GPU.banks,
        ("32", "个字"): TILE_DIM * 4 // GPU.bank_bytes,
        ("33", "个字"): (TILE_DIM + 1) * 4 // GPU.bank_bytes,
        ("16", "个字"): TILE_DIM * 2 // GPU.bank_bytes,
        ("17", "个字"): (TILE_DIM + 2) * 2 // GPU.bank_bytes,
        ("2", "个wavefront"): min_wavefronts(8),
        ("4", "个wavefront"): min_wavefronts(16),
    }


def test_prose_numbers_are_derived():
    claims = _claims()
    for (num, unit), value in claims.items():
        assert int(num) == value, f"prose says {num} {unit}, labsim gives {value}"
    lesson = read_lesson(LESSON9)
    unchecked = []
    for ln, text, divs in lesson.prose:
        if any("外部资料" in d for d in divs):   # the labelled external quotation (Harris's blog)
            continue
        prose = re.sub(r"`[^`]*`", "", text)
        for m in UNIT.finditer(prose):
            key = (m.group(1), re.sub(r"\s+", "", m.group(2)))
            if key in claims:
                continue
            if "原参考答案" in prose and key[1] == "路":   # quoting the seed's claim in order to test it
                continue
            unchecked.append(f"line {ln}: {m.group(0)}")
    assert not unchecked, "numbers stated in prose that nothing derives: " + "; ".join(unchecked)


def test_external_numbers_are_labelled():
    prose = read_lesson(LESSON9).prose
    quoted = [t for _, t, divs in prose if any("外部资料" in d for d in divs)]
    assert any("developer.nvidia.com/blog" in t for t in quoted)
    assert any(re.search(r"\|\s*\d+\.\d\s*\|", t) for t in quoted)
    for ln, t, divs in prose:
        if "GB/s" in t or re.search(r"\|\s*\d+\.\d\s*\|", t):
            assert any("外部资料" in d for d in divs), f"line {ln}: a measured figure outside the quotation"


def test_half_verdict_in_prose_matches_the_counts():
    """The Q3 answer says +1 __half depends on the column's parity and +2 fixes every column: check it."""
    text = LESSON9.read_text(encoding="utf-8")
    assert "偶数列还是奇数列" in text and "+2 个元素" in text
    even = {brute_column_wavefronts(33, 2, col=c) for c in range(0, 32, 2)}
    odd = {brute_column_wavefronts(33, 2, col=c) for c in range(1, 32, 2)}
    assert even == {1} and odd == {2}
    assert {brute_column_wavefronts(34, 2, col=c) for c in range(32)} == {1}
    notes = " ".join(lesson09.half_table().notes)
    assert "偶数列 1" in notes and "奇数列 2" in notes or "even columns [1]" in notes


def test_misaligned_table():
    rows = lesson09.misaligned_table().data
    assert rows[-1][0] == "labsim" and rows[-1][1].startswith("MisalignedAddressError")
    # the float4 address of lane 0 in row 1: 33 floats in, not a multiple of 16 bytes
    assert f"{33 * 4:#x}" in rows[-1][1]
    if (lesson09.measurements_dir() / "raw" / "sanitizer.txt").is_file():
        assert any("misaligned" in r[1].lower() for r in rows[:-1])
