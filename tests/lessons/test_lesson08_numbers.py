"""Every number lesson 8 shows comes from labsim (checked here against a lane-by-lane brute force) or from a
recorded measurement; the numbers its prose states next to a unit are each derived here, not trusted."""
from __future__ import annotations

import json
import re

import pytest

from figref import brute_sectors
from lessonref import REPO, read_lesson

from figures import lesson08
from figures import lessonkit as kit
from labsim.gpus import get_gpu

LESSON8 = REPO / "lessons" / "lesson08_transpose_naive.qmd"
GPU = get_gpu("H200")
RIGHT = ("对", "right")
LANES = range(32)
FULL = [True] * 32


def brute_warp(addr_of_lane):
    """(sectors, efficiency %) of one full warp of float32 accesses, lane by lane."""
    addr = [addr_of_lane(k) for k in LANES]
    n = brute_sectors(addr, FULL, 4)
    return n, 100.0 * 32 * 4 / (n * 32)


def pct(v):
    return f"{v:.1f}".rstrip("0").rstrip(".") + "%"


# ---- tables before the exercise ------------------------------------------------------------------------------

def test_stride_table():
    for row in lesson08.stride_table().data:
        s = row[0]
        sectors, eff = brute_warp(lambda k: 4 * s * k)
        assert row[1:] == [4 * s, sectors, sectors * 32, 128, pct(eff)], row


def test_mapping_table_is_the_index_arithmetic():
    M, N = 70, 100
    tab = lesson08.mapping_table(M, N)
    for row in tab.data:
        bx, by = map(int, row[0].strip("()").split(", "))
        tx, ty = map(int, row[1].strip("()").split(", "))
        assert row[2] == (ty * 32 + tx) // 32 and row[3] == tx % 32
        for k, j in enumerate(range(0, 32, 8)):
            r, c = by * 32 + ty + j, bx * 32 + tx
            assert row[4 + k].startswith(f"({r}, {c})")
            assert (r < M and c < N) == ("越界" not in row[4 + k] and "outside" not in row[4 + k])


def test_copy_table():
    (row,) = lesson08.copy_table(64).data
    s, eff = brute_warp(lambda k: 4 * k)
    assert row[1:] == [s, s, pct(eff), pct(eff), 1.0, row[6]] and row[6] in RIGHT


def test_run_file_counts_the_lessons_copy_cell(tmp_path):
    """The editable copy kernel of the lesson, run from its cell's text: 4 sectors per request each way."""
    text = LESSON8.read_text(encoding="utf-8")
    body = text.split("%%writefile /tmp/08_copy.cu\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "08_copy.cu"
    path.write_text(body, encoding="utf-8")
    tab = lesson08.run_file(path, "launch_copy", 64, 64)
    s, eff = brute_warp(lambda k: 4 * k)
    assert [r[5] for r in tab.data] == [s, s] and [r[6] for r in tab.data] == [pct(eff)] * 2
    assert "等于输入" in tab.notes[0] or "equals" in tab.notes[0]
    assert lesson08.file_sector_maps(path, "launch_copy", 64, 64) is not None
    path.write_text(body.replace("output[row * N + col] = v;", "output[row * N + col + 1] = v;"), encoding="utf-8")
    assert "OutOfBoundsError" in lesson08.run_file(path, "launch_copy", 64, 64)


# ---- after the exercise --------------------------------------------------------------------------------------

def test_naive_table():
    n = 256
    copy, naive, colread = lesson08.naive_table(n).data
    row_s, row_eff = brute_warp(lambda k: 4 * k)            # 32 neighbours in one row
    col_s, col_eff = brute_warp(lambda k: 4 * n * k)        # one per row: stride n floats
    assert (row_s, col_s) == (4, 32)
    assert copy[1:5] == [row_s, row_s, pct(row_eff), pct(row_eff)]
    assert naive[1:5] == [row_s, col_s, pct(row_eff), pct(col_eff)]
    assert colread[1:5] == [col_s, row_s, pct(col_eff), pct(row_eff)]
    # bytes moved per useful byte: (load + store sectors) * 32 over 2 * 32 lanes * 4 bytes
    assert naive[5] == colread[5] == round((row_s + col_s) * 32 / 256, 2)
    assert all(r[6] in RIGHT for r in (copy, naive, colread))


def test_store_lane_table():
    M = N = 256
    tab = lesson08.store_lane_table(M, N)
    for k, row in enumerate(tab.data[:32]):
        assert row == [k, f"input[0][{k}]", 4 * k, 4 * k // 32, f"output[{k}][0]", 4 * M * k, 4 * M * k // 32]
    total = tab.data[32]
    assert total[3].startswith(f"{brute_sectors([4 * k for k in LANES], FULL, 4)} ")
    assert total[6].startswith(f"{brute_sectors([4 * M * k for k in LANES], FULL, 4)} ")


def _reference_outcome(fill, M, N):
    """What writing input (row, col) to output[fill(row, col)] does, element by element (no simulator):
    "right", "oob", or the (least, most) number of wrong elements (colliding writes may land in any order)."""
    writers = {}
    for row in range(M):
        for col in range(N):
            i = fill(row, col, M, N)
            if not 0 <= i < M * N:
                return "oob"
            writers.setdefault(i, set()).add((row, col))
    want = {i: (i % M, i // M) for i in range(M * N)}
    surely = sum(1 for i in range(M * N) if want[i] not in writers.get(i, set()))
    maybe = sum(1 for i in range(M * N) if writers.get(i, set()) != {want[i]})
    return "right" if maybe == 0 else (surely, maybe)


def test_shape_table():
    fills = {"col * M + row": lambda r, c, M, N: c * M + r,
             lesson08.SQUARE_ONLY_BLANK: lambda r, c, M, N: c * N + r,
             "row * M + col": lambda r, c, M, N: r * M + c}
    shapes = ((64, 64), (64, 96), (96, 64), (1, 2), (2, 1), (33, 47))
    tab = lesson08.shape_table(tuple(fills), shapes)
    for row, fill in zip(tab.data, fills.values()):
        for cell, (M, N) in zip(row[1:], shapes):
            want = _reference_outcome(fill, M, N)
            if want == "right":
                assert cell in RIGHT, (row[0], M, N, cell)
            elif want == "oob":
                assert cell.startswith(("越界", "out of bounds")), (row[0], M, N, cell)
            else:
                bad = int(re.search(r"(\d+)/", cell).group(1))
                assert cell.startswith(("错 ", "wrong ")) and want[0] <= bad <= want[1], (row[0], M, N, cell)
    # the square-only fill: right on every square shape, wrong or out of bounds on the others with N > 1
    luck = tab.data[1]
    assert luck[1] in RIGHT and all(c not in RIGHT for c, (M, N) in zip(luck[1:], shapes) if M != N and N > 1)


def test_bounds_table():
    rows = lesson08.bounds_table(65, 45).data
    assert rows[0][1] in ("结果正确", "right")
    for row in rows[1:]:
        assert row[1].startswith("越界") and ("input[" in row[1] or "output[" in row[1]), row


def test_block_shape_table():
    n = 256
    for row in lesson08.block_shape_table(n=n).data:
        bx = int(row[0].split("(")[1].split(",")[0])
        rows_per_warp = 32 // bx
        load = brute_sectors([4 * ((k // bx) * n + k % bx) for k in LANES], FULL, 4)
        store = brute_sectors([4 * ((k % bx) * n + k // bx) for k in LANES], FULL, 4)
        assert row[1:5] == [rows_per_warp, load, store, load + store]
        assert row[5] in RIGHT
    rows = {r[0]: r for r in lesson08.block_shape_table(n=n).data}
    best = min(r[4] for r in rows.values())
    # Q1's answer: (8, 32) and (4, 64) tie at 4 + 8 and 8 + 4; (32, 8) is 4 + 32
    assert {k for k, r in rows.items() if r[4] == best} == {"dim3(8, 32)", "dim3(4, 64)"} and best == 12
    raw = json.loads((REPO / "measurements/h200/round3/results.json").read_text(encoding="utf-8"))["transpose8"]
    for k, r in rows.items():
        bx, by = (int(v) for v in k[5:-1].split(", "))
        rec = [x for x in raw["timing"] if x["name"] == "transpose_naive_1e" and x["block"] == [bx, by]]
        assert r[6] == (round(rec[0]["gbps_median"]) if rec else "—")
    assert rows["dim3(8, 32)"][6] > 3 * rows["dim3(32, 8)"][6]          # what the answer says of the H200


def test_level_table_reads_round3():
    raw = json.loads((REPO / "measurements/h200/round3/results.json").read_text(encoding="utf-8"))["transpose8"]
    ncu = {x["name"]: x["metrics"] for x in raw["ncu"] if x["block"] == [32, 8]}
    tab = lesson08.level_table()
    for row, name in zip(tab.data, ("copy_restrict", "transpose_naive", "transpose_naive_colread")):
        m = ncu[name]
        assert row[3] == m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
        assert row[5] == m["lts__t_sectors_srcunit_tex_op_write.sum"]
        assert row[8] == round(m["dram__bytes_read.sum"] / 2**20)
        assert row[6] == round(32 * m["lts__t_sectors_srcunit_tex_op_write.sum"] / m["gpu__time_duration.sum"])
    text = str(lesson08.level_text())
    cp, nv = ncu["copy_restrict"], ncu["transpose_naive"]
    ratio = nv["lts__t_sectors_srcunit_tex_op_write.sum"] / cp["lts__t_sectors_srcunit_tex_op_write.sum"]
    assert ratio == 8 and "写 sector 是 copy 的 8 倍" in text
    assert f"从 DRAM 读了 {round(nv['dram__bytes_read.sum'] / 2**20)} MiB" in text
    assert f"copy 读了 {round(cp['dram__bytes_read.sum'] / 2**20)} MiB，正好是输入的大小" in text
    assert round(cp["dram__bytes_read.sum"] / 2**20) == 8192 * 8192 * 4 // 2**20
    # the prose: "两者的 L2 吞吐都接近峰值" and the same write request count (ncu counted both)
    for k in ("copy_restrict", "transpose_naive"):
        assert ncu[k]["lts__throughput.avg.pct_of_peak_sustained_elapsed"] > 80
    assert cp["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == nv["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
    q3 = {r[0]: r for r in lesson08.q3_table().data}
    assert len(q3) == 5 and all(r[1] != "未记录" for r in q3.values())


# ---- recorded H200 data and labsim's estimate ----------------------------------------------------------------

def test_ncu_table_reads_a_recording(tmp_path):
    rec = {k: {m: 1 for m in lesson08.NCU_METRICS} for k in ("copy_64x64", "transpose_naive_64x64")}
    rec["transpose_naive_64x64"][lesson08.ST_SECTORS] = 4096
    p = tmp_path / "results.json"
    p.write_text(json.dumps(rec))
    rows = {(r[0], r[1]): r for r in lesson08.ncu_table(p).data}
    st = rows[("transpose_naive_64x64", lesson08.ST_SECTORS)]
    assert st[3] == 4096 and st[4] in ("一致", "same")
    assert rows[("copy_64x64", lesson08.ST_SECTORS)][4] in ("不同", "differs")
    missing = lesson08.ncu_table(tmp_path / "none.json")
    assert all(r[4] == "" for r in missing.data) and missing.notes


def test_labsim_agrees_with_the_recorded_h200_counters():
    path = lesson08.measurements_dir() / "results.json"
    if not path.is_file():
        pytest.skip("measurements/h200/results.json not recorded")
    rows = lesson08.ncu_table(path).data
    recorded = [r for r in rows if not isinstance(r[3], str)]
    assert recorded and all(r[2] == r[3] for r in recorded), rows


def test_counts_per_element_do_not_depend_on_the_size():
    """labsim_estimate scales counts from 1024² to 8192²: valid because each warp request is the same."""
    for kind in ("copy", "naive", "colread"):
        per = []
        for n in (lesson08.COUNT_N, 512, 1024):
            res, *_ = lesson08.run_kernel(kind, n, n)
            per.append((res.gld_sectors / n ** 2, res.gst_sectors / n ** 2))
        assert per[0] == per[1] == per[2], kind


def _expected_estimate(load_sectors, store_sectors, gpu="H200"):
    """Effective bandwidth if every sector of a 32-element warp request crosses DRAM once at peak."""
    g = get_gpu(gpu)
    bytes_moved_per_elem = (load_sectors + store_sectors) * 32 / 32
    return 8 / bytes_moved_per_elem * g.dram_bandwidth / 1e9


def _fake_bandwidth(tmp_path, gbps):
    records = [{"name": name, "n": n, "runs": 20, "median_ms": 1.0, "gbps_median": gbps[name],
                "gbps_min": gbps[name] - 1, "gbps_max": gbps[name] + 1,
                "dram_bytes_read": n * n * 4 * (2 if name.endswith("colread") else 1),
                "dram_bytes_write": n * n * 4}
               for name, _ in lesson08.BANDWIDTH_KERNELS for n in lesson08.BANDWIDTH_SIZES]
    p = tmp_path / "results.json"
    p.write_text(json.dumps({"meta": {"gpu": "NVIDIA H200", "command": "bandwidth time N 20"}, "records": records}))
    return p


def test_bandwidth_table(tmp_path):
    absent = lesson08.bandwidth_table(tmp_path / "none.json")
    assert all(r[2] in ("（未记录）", "(not recorded)") for r in absent.data)
    want = {"copy": _expected_estimate(4, 4), "copy_restrict": _expected_estimate(4, 4),
            "transpose_naive": _expected_estimate(4, 32), "transpose_naive_colread": _expected_estimate(32, 4)}
    gbps = GBPS
    tab = lesson08.bandwidth_table(_fake_bandwidth(tmp_path, gbps))
    names = [name for name, _ in lesson08.BANDWIDTH_KERNELS for _ in lesson08.BANDWIDTH_SIZES]
    for row, name in zip(tab.data, names):
        assert row[2] == round(gbps[name]) and row[4] == round(want[name])
        assert row[5] == f"{want[name] / gbps[name]:.1f}×"
        if (name, int(row[1][:-1])) in lesson08.CALIBRATED:     # fitted on this run: marked, no ratio
            assert row[7] in ("（标定）", "(calibration)")
            continue
        assert row[7] == f"{row[6] / gbps[name]:.1f}×" or abs(float(row[7][:-1]) - row[6] / gbps[name]) < 0.06
    assert sum(r[7] in ("（标定）", "(calibration)") for r in tab.data) == len(lesson08.CALIBRATED)
    assert "bandwidth time N 20" in " ".join(tab.notes)


GBPS = {"copy": 3000.0, "copy_restrict": 3500.0, "transpose_naive": 500.0, "transpose_naive_colread": 900.0}


def _fake_details(tmp_path, n=8192):
    """ncu counters of one launch per kernel: copy's sectors, 8x L2 writes for the strided store."""
    base = n * n // 8                              # sectors of one n×n float32 pass
    runs = []
    for name, l2w, dram in (("copy_restrict", base, 2.0), ("transpose_naive", 8 * base, 2.4),
                            ("transpose_naive_colread", base, 2.0)):
        runs.append({"name": name, "n": n, "ncu": {
            lesson08.LD_SECTORS: base * (8 if name.endswith("colread") else 1),
            lesson08.ST_SECTORS: base * (8 if name == "transpose_naive" else 1),
            lesson08.L2_READ: base, lesson08.L2_WRITE: l2w, "dram__bytes_read.sum": dram / 2 * n * n * 4,
            "dram__bytes_write.sum": dram / 2 * n * n * 4, "gpu__time_duration.sum": 1000.0}})
    p = tmp_path / "details.json"
    p.write_text(json.dumps({"meta": {"ncu": "test"}, "runs": runs}))
    return p


def _bei(x: float) -> str:
    """A ratio as the lesson's sentences state it: one decimal, dropped when it is zero."""
    one = f"{x:.1f}"
    return (one[:-2] if one.endswith(".0") else one) + " 倍"


def test_estimate_error_sentence(tmp_path):
    assert "尚未记录" in lesson08.estimate_error_text(tmp_path / "none.json")
    text = lesson08.estimate_error_text(_fake_bandwidth(tmp_path, GBPS))
    est = {"copy": _expected_estimate(4, 4), "copy_restrict": _expected_estimate(4, 4),
           "transpose_naive": _expected_estimate(4, 32), "transpose_naive_colread": _expected_estimate(32, 4)}
    ratios = [est[k] / GBPS[k] for k in GBPS]
    assert _bei(min(ratios)) in text and _bei(max(ratios)) in text
    first, traffic = text.split("estimate_traffic")
    assert first.count("倍（") == 2 * len(lesson08.BANDWIDTH_SIZES)
    # estimate_traffic is judged without the runs its rates were calibrated on
    judged = [lesson08.labsim_estimate(k, n, traffic=True) / GBPS[k] for k in GBPS
              for n in lesson08.BANDWIDTH_SIZES if (k, n) not in lesson08.CALIBRATED]
    assert _bei(min(judged)) in traffic and _bei(max(judged)) in traffic
    assert "（（" not in text and "））" not in text and "）（" not in text


def test_colread_sentence(tmp_path):
    assert "尚未记录" in lesson08.colread_text(tmp_path / "none.json", tmp_path / "none2.json")
    text = lesson08.colread_text(_fake_bandwidth(tmp_path, GBPS), _fake_details(tmp_path))
    assert f"读合并、写跨步，500 GB/s）的 {900 / 500:.1f} 倍" in text and "copy 是 3500 GB/s" in text
    assert "写 sector 是 copy 的 8 倍" in text and "送到 L2 的读 sector 却和 copy 一样多" in text
    assert "本课" not in text and "倍于" not in text


def test_traffic_table(tmp_path):
    n = 8192
    rows = lesson08.traffic_table(n, _fake_details(tmp_path, n)).data
    per_req = {"copy": (4, 4), "naive": (4, 32), "colread": (32, 4)}
    for row, (_, sim) in zip(rows, lesson08.TRAFFIC_KERNELS):
        ld, st = per_req[sim]
        assert row[1:3] == [n * n // 32 * ld, n * n // 32 * st]       # one request per 32 elements
        assert row[3:5] == row[1:3]                                      # the fake recording agrees
    absent = lesson08.traffic_table(n, tmp_path / "none.json").data
    assert all(r[3] in ("（未记录）", "(not recorded)") for r in absent)


def test_labsim_equals_the_recorded_l1_sectors():
    details = lesson08.load_details()
    if not details:
        pytest.skip("measurements/h200/bandwidth/details.json not recorded")
    for row in lesson08.traffic_table().data:
        assert row[1:3] == row[3:5], row


def test_traffic_estimate_of_the_lessons_cuda_equals_the_python_kernels():
    """labsim.estimate_traffic on the lesson's CUDA (labsim.cuda) and on figures.h200's Python kernels agree."""
    from figures import h200
    rows = h200.bandwidth_comparison()
    if rows is None:
        pytest.skip("measurements/h200/bandwidth/results.json not recorded")
    mine = {name for name, _ in lesson08.BANDWIDTH_KERNELS}
    for r in rows:
        if r["name"] in mine:
            assert lesson08.labsim_estimate(r["name"], r["n"], traffic=True) == pytest.approx(r["traffic_gbps"])
            assert lesson08.labsim_estimate(r["name"], r["n"]) == pytest.approx(r["first_order_gbps"])


def test_recorded_bandwidth_if_present():
    data = lesson08.load_bandwidth()
    if not data:
        pytest.skip("measurements/h200/bandwidth/results.json not recorded yet")
    for name, _ in lesson08.BANDWIDTH_KERNELS:
        for n in lesson08.BANDWIDTH_SIZES:
            rec = lesson08._record(data, name, n)
            assert rec is not None, (name, n)
            assert rec["runs"] >= 20 and rec["gbps_min"] <= rec["gbps_median"] <= rec["gbps_max"]
            # Harris's definition: 2·n²·4 bytes over the median time
            assert rec["gbps_median"] == pytest.approx(2 * n * n * 4 / (rec["median_ms"] * 1e-3) / 1e9, rel=1e-3)
    assert data["meta"].get("command")


def test_harris_table():
    for row in lesson08.harris_table().data:
        name = "copy" if row[1].startswith("copy") else "transpose_naive"
        assert row[2] == {"M2050": {"copy": 105.2, "transpose_naive": 18.8},     # Harris's blog, 2013
                          "K20c": {"copy": 136.0, "transpose_naive": 55.3}}[row[0]][name]
        est = _expected_estimate(4, 4 if name == "copy" else 32, row[0])
        assert row[3] == round(est) and row[4] == f"{est / row[2]:.1f}×"
# ---- numbers and names in the prose ---------------------------------------------------------------------------

UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*(个\s*sector|个\s*lane|个线程|字节|个\s*warp|行|列|倍|%|GB/s|个\s*`float`|个元素)")


def _claims() -> dict[tuple[str, str], int]:
    """Each (number, unit) the prose may state, with the value it must equal, derived here."""
    row_s = brute_sectors([4 * k for k in LANES], FULL, 4)
    col_s = brute_sectors([4 * 1024 * k for k in LANES], FULL, 4)
    return {
        ("32", "字节"): GPU.sector_bytes,
        ("4", "字节"): 4,                            # sizeof(float)
        ("64", "字节"): 16 * 4,                       # a 16-float row segment (Q1)
        ("32", "个线程"): GPU.warp_size,
        ("256", "个线程"): 32 * 8,
        ("32", "个lane"): GPU.warp_size,
        ("8", "个lane"): GPU.sector_bytes // 4,
        ("4", "个sector"): row_s,
        ("32", "个sector"): col_s,
        ("2", "个sector"): brute_sectors([4 * k for k in range(16)] * 2, FULL, 4),
        ("1", "个sector"): brute_sectors([4 * k for k in range(8)] * 4, FULL, 4),
        ("8", "行"): 8,                              # BLOCK_ROWS
        ("1", "行"): 32 // 32, ("2", "行"): 32 // 16, ("4", "行"): 32 // 8,
        ("32", "列"): 32, ("16", "列"): 16, ("8", "列"): 8,
        ("4", "个元素"): 32 // 8,                     # per thread: TILE_DIM / BLOCK_ROWS
        ("2", "个元素"): 2,                           # the 1×2 counterexample's output
        ("32", "倍"): 32,
        ("16", "字节"): 4 * 4,                        # a 4-float row segment (Q1, block width 4)
        ("128", "字节"): 4 * GPU.sector_bytes,        # the L1 line a load miss allocates: 4 sectors (P2)
        ("32", "行"): GPU.warp_size,                  # a warp down a column (Q3)
        ("8", "倍"): col_s // row_s,                  # L2 write sectors of a strided vs a row store (Q3)                             # "not a multiple of 32": TILE_DIM
        ("0", "个warp"): lesson08._instr(lesson08.run_kernel("naive", 256, 256)[0], "st").sample.warp,
    }


def test_prose_numbers_are_derived():
    claims = _claims()
    lesson = read_lesson(LESSON8)
    unchecked = []
    for ln, text, divs in lesson.prose:
        if any("外部资料" in d for d in divs):
            continue
        prose = re.sub(r"`[^`]*`", "", text)
        for m in UNIT.finditer(prose):
            key = (m.group(1), re.sub(r"\s+", "", m.group(2)))
            if key not in claims:
                unchecked.append(f"line {ln}: {m.group(0)}")
    assert not unchecked, "numbers stated in prose that nothing derives: " + "; ".join(unchecked)


def test_external_numbers_are_labelled():
    for ln, text, divs in read_lesson(LESSON8).prose:
        if "GB/s" in text or re.search(r"\d+\.\d\s*GB", text):
            assert any("外部资料" in d for d in divs) or not re.search(r"\d", text.split("GB/s")[0][-12:]), \
                f"line {ln}: a bandwidth figure outside the labelled quotation"


def test_metrics_named_in_the_lesson_exist_on_the_h200():
    known = lesson08.measurements_dir() / "raw" / "query_metrics.txt"
    if not known.is_file():
        pytest.skip("no recorded ncu --query-metrics output")
    names = {ln.split()[0] for ln in known.read_text(encoding="utf-8").splitlines() if ln.strip()}
    text = LESSON8.read_text(encoding="utf-8")
    mentioned = set(re.findall(r"\b((?:l1tex|lts|dram|smsp)__[a-z_]+)(?:\.sum)?", text))
    assert mentioned
    for m in mentioned:
        base = m[:-4] if m.endswith(".sum") else m
        parts = base.split("/")
        assert parts[0] in names or any(base.startswith(n) for n in names), m


# ---- how the generated text reads (issue 27 item 15) -------------------------------------------------------------

SPURIOUS = (re.compile(r"\d\.\d*0\s*倍"),          # "8.00 倍", "2.0 倍": a zero decimal says nothing
            re.compile(r"\d\.\d{2,}\s*倍"),         # "4.18 倍": finer than the run-to-run spread
            re.compile(r"\d\.\d{2,}×"),             # the same in a table's ratio column
            re.compile(r"倍于"))                     # "8.00 倍于 copy": a translated construction
OPEN, CLOSE = "（(", "）)"


def _style_problems(text: str) -> list[str]:
    """What reads as translated in one generated string: spurious precision, brackets inside full-width
    brackets, ASCII double quotes around Chinese."""
    found = [m.group(0) for rx in SPURIOUS for m in rx.finditer(text)]
    stack = []
    for i, ch in enumerate(text):
        if ch in OPEN:
            if "（" in stack:
                found.append("nested: " + text[max(0, i - 20):i + 20])
            stack.append(ch)
        elif ch in CLOSE and stack:
            stack.pop()
    found += re.findall(r'"[^"]*[\u4e00-\u9fff][^"]*"', text)
    return found


def test_the_style_check_can_fail():
    for bad in ("本课的写有 8.00 倍于 copy 的 L2 写 sector", "只有 copy 的 1.00 倍",
                "4.18 倍（copy（Harris 的写法，指针无 __restrict__））", "估计 / 实测 4.18×", "标为 \"标定\""):
        assert _style_problems(bad), bad
    assert not _style_problems("约为 Harris 的写法（读合并、写跨步，545 GB/s）的 3.4 倍；是 copy 的 8 倍")


def _generated_texts():
    """Every sentence, caption, header, note and text cell figures.lesson08 generates for the lesson's page."""
    out = []
    for fn in ("level_text", "colread_text", "estimate_error_text"):
        out.append((fn, str(getattr(lesson08, fn)())))
    tables = {"mapping_table": lesson08.mapping_table(), "stride_table": lesson08.stride_table(),
              "naive_table": lesson08.naive_table(64), "store_lane_table": lesson08.store_lane_table(64, 64),
              "bounds_table": lesson08.bounds_table(), "shape_table": lesson08.shape_table(),
              "block_shape_table": lesson08.block_shape_table(n=256), "ncu_table": lesson08.ncu_table(),
              "bandwidth_table": lesson08.bandwidth_table(), "traffic_table": lesson08.traffic_table(),
              "level_table": lesson08.level_table(), "q3_table": lesson08.q3_table(),
              "harris_table": lesson08.harris_table()}
    for name, tab in tables.items():
        texts = [tab.caption or "", *tab.headers, *tab.notes] + [c for r in tab.data for c in r if isinstance(c, str)]
        out += [(name, x) for x in texts]
    return out


def test_generated_text_reads_as_chinese():
    """No 'x.00 倍', no two-decimal ratios, no brackets inside full-width brackets, no ASCII-quoted Chinese in
    what figures.lesson08 writes onto the page (the recorded runs, as the lesson shows them)."""
    problems = [f"{where}: {p}" for where, text in _generated_texts() for p in _style_problems(text)]
    assert not problems, "\n".join(problems)


def test_check_feedback_reads_as_chinese():
    """The lesson-8 check's wrong-mapping sentence (what the threads moved) follows the same rules."""
    from grading.exercises.lesson08.exercise import probe_text
    for blank in ("tx * TILE_DIM + ty", "tx * TILE_DIM * 2 + ty + j"):
        text = probe_text(blank, 64, 64)
        assert text and not _style_problems(text), text


def test_lesson_prose_reads_as_chinese():
    """The same rules on the page's own prose (code spans aside): no nested brackets, no ASCII-quoted Chinese."""
    problems = [f"line {ln}: {p}" for ln, text, _ in read_lesson(LESSON8).prose
                for p in _style_problems(re.sub(r"`[^`]*`", "", text))]
    assert not problems, "\n".join(problems)
