"""Run receipts: the public check prints one line that binds the submitted code to the results it produced.

    运行凭据 receipt lesson09 code=<12 hex> result=<12 hex> tool=<12 hex> sig=<8 hex>

``code`` hashes the exercise source's tokens (whitespace and comments do not count), ``result`` the public
checks' outcomes, ``tool`` the template, public checks and labsim version. The grader re-runs the public
checks on the submitted code and compares. This is a consistency check, not a signature against forgery:
a receipt that matches is, by construction, what that code produces.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from .ctokens import tokenize

PREFIX = "运行凭据 receipt"
_RX = re.compile(r"receipt (?P<ex>\w+) code=(?P<code>[0-9a-f]{12}) result=(?P<result>[0-9a-f]{12}) "
                 r"tool=(?P<tool>[0-9a-f]{12}) sig=(?P<sig>[0-9a-f]{8})")


def _h(text: str, n: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def code_hash(source: str) -> str:
    return _h(" ".join(t.text for t in tokenize(source)), 12)


def result_hash(summary: object) -> str:
    return _h(json.dumps(summary, sort_keys=True, ensure_ascii=False, default=str), 12)


def tool_hash(fingerprint: str) -> str:
    try:
        import labsim
        ver = getattr(labsim, "__version__", "0")
    except ImportError:
        ver = "none"
    return _h(f"{fingerprint}|{ver}", 12)


@dataclass(frozen=True)
class Receipt:
    exercise: str
    code: str
    result: str
    tool: str
    sig: str

    @property
    def valid_sig(self) -> bool:
        return self.sig == _sig(self.exercise, self.code, self.result, self.tool)

    def line(self) -> str:
        return f"{PREFIX} {self.exercise} code={self.code} result={self.result} tool={self.tool} sig={self.sig}"

    def __repr__(self) -> str:
        return f"Receipt({self.exercise}, code={self.code}, result={self.result})"


def _sig(*parts: str) -> str:
    return _h("receipt|" + "|".join(parts), 8)


def make_receipt(exercise: str, source: str, summary: object, fingerprint: str) -> Receipt:
    code, result, tool = code_hash(source), result_hash(summary), tool_hash(fingerprint)
    return Receipt(exercise, code, result, tool, _sig(exercise, code, result, tool))


def find_receipts(texts: list[str], exercise: str) -> list[Receipt]:
    """Every receipt of ``exercise`` in saved outputs, in notebook order."""
    found = []
    for text in texts:
        for m in _RX.finditer(text):
            if m.group("ex") == exercise:
                found.append(Receipt(m.group("ex"), m.group("code"), m.group("result"), m.group("tool"),
                                     m.group("sig")))
    return found


@dataclass
class ReceiptCheck:
    """``status``: none, ok, unverifiable (other tool version), stale_code, mismatch or tampered."""

    status: str
    message: str
    count: int = 0

    @property
    def flagged(self) -> bool:
        return self.status in ("stale_code", "mismatch", "tampered")

    def __repr__(self) -> str:
        return f"ReceiptCheck({self.status}, {self.count} receipts)"


def verify(receipts: list[Receipt], expected: Receipt) -> ReceiptCheck:
    """Compare every saved receipt with the one the grader's re-run produced."""
    if not receipts:
        return ReceiptCheck("none", "笔记本里没有公开检查的运行凭据（没有保存运行输出）。", 0)
    for r in receipts:
        if not r.valid_sig:
            return ReceiptCheck("tampered", "保存的运行凭据被改动过（校验位对不上）。", len(receipts))
    for r in receipts:
        if r.tool != expected.tool:
            continue
        if r.code != expected.code:
            return ReceiptCheck("stale_code", "保存的检查输出来自另一版代码：运行检查之后又改了练习单元格，"
                                              "输出不是这份代码的运行结果。", len(receipts))
        if r.result != expected.result:
            return ReceiptCheck("mismatch", "保存的检查输出与这份代码重新运行的结果不一致。", len(receipts))
    if all(r.tool != expected.tool for r in receipts):
        return ReceiptCheck("unverifiable", "运行凭据来自另一版检查工具，无法核对（不扣分）。", len(receipts))
    return ReceiptCheck("ok", "保存的检查输出与重新运行的结果一致。", len(receipts))
