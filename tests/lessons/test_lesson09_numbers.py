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
from figures.lesson09_kernels import BLOCK_ROWS, TILE_DIM
from labsim.launch_records import min_wavefronts, phase_lanes
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


def test_transpose_table_before_the_exercise_has_no_fix():
    tab = lesson09.transpose_table(64, fixes=False)
    assert [r[0] for r in tab.data][2:] == ["tiled, float tile[32][32]"] and len(tab.data) == 3


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
    pads = (0, 1, 2, 3, 4, 8)
    tab = lesson09.layout_table(64, pads)
    assert len(tab.data) == len(pads) + 1
    for row, (pad, sw) in zip(tab.data, [(p, False) for p in pads] + [(0, True)]):
        assert row[1] == TILE_DIM * (TILE_DIM + pad) * 4 and row[2] == TILE_DIM * pad * 4
        assert row[3] == brute_column_wavefronts(32 + pad, 4, row_access=True, swizzle=sw)
        assert row[4] == wf_col(32 + pad, 4, swizzle=sw)
        if not sw:   # the rule the lesson states: conflict degree = gcd(stride in words, 32)
            assert row[5] == row[4]
        assert row[6] in RIGHT


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
    tab = lesson09.race_table(64)
    rows = tab.data
    (s_lock, s_adv, n_lock, n_adv) = rows
    assert s_lock[2:] == [0, 0] and s_adv[2:] == [0, 0]
    assert n_lock[2] > 0 and n_lock[3] == 0, "lockstep hides the race"
    assert n_adv[2] > 0 and n_adv[3] > 0, "the adversarial order exposes it"
    notes = tab.notes
    assert "tile[threadIdx.y + j][threadIdx.x] = input" in "".join(notes)    # the CUDA lines, not Python
    # one note per (kind, array, line pair), numbered as the exercise cell is (the file's + the %%writefile line)
    template = lesson09.lesson_source("TILE_DIM").splitlines()
    write = next(i for i, ln in enumerate(template, 1) if "tile[threadIdx.y + j][threadIdx.x] =" in ln) + 1
    read = next(i for i, ln in enumerate(template, 1) if "= tile[threadIdx.x][threadIdx.y + j]" in ln) + 1
    assert any(f"RAW（写后读）tile，单元格第 {write} 行 ↔ 第 {read} 行" in n for n in notes), notes
    for note in notes[0::2]:
        m = re.search(r"单元格第 (\d+) 行 ↔ 第 (\d+) 行：(.*)  ↔  (.*)$", note)
        assert m, note
        for num, code in ((m[1], m[3]), (m[2], m[4])):
            assert template[int(num) - 2].split("//")[0].strip() == code      # cell line n = file line n - 1
    # each pair's example, checked by hand: tile[r][c] is written by thread (c, r % 8) (row r = threadIdx.y + j)
    # and read by thread (r, c % 8) (tile[threadIdx.x][threadIdx.y + j]), in different warps of 32 x 8 threads
    for note in notes[1::2]:
        m = re.fullmatch(rf"  例如 block \(\d+, \d+, 0\) 里，线程 \((\d+), (\d+), 0\) 在第 {write} 行写 tile\[(\d+)\]\[(\d+)\]，"
                         rf"线程 \((\d+), (\d+), 0\) 在第 {read} 行读同一个元素，两者之间没有屏障。", note)
        assert m, note
        wx, wy, r, c, rx, ry = map(int, m.groups())
        assert (wx, wy) == (c, r % 8) and (rx, ry) == (r, c % 8) and (wy * 32 + wx) // 32 != (ry * 32 + rx) // 32


def test_recorded_races_parse_the_raw_file(tmp_path):
    raw = tmp_path / "s.txt"
    raw.write_text("##### plain runs: race\ntranspose_tiled_nosync 64x64: 7 of 4096 outputs wrong\n"
                   "##### compute-sanitizer --tool racecheck race 33 45\n"
                   "transpose_tiled_nosync 33x45: 5 of 1485 outputs wrong\n"
                   "##### compute-sanitizer --tool racecheck --racecheck-report hazard race 32 32 (first)\n"
                   "========= RACECHECK SUMMARY: 100 hazards displayed (40 errors, 8 warnings)\n")
    assert lesson09.recorded_wrong_outputs(raw) == {"plain": {(64, 64): (7, 4096)}, "racecheck": {(33, 45): (5, 1485)}}
    assert lesson09.recorded_hazards(raw) == {"errors": 40, "warnings": 8, "cross_warp": 10, "same_warp": 2}
    assert lesson09.recorded_hazards(tmp_path / "none.txt") is None


def test_hazard_table_against_a_brute_force_count():
    """labsim's races on one 32x32 tile = pairs (writer, reader) of different threads in different warps."""
    cross = same = 0
    for r in range(32):
        for c in range(32):
            writer, reader = (r % 8, c), (c % 8, r)        # (warp, lane): writer ty+j = r, tx = c
            if writer == reader:
                continue
            cross += writer[0] != reader[0]
            same += writer[0] == reader[0]
    rows = lesson09.hazard_table().data
    assert (rows[0][2], rows[1][2]) == (cross, same)
    assert lesson09.race_table(32).data[2][2] == cross        # race_count: different warps only
    if not isinstance(rows[0][1], str):   # recorded on the H200: its errors and warnings are these pairs
        assert (rows[0][1], rows[1][1]) == (cross, same)


def test_barrier_table():
    rows = lesson09.barrier_table(65, 45).data
    assert rows[0][1] in ("结果正确", "right")
    assert rows[1][1].startswith("DivergentBarrierError") and "单元格第 38 行" in rows[1][1]
    assert "错误" in rows[2][1] or "wrong" in rows[2][1]


def test_occupancy_table_against_the_preset():
    g = GPU
    launches = json.loads((lesson09.measurements_dir() / "results.json").read_text())["provenance"]["launches"] \
        if (lesson09.measurements_dir() / "results.json").is_file() else {}
    for row, pad in zip(lesson09.occupancy_table().data, (0, 1)):
        smem = 32 * (32 + pad) * 4
        by_threads = g.max_threads_per_sm // 256
        by_smem = g.smem_per_sm // (smem + g.smem_reserved_per_block)
        assert row[1:3] == [smem, smem + g.smem_reserved_per_block]
        assert (row[4], row[5]) == (by_threads, by_smem)
        regs = launches.get(f"transpose_tiled_pad{pad}_64x64", {}).get("launch__registers_per_thread")
        want = min(by_threads, by_smem, g.max_blocks_per_sm)
        if regs is not None:
            per_warp = -(-regs * 32 // g.reg_alloc_unit) * g.reg_alloc_unit
            want = min(want, g.regs_per_sm // (per_warp * 8))
            assert row[6] == g.regs_per_sm // (per_warp * 8)
        assert row[7] == want


def test_float4_table():
    rows = lesson09.float4_table((32, 33, 36, 40, 48)).data
    for row, ld in zip(rows, (32, 33, 36, 40, 48)):
        addr = [k * ld * 4 for k in range(32)]
        if ld % 4:
            assert row[4] == "—" and "Misaligned" in str(row[5])
            continue
        want = brute_bank_degrees(addr, [True] * 32, 16)[1]
        assert row[4] == want and row[3] * 4 == want      # gcd(stride in 16-byte units, 8) × the 4 minimum
    swz = rows[-1]
    addr = [(k * 32 + 4 * (0 ^ (k % 8))) * 4 for k in range(32)]
    assert swz[4] == brute_bank_degrees(addr, [True] * 32, 16)[1] == 4


def test_write_side_table():
    rows = lesson09.write_side_table(64).data
    for row, (side, pad) in zip(rows, [("read", 0), ("read", 1), ("write", 0), ("write", 1)]):
        col = wf_col(32 + pad, 4)
        row_access = brute_column_wavefronts(32 + pad, 4, row_access=True)
        assert row[2:4] == [4, 4] and row[6] in RIGHT
        assert (row[4], row[5]) == ((row_access, col) if side == "read" else (col, row_access))


def test_h200_kernels_table_reads_the_recording(tmp_path):
    rec = {"copy_64x64": {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 12,
                          "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 3}}
    (tmp_path / "r.json").write_text(json.dumps(rec))
    tab = lesson09.h200_kernels_table(False, tmp_path / "r.json")
    assert tab.data[0][1] == 4 and tab.data[0][2] == 4 and len(tab.data) == 3
    assert all("未记录" in str(r[1]) or "not recorded" in str(r[1]) for r in tab.data[1:])


def test_h200_kernels_agree_with_labsim():
    if not (lesson09.measurements_dir() / "results.json").is_file():
        pytest.skip("measurements/h200/results.json not recorded yet")
    for row in lesson09.h200_kernels_table().data:
        for h200, sim in zip(row[1::2], row[2::2]):
            assert h200 == sim, row


def test_bandwidth_table(tmp_path):
    missing = lesson09.bandwidth_table(path=tmp_path / "none.json")
    assert all(r[2] in ("（未记录）", "(not recorded)") for r in missing.data)
    assert not any("[33]" in r[0] for r in lesson09.bandwidth_table(False, tmp_path / "none.json").data)
    rec = {"meta": {"gpu": "H200"}, "records": [
        {"name": "copy", "n": 8192, "runs": 20, "median_ms": 1.0, "gbps_median": 4000.5, "gbps_min": 3990.0,
         "gbps_max": 4010.0, "dram_bytes_read": 1, "dram_bytes_write": 1},
        {"name": "copy", "n": 1024, "runs": 20, "median_ms": 0.1, "gbps_median": 2000.0, "gbps_min": 1.0,
         "gbps_max": 2.0, "dram_bytes_read": 1, "dram_bytes_write": 1}]}
    (tmp_path / "b.json").write_text(json.dumps(rec))
    rows = lesson09.bandwidth_table(path=tmp_path / "b.json").data
    copy = lesson09.BANDWIDTH_TEXT["copy"]
    assert rows[0][:3] == [copy, 1024, 2000] and rows[1][:3] == [copy, 8192, 4000]
    assert rows[0][3] == "1–2"


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
        ("8", "个lane"): phase_lanes(16),                                # a quarter-warp serves float4
        ("32", "个bank"): GPU.banks,
        ("32", "个不同的bank"): GPU.banks,
        ("32", "个字"): TILE_DIM * 4 // GPU.bank_bytes,
        ("33", "个字"): (TILE_DIM + 1) * 4 // GPU.bank_bytes,
        ("16", "个字"): TILE_DIM * 2 // GPU.bank_bytes,
        ("17", "个字"): (TILE_DIM + 2) * 2 // GPU.bank_bytes,
        ("2", "个wavefront"): min_wavefronts(8),
        ("4", "个wavefront"): min_wavefronts(16),
        ("32", "个wavefront"): brute_column_wavefronts(32, 4),          # a column of the unpadded tile
        ("8", "倍"): brute_sectors([4 * 256 * k for k in range(32)], [True] * 32, 4)
        // brute_sectors([4 * k for k in range(32)], [True] * 32, 4),   # naive store vs copy, sectors/request
        ("2", "路"): brute_column_wavefronts(34, 4),                    # stride 34: a 2-way conflict
        ("32", "路"): brute_column_wavefronts(32, 4),                   # the unpadded tile's column read
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
            if "常听到两种说法" in prose and key[1] == "路":   # quoting folklore in order to test it
                continue
            unchecked.append(f"line {ln}: {m.group(0)}")
    assert not unchecked, "numbers stated in prose that nothing derives: " + "; ".join(unchecked)


def test_external_numbers_are_labelled():
    prose = read_lesson(LESSON9).prose
    quoted = [t for _, t, divs in prose if any("外部资料" in d for d in divs)]
    assert any("developer.nvidia.com/blog" in t for t in quoted)
    # the numbers come from figures/data/harris_2013.json, shown by a cell inside the quotation
    text = LESSON9.read_text(encoding="utf-8")
    box = text[text.index("外部资料（引用）"):]
    box = box[:box.index("\n:::\n")]
    assert "figures.lessonkit.harris_table()" in box
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


def test_bandwidth_statements_hold_for_the_recording():
    """The prose orders the kernels by recorded bandwidth at n = 8192; check that order on the file itself."""
    p = lesson09.measurements_dir() / "bandwidth" / "results.json"
    if not p.is_file():
        pytest.skip("measurements/h200/bandwidth/results.json not recorded yet")
    bw = {r["name"]: r["gbps_median"] for r in json.loads(p.read_text())["records"] if r["n"] == 8192}
    text = LESSON9.read_text(encoding="utf-8")
    assert "n = 8192" in text
    assert bw["transpose_naive"] < bw["transpose_tiled_pad0"] < bw["copy"]      # before the exercise
    assert bw["transpose_tiled_pad1"] > 2 * bw["transpose_tiled_pad0"]          # "快了一倍多"
    assert min(bw["transpose_tiled_pad1"], bw["transpose_tiled_swizzle"]) > 0.9 * bw["copy"]   # "与 copy 相当"


def test_global_out_of_bounds_is_named_by_row_and_column():
    """Issue 28 item 14: a global out-of-bounds access names the element of the 2-D host array as (row, col), as
    the shared ones do, next to its flat index (decoded here with numpy, not labsim)."""
    from figures import lesson09
    rows = [r for r in lesson09.bounds_table().data if "OutOfBoundsError" in str(r[1])]
    assert rows
    for r in rows:
        m = re.search(r"(\w+)\[(\d+)\]\[(\d+)\] \(flat index (\d+)\) but \w+ has (\d+)×(\d+) = (\d+)", r[1])
        assert m, r[1]
        row, col, flat, d0, d1, size = (int(v) for v in m.groups()[1:])
        assert d0 * d1 == size and row * d1 + col == flat
        assert flat >= size and (row, col) == (flat // d1, flat % d1)     # past the last row: first index ≥ d0


def test_conflict_counter_table_and_its_prose():
    """Issue 28 item 12: at 8192² the H200 reports read bank conflicts for the padded and swizzled tiles that the
    address pattern does not have (labsim: one wavefront per read), while the Source page's per-instruction
    wavefronts equal their ideal; the prose says 十几万 conflicts, a few per cent above the model."""
    from figures import lesson09, recordings
    if recordings.load("bandwidth_details") is None:
        pytest.skip("bandwidth/details.json not recorded")
    rows = {r[0]: r for r in lesson09.conflict_counter_table().data}
    pad0, pad1, sw = (rows[label] for _, label, _, _ in lesson09.CONFLICT_KERNELS)
    for r in (pad0, pad1, sw):
        assert r[4] == r[2] - r[1], "ncu's conflicts are the wavefronts beyond one per instruction"
    assert pad0[3] == 32 * pad0[1] and pad1[3] == pad1[1] and sw[3] == sw[1]     # labsim: 32, 1, 1 per read
    for r in (pad1, sw):
        assert 100_000 <= r[4] < 200_000                                       # "十几万"
        assert 1.0 < float(r[5].rstrip("%")) < 10.0                            # "几个百分点"
    src = recordings.load("n8192")
    if src is not None:
        lds = [x for x in src["source_counters_8192"]["transpose_tiled_pad1"] if "LDS" in x["sass"]]
        assert all(x["wavefronts"] == x["wavefronts_ideal"] for x in lds) and pad1[6].split(" / ")[0] == pad1[6].split(" / ")[1]
    from lessonref import LESSON9
    text = LESSON9.read_text(encoding="utf-8")
    assert "本课程没有这样的 H200 记录" not in text and "Source 页" in text and "十几万" in text


def test_cache_table_and_its_prose():
    """Issue 28 item 13: the strided-read naive transpose beats the unpadded tiled one because the L1 serves the
    repeated sector lookups (L2 reads as copy's), while the strided write sends 8× copy's sectors to L2."""
    from figures import lesson09, recordings
    if recordings.load("bandwidth_details") is None:
        pytest.skip("bandwidth/details.json not recorded")
    rows = {name: r for (name, _), r in zip(lesson09.CACHE_KERNELS, lesson09.cache_table().data)}
    copy, naive, colread, pad0 = (rows[n] for n in ("copy", "transpose_naive", "transpose_naive_colread",
                                                    "transpose_tiled_pad0"))
    assert colread[1] == 8 * copy[1] and abs(colread[2] - copy[2]) <= 1          # "8 倍"; L2 reads as copy's
    assert naive[4] == 8 * copy[4] and naive[3] == naive[4]                       # every partial sector to L2
    assert colread[5] > pad0[5] > naive[5]

