"""
前置讲 P2 · 合并访存与矩阵转置（labsim 版）

要回答的问题
    全局内存的访问在 L1/L2 里以 32 字节的 sector 为粒度计数和搬运（Nsight Compute 的 sector 计数器数的就是它）。
    一个 warp 的 32 个线程执行同一条 load/store 时，硬件把它们落在的 sector 合并成一次请求：地址越集中，
    搬的 sector 越少。本脚本用 labsim 数出这些 sector：
    演示 1：一个 warp 的各种访问模式（连续、错位、跨步、广播、随机、更宽的元素类型）各要几个 sector；
    演示 2：矩阵转置的几种写法（copy 基线、朴素转置、共享内存分块、分块 + 填充、忘了 __syncthreads()），
           读和写分开数 sector 与效率，共享内存的写和读分开数 wavefront，再给出检测到的竞争和结果是否正确。

怎么读输出
    所有数字都来自 labsim 对每条 warp 指令的计数（与 Nsight Compute 的同名计数器一一对应），每次运行都一样。
    “显存时间”只按 sector 数 × 32 B ÷ 显存峰值带宽计算（把每个 sector 都当成显存流量）；“估计时间”取显存时间与
    共享内存时间（wavefront 数 ÷ 每个时钟能送出的 wavefront）中较大的一个，即假设两者完全重叠。估计和实测差多少、
    差在哪里，演示 2 的观察从 H200 的记录算给你看（8192² 上朴素转置的估计偏乐观：它低估了代价）。
    epoch：同一个 block 里两次 __syncthreads() 之间的一段执行（开头到第一次、最后一次到结尾也各算一段）。

运行
    python lessons/prelude/02_memory_coalescing.py          # 默认规模
    python lessons/prelude/02_memory_coalescing.py --quick  # 更小的矩阵
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from labsim import estimate_time, launch  # noqa: E402
from figures.console import print_header, print_observations, print_table  # noqa: E402
from labsim.model import sectors_per_warp  # noqa: E402

QUICK = "--quick" in sys.argv
TILE, BLOCK_ROWS = 32, 8   # Harris 的配置：每块 32×8 个线程负责 32×32 的一块，每个线程搬 4 个元素


# ---------------------------------------------------------------------------------------------------------
# 演示 1：一个 warp 的访问模式
# ---------------------------------------------------------------------------------------------------------

def h200_gbps(kernel: str, kw: dict, n: int) -> str:
    """The H200's recorded effective bandwidth (GB/s) for one of the script's transposes, or “未记录”
    (figures.recordings reads measurements/h200/ in the repo and its own copy in the student kit)."""
    # the H200's copy baseline is copy with __restrict__, as the transposes it is compared with are
    name = {"copy_kernel": "copy_restrict", "transpose_naive": "transpose_naive"}.get(kernel)
    if name is None:
        name = f"transpose_tiled_pad{kw.get('pad', 0)}"
    try:
        from figures.recordings import bandwidth_record
    except ImportError:
        return "未记录"
    hit = bandwidth_record(name, n)
    return f"{hit['gbps_median']:.0f}" if hit else "未记录"

def gather_kernel(blk, A, index_of):
    """每个线程读 A[index_of(全局线程号)]：同一个内核，换一个下标函数就是另一种访问模式。"""
    i = blk.bx * blk.bdx + blk.tx
    blk.load(A, index_of(i))


def access_patterns(n: int) -> list[tuple[str, np.ndarray, object]]:
    """演示 1 的各行：名称、被读的数组、下标函数。数组足够大，任何模式都不越界。"""
    big = 64 * n + 64
    f32 = np.zeros(big, dtype=np.float32)
    f64 = np.zeros(big, dtype=np.float64)
    v16 = np.zeros(4 * big, dtype=np.float32).view("V16")   # 16 字节一个元素，相当于 float4
    perm = np.random.default_rng(0).integers(0, big, size=n)
    return [
        ("连续：线程 i 读第 i 个 float32", f32, lambda i: i),
        ("错位 1 个元素：读第 i+1 个", f32, lambda i: i + 1),
        ("跨 2 个元素", f32, lambda i: 2 * i),
        ("跨 4 个元素", f32, lambda i: 4 * i),
        ("跨 8 个元素（32 B）", f32, lambda i: 8 * i),
        ("跨 32 个元素（128 B）", f32, lambda i: 32 * i),
        ("广播：全部读第 0 个", f32, lambda i: np.zeros_like(i)),
        ("随机下标", f32, lambda i: perm[i]),
        ("连续读 float64（8 B）", f64, lambda i: i),
        ("连续读 16 B（float4）", v16, lambda i: i),
    ]


def moved_per_request(idx: np.ndarray, itemsize: int) -> str:
    """Bytes one request moves (sectors x 32), counted per warp by labsim's model: one number, or the range
    when the warps' requests differ (a request always moves whole sectors)."""
    addr = (np.asarray(idx, dtype=np.int64) * itemsize).reshape(-1, 32)   # arrays start 256-byte aligned
    per = sectors_per_warp(addr, np.ones(addr.shape, bool), itemsize)
    lo, hi = int(per.min()) * 32, int(per.max()) * 32
    return f"{lo} B" if lo == hi else f"{lo}–{hi} B"


def demo1_patterns(n_blocks: int = 64, threads: int = 256) -> list[dict]:
    print_header("演示 1：一个 warp 读 32 个元素，要搬几个 32 字节的 sector？")
    n = n_blocks * threads
    rows, out = [], []
    for name, arr, index_of in access_patterns(n):
        st = launch(gather_kernel, grid=(n_blocks,), block=(threads,), args=(arr, index_of))
        per_req = st.gld_sectors / st.gld_instr
        asked = st.g_bytes_requested // st.gld_instr          # every request asks for the same bytes here
        rows.append([name, f"{per_req:.2f}", f"{asked} B", moved_per_request(index_of(np.arange(n)), arr.dtype.itemsize),
                     f"{st.coalescing_efficiency() * 100:.1f}%"])
        out.append({"pattern": name, "sectors_per_request": per_req, "stats": st})
    print_table(["访问模式（一个 warp 32 个线程）", "每个请求的 sector", "线程要的字节", "实际搬的字节（每请求）",
                 "合并效率"], rows)
    print_observations([
        "连续访问：32 个 float32 共 128 字节，正好落进 4 个对齐的 sector，一个字节都不浪费。",
        "错位一个元素：起点不再对齐到 sector（数组本身按 256 字节对齐），128 字节横跨 5 个 sector，效率 80%。",
        "跨度达到 8 个 float（32 字节）后，每个线程独占一个 sector：搬 1024 字节只用到 128 字节（12.5%）。",
        "广播只搬 1 个 sector；效率超过 100% 是因为 32 个线程要的是同一份 4 字节。随机下标几乎每个线程一个 sector："
        "有的请求 31 个、有的 32 个，所以“每个请求的 sector”是平均值，搬的字节给出范围（一个请求总是整数个 sector）。",
        "更宽的元素（float64、float4）连续读取时效率仍是 100%，而且一个请求搬 256 或 512 字节。",
    ])
    return out


# ---------------------------------------------------------------------------------------------------------
# 演示 2：矩阵转置
# ---------------------------------------------------------------------------------------------------------
def copy_kernel(blk, A, B, N):
    """基线 B = A：读写都按行连续。转置的目标是尽量接近它。"""
    x = blk.bx * TILE + blk.tx
    y = blk.by * TILE + blk.ty
    for j in range(0, TILE, BLOCK_ROWS):
        blk.store(B, (y + j) * N + x, blk.load(A, (y + j) * N + x))


def transpose_naive(blk, A, B, N):
    """B[x][y] = A[y][x]：读按行（合并），写按列——相邻线程的写地址相隔 N 个元素（不合并）。N 须是 32 的倍数。"""
    x = blk.bx * TILE + blk.tx
    y = blk.by * TILE + blk.ty
    for j in range(0, TILE, BLOCK_ROWS):
        blk.store(B, x * N + (y + j), blk.load(A, (y + j) * N + x))


def transpose_tiled(blk, A, B, N, pad=0, do_sync=True):
    """共享内存分块转置：按行读进 tile，同步，再按列读出 tile、按行写回 B。

    pad 是 tile 每行多留的元素数：0 时按列读是 32 路 bank 冲突，1 时 32 个线程落在 32 个不同的 bank。
    do_sync=False 用来演示忘了 __syncthreads() 的竞争。
    """
    width = TILE + pad
    tile = blk.shared(TILE * width, np.float32, name="tile")
    x = blk.bx * TILE + blk.tx
    y = blk.by * TILE + blk.ty
    for j in range(0, TILE, BLOCK_ROWS):
        blk.sstore(tile, (blk.ty + j) * width + blk.tx, blk.load(A, (y + j) * N + x))
    if do_sync:
        blk.sync()
    x = blk.by * TILE + blk.tx            # 转置后这一块在 B 中的位置：块坐标互换
    y = blk.bx * TILE + blk.ty
    for j in range(0, TILE, BLOCK_ROWS):
        blk.store(B, (y + j) * N + x, blk.sload(tile, blk.tx * width + blk.ty + j))


def transpose_cases() -> list[tuple[str, object, dict, bool, str]]:
    """演示 2 的各行：名称、内核、参数、期望转置（否则期望 copy）、调度方式。"""
    return [
        ("copy（基线，不是转置）", copy_kernel, {}, False, "lockstep"),
        ("朴素转置", transpose_naive, {}, True, "lockstep"),
        ("共享内存分块", transpose_tiled, {"pad": 0}, True, "lockstep"),
        ("共享内存分块 + 填充一列", transpose_tiled, {"pad": 1}, True, "lockstep"),
        ("分块 + 填充，忘了 sync（锁步调度）", transpose_tiled, {"pad": 1, "do_sync": False}, True, "lockstep"),
        ("分块 + 填充，忘了 sync（对抗调度）", transpose_tiled, {"pad": 1, "do_sync": False}, True, "adversarial"),
    ]


def efficiency(st, op: str) -> str:
    """Bytes asked / bytes moved of the global loads (op "ld") or stores ("st") alone."""
    ins = [s for s in st.instructions if s.space == "global" and s.op == op]
    moved = sum(s.cost for s in ins) * 32
    return f"{100 * sum(s.bytes_requested for s in ins) / moved:.1f}".rstrip("0").rstrip(".") + "%" if moved else "—"


def demo2_transpose(N: int) -> list[dict]:
    print_header(f"演示 2：{N}×{N} float32 矩阵转置（块 32×8 个线程，每块处理 32×32）")
    A = np.arange(N * N, dtype=np.float32).reshape(N, N)
    grid = (N // TILE, N // TILE)
    rows, out, t_copy, est_copy = [], [], None, None
    for name, fn, kw, transposes, schedule in transpose_cases():
        B = np.zeros_like(A)

        def kernel(blk, A_, B_, N_, fn=fn, kw=kw):
            fn(blk, A_, B_, N_, **kw)

        st = launch(kernel, grid=grid, block=(TILE, BLOCK_ROWS), args=(A, B, N), schedule=schedule,
                    name=fn.__name__)
        e = estimate_time(st)
        t_copy = t_copy or e["t_mem"]
        est_copy = est_copy or e["t_est"]
        ok = np.array_equal(B, A.T if transposes else A)
        sh = {s.op: s for s in st.instructions if s.space == "shared"}
        wf = {op: f"{sh[op].cost / sh[op].requests:.0f}" if op in sh else "—" for op in ("st", "ld")}
        rows.append([name, f"{st.gld_sectors:,}", f"{st.gst_sectors:,}", efficiency(st, "ld"), efficiency(st, "st"),
                     f"{st.coalescing_efficiency() * 100:.0f}%", wf["st"], wf["ld"],
                     f"{st.bank_conflict_factor():.1f}", f"{st.race_count:,}", f"{e['t_mem'] / t_copy:.2f}×",
                     f"{e['t_est'] / est_copy:.2f}×", "对" if ok else "错"])
        out.append({"case": name, "stats": st, "correct": ok})
    print_table(["内核", "读 sector", "写 sector", "读效率", "写效率", "合并效率（读写合计）", "写 tile wavefront/请求",
                 "读 tile wavefront/请求", "共享内存每请求 wavefront（读写平均）", "检测到的竞争",
                 "估计显存时间（相对 copy）", "估计时间 max(显存, 共享)（相对 copy）", "结果"], rows)
    print("\n同一组内核，labsim 按各 GPU 预设的峰值带宽估计的有效带宽（GB/s，读写字节 ÷ 估计时间；估计时间取显存与共享内存两者中较慢的一个），"
          "旁边是 Harris 的实测")
    print("（实测为外部来源，非本仓库测量：Mark Harris《An Efficient Matrix Transpose in CUDA C/C++》，"
          "NVIDIA 技术博客，1024×1024）")
    from importlib.resources import files   # the one labelled file of Harris's numbers (figures/data)
    gbps = json.loads((files("figures") / "data" / "harris_2013.json").read_text(encoding="utf-8"))["gbps"]
    pick = lambda key: (f"{gbps[key]['M2050']:.1f}", f"{gbps[key]['K20c']:.1f}")   # noqa: E731
    harris = {"copy_kernel": pick("copy"), "transpose_naive": pick("transpose_naive")}
    tiled_harris = {0: pick("transpose_tiled_pad0"), 1: pick("transpose_tiled_pad1")}
    side = []
    for (name, fn, kw, _, schedule), r in zip(transpose_cases()[:4], out[:4]):
        moved = 2 * N * N * 4
        est = [moved / estimate_time(r["stats"], gpu)["t_est"] / 1e9 for gpu in ("M2050", "K20c", "H200")]
        meas = harris.get(fn.__name__) or tiled_harris[kw["pad"]]
        h200 = [h200_gbps(fn.__name__, kw, n) for n in (1024, 8192)]
        side.append([name, f"{est[0]:.0f}", meas[0], f"{est[1]:.0f}", meas[1], f"{est[2]:.0f}", *h200])
    print_table(["内核", "M2050 估计", "M2050 实测", "K20c 估计", "K20c 实测", "H200 估计",
                 "H200 实测 1024²", "H200 实测 8192²"], side)
    print("（H200 实测：本仓库 measurements/h200/bandwidth/results.json，30 次计时的中位数；"
          "copy 一行的 H200 实测是 copy 加 __restrict__ 的版本（转置内核都用 __restrict__）；"
          "1024² 的矩阵留在 L2 里，比较显存带宽请看 8192²。）")
    naive, tiled0 = out[1]["stats"], out[2]["stats"]
    print_observations([
        f"朴素转置读的 sector 和 copy 一样，写的 sector 是 copy 的 {naive.gst_sectors / out[0]['stats'].gst_sectors:.0f} 倍："
        "相邻线程写的地址相隔一整行，每个线程独占一个 sector。",
        "分块之后，全局内存的读和写都回到 copy 的 sector 数：不规整的“转置”挪到了共享内存里完成。",
        f"合并效率要读写分开看：朴素转置读 {efficiency(naive, 'ld')}、写 {efficiency(naive, 'st')}；"
        f"读写合计的 {naive.coalescing_efficiency() * 100:.0f}% 是两者按搬的字节加权的结果，掩盖了问题只在写这一端。",
        f"不填充时按列读 tile 是 32 路 bank 冲突：写 tile 每请求 1 个 wavefront、读 tile 每请求 32 个；"
        f"种子脚本的“每请求 {tiled0.bank_conflict_factor():.1f} 个”是读写两种请求的平均，不是哪一条指令的真实代价。"
        "每行填充一个元素后读写都是 1 个。",
        "两个时间估计：“显存时间”只数全局 sector，分块不填充和 copy 一样（1.00×）；“估计时间”再算上共享内存"
        "（每个 wavefront 占 SM 的共享内存一个时钟，Fermi 两个），取两者中较慢的一个，于是 32 路冲突让它明显变慢。"
        "下面的有效带宽表用的是后者。",
        estimate_vs_h200(naive, out[0]["stats"], side),
        "忘了 __syncthreads()：锁步调度下每条语句先让所有 warp 执行完，结果碰巧是对的，但 labsim 报告了大量跨 warp 的"
        "“写后读”竞争；换成对抗调度（同一个 epoch——两次屏障之间的一段执行——里 warp 依次执行，后面的 warp 先跑），"
        "别的 warp 还没写进 tile 的元素就被读走了，结果是错的——真实 GPU 上同样可能发生。",
    ])
    return out


def estimate_vs_h200(naive, copy, side: list[list[str]]) -> str:
    """The observation on the naive transpose's estimate, from the recorded H200 numbers (or a note when the
    recording is absent): the estimate counts every sector as DRAM traffic at peak bandwidth."""
    try:
        from figures.recordings import bandwidth_record
    except ImportError:
        bandwidth_record = None
    rec = bandwidth_record("transpose_naive", 8192) if bandwidth_record else None
    base = bandwidth_record("copy_restrict", 8192) if bandwidth_record else None
    factor = naive.gst_sectors / copy.gst_sectors
    if not rec or not base:
        return (f"估计把朴素转置多出的 {factor:.0f} 倍写 sector 全部当作显存流量、按峰值带宽计价；"
                "它和 GPU 上的实测差多少，要有 H200 的记录才能比（本机没有 measurements/h200/bandwidth）。")
    est = float(side[1][5])                         # the naive row's H200 estimate, GB/s
    dram = (rec["dram_bytes_read"] + rec["dram_bytes_write"]) / (base["dram_bytes_read"] + base["dram_bytes_write"])
    return (f"H200 上（8192²）朴素转置估计 {est:.0f} GB/s、实测 {rec['gbps_median']:.0f} GB/s：估计偏乐观，"
            f"低估了它的代价。估计里的流量却偏多：它把 {factor:.0f} 倍的写 sector 全部当作显存流量，而 Nsight Compute "
            f"量到的显存读写只有 copy（__restrict__）的 {dram:.2f} 倍——多出的写 sector 要由 L1 和 L2 处理"
            "（第 8 课的计数器：L1 不合并相邻 warp 的写），L2 在写回显存前把它们凑齐。估计的两个前提"
            "（每个 sector 都是显存流量、按显存峰值带宽跑满）在这里都不成立：流量算多了，速度又算快了。"
            "计数器用来比较写法、定位问题，不用来预测秒数。")


def main() -> None:
    demo1_patterns(16 if QUICK else 64)
    demo2_transpose(256 if QUICK else 512)


if __name__ == "__main__":
    main()
