"""Explanations computed from what labsim measured (never from a formula the student cannot see)."""
from __future__ import annotations

from typing import Any

import numpy as np


def conflict_explanation(sample: Any, value: int | None, element_bytes: int = 4) -> str:
    """Why one warp's transposed read needs several wavefronts: which lanes share a bank, from the sample."""
    if sample is None:
        return ""
    active = np.asarray(sample.active, dtype=bool)
    banks = np.asarray(sample.banks)[active]
    words = np.asarray(sample.words)[active]
    lanes = np.flatnonzero(active)
    used = len(set(banks.tolist()))
    text = f"采样的 warp（block {tuple(sample.block)}，warp {sample.warp}）里 {len(lanes)} 个 lane 只用到 {used} 个 bank"
    for b in sorted(set(banks.tolist())):
        mask = banks == b
        if len(set(words[mask].tolist())) > 1:
            pair = lanes[mask][:2]
            text += f"，例如 lane {pair[0]} 和 lane {pair[1]} 读 bank {b} 里的不同字"
            break
    if value is not None:
        stride_words = value * element_bytes // 4
        text += f"。第二维 {value} 让相邻两行相隔 {stride_words} 个 4 字节字，{stride_words} mod 32 = {stride_words % 32}"
    return text + "。"
