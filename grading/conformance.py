"""Conformance: compare a submission with the template token by token.

Only the blank may change; whitespace and comments are free. The result says what the blank holds, what
else was edited (with lines on both sides and the template region each edit touches), and whether the
blank is a valid integer constant expression.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields

from .constexpr import ConstExprError, evaluate_tokens
from .ctokens import Token, tokenize

BLANK_LINE = "blank_line"


@dataclass(frozen=True)
class BlankRules:
    """What the blank may hold and what the student reads when it does not (config ``[blank_rules]``).

    ``kind`` is "constexpr" (an integer constant expression over the template's constants, evaluated without
    eval) or "expression" (any tokens but the escape tokens; no value). Messages are ``str.format`` templates;
    their fields are named in the defaults below.
    """

    kind: str = "constexpr"
    # tokens that can only appear in a blank that escapes its place to add code
    escape: tuple[str, ...] = ("]", "[", ";", "{", "}", ",")
    unfilled: str = "填空还没有填写：把 `{blank}` 换成你的答案。"
    injected: str = "填空所在的那一行后面被加入了代码 `{code}`（第 {line} 行）：填空只能填一个表达式，不能追加代码。"
    escaped: str = ("填空里出现了 `{token}`（第 {line} 行）：填空只能填一个表达式，不能追加代码。"
                    "你写的是 `{text}`。")
    syntax: str = "填空 `{text}` 不是合法的整数常量表达式：{error}{where}。"
    out_of_range: str = "填空的值是 {value}，必须在 {lo}..{hi} 之间。"

    @classmethod
    def from_config(cls, cfg: dict) -> "BlankRules":
        known = {f.name for f in fields(cls)}
        unknown = set(cfg) - known - {"range"}           # range = [lo, hi] is read by Exercise.value_range
        if unknown:
            raise ValueError(f"[blank_rules]: unknown keys {sorted(unknown)}")
        kw = {k: (tuple(v) if k == "escape" else v) for k, v in cfg.items() if k in known}
        if kw.get("kind", "constexpr") not in ("constexpr", "expression"):
            raise ValueError(f"[blank_rules] kind must be 'constexpr' or 'expression', not {kw['kind']!r}")
        return cls(**kw)


@dataclass(frozen=True)
class Region:
    """A named part of the template (bounds checks, barrier, ...) given by the lines it spans."""

    id: str
    label: str
    lines: frozenset[int]
    veto: str | None = None

    def __repr__(self) -> str:
        return f"Region({self.id!r}, lines={sorted(self.lines)})"


@dataclass
class Edit:
    """One change outside the blank: template tokens ``old`` became ``new``."""

    op: str                       # "delete", "insert" or "replace"
    old: str
    new: str
    template_line: int
    submission_line: int
    regions: tuple[str, ...] = ()

    def describe(self, labels: dict[str, str], template_offset: int = 0) -> str:
        """In Chinese; ``template_offset``: lines above the template's first line where the student sees it
        (the exercise cell's %%writefile line); submission lines are already in the student's numbering."""
        where = "、".join(labels.get(r, r) for r in self.regions)
        where = f"（{where}）" if where else ""
        if self.op == "delete":
            return f"删除了模板第 {self.template_line + template_offset} 行的 `{self.old}`{where}"
        if self.op == "insert":
            return f"第 {self.submission_line} 行加入了 `{self.new}`{where}"
        return f"第 {self.submission_line} 行把 `{self.old}` 改成了 `{self.new}`{where}"


@dataclass
class Conformance:
    """What the submission did with the template."""

    blank_tokens: list[Token]
    blank_text: str               # canonical: tokens joined by single spaces
    value: int | None
    problem: str | None           # why the blank is not acceptable (Chinese), None when it is
    problem_kind: str | None      # "unfilled", "injection", "syntax", "range", "undecidable", "unrelated", None
    edits: list[Edit] = field(default_factory=list)
    line_map: dict[int, int] = field(default_factory=dict)  # template line -> submission line
    blank_source: str = ""        # the blank as the student wrote it (spacing and comments kept, one line)

    @property
    def blank_shown(self) -> str:
        """How messages echo the blank: as written."""
        return self.blank_source or self.blank_text

    @property
    def blank_ok(self) -> bool:
        return self.problem is None

    @property
    def touched_regions(self) -> set[str]:
        return {r for e in self.edits for r in e.regions}

    def __repr__(self) -> str:
        return (f"Conformance(blank={self.blank_text!r}, value={self.value}, problem={self.problem_kind}, "
                f"edits={len(self.edits)})")


def _join(toks: list[Token]) -> str:
    return " ".join(t.text for t in toks)


def _written(toks: list[Token]) -> str:
    """Tokens spaced as the source spaced them (a space where there was a gap or a line break)."""
    out = []
    for a, b in zip(toks, toks[1:] + [None]):
        out.append(a.text)
        if b is not None and (b.line != a.line or b.col > a.col + len(a.text)):
            out.append(" ")
    return "".join(out)


def _snippet(toks: list[Token], limit: int = 60) -> str:
    s = _written(toks)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def check_conformance(template: str, submission: str, *, blank: str, names: dict[str, int],
                      regions: list[Region] = (), value_range: tuple[int, int] | None = None,
                      rules: BlankRules | None = None) -> Conformance:
    """Align ``submission`` with ``template`` (which holds ``blank`` once) and judge the blank."""
    ttoks = tokenize(template)
    stoks = tokenize(submission)
    bi = next(i for i, t in enumerate(ttoks) if t.text == blank)
    prefix, suffix = ttoks[:bi], ttoks[bi + 1:]
    keys = [t.key for t in stoks]
    lcp = 0
    while lcp < min(len(prefix), len(stoks)) and keys[lcp] == prefix[lcp].key:
        lcp += 1
    lcs = 0
    while lcs < min(len(suffix), len(stoks) - lcp) and keys[len(stoks) - 1 - lcs] == suffix[-1 - lcs].key:
        lcs += 1
    edits: list[Edit] = []
    line_map: dict[int, int] = {}
    if lcp == len(prefix) and lcs == len(suffix):
        blank_toks = stoks[lcp: len(stoks) - lcs]
        for t, s in zip(prefix, stoks[:lcp]):
            line_map.setdefault(t.line, s.line)
        for t, s in zip(suffix, stoks[len(stoks) - lcs:]):
            line_map.setdefault(t.line, s.line)
    else:
        blank_toks, edits, line_map = _diff(ttoks, stoks, bi, regions)
        if not blank_toks or any(e.template_line == ttoks[bi].line for e in edits):
            blank_toks, edits, line_map = _recover_blank(ttoks, stoks, bi, regions) or (blank_toks, edits, line_map)
    line_map.setdefault(ttoks[bi].line, blank_toks[0].line if blank_toks else line_map.get(ttoks[bi].line, 0))
    conf = Conformance(blank_toks, _join(blank_toks), None, None, None, edits, line_map,
                       _as_written(submission, blank_toks))
    similarity = difflib.SequenceMatcher(a=[t.key for t in ttoks], b=keys, autojunk=False).ratio() \
        if edits else 1.0
    if similarity < 0.5:
        conf.problem_kind = "unrelated"
        conf.problem = (f"这段代码和练习模板差别太大（相同的词法单元不到一半）："
                        f"请提交练习单元格里的那份代码，只改 `{blank}` 处。")
        return conf
    _judge_blank(conf, blank, names, value_range, rules or BlankRules())
    return conf


def _as_written(source: str, toks: list[Token]) -> str:
    """The source text from the first to the last of ``toks``, as written, on one line."""
    if not toks:
        return ""
    lines = source.splitlines()
    first, last = toks[0], toks[-1]
    if not (0 < first.line <= len(lines) and 0 < last.line <= len(lines)) or "\n" in last.text:
        return _join(toks)
    if first.line == last.line:
        text = lines[first.line - 1][first.col - 1: last.col - 1 + len(last.text)]
    else:
        text = "\n".join([lines[first.line - 1][first.col - 1:], *lines[first.line: last.line - 1],
                          lines[last.line - 1][: last.col - 1 + len(last.text)]])
    text = " ".join(part.strip() for part in text.splitlines())
    # a token's text may differ from its spelling (a spliced backslash-newline): fall back to the tokens
    return text if text.replace(" ", "") and all(t.text in text for t in toks[:1] + toks[-1:]) else _join(toks)


INVISIBLE_NAMES = {"\u200b": "零宽空格", "\u200c": "零宽不连字", "\u200d": "零宽连字", "\u2060": "字连接符",
                   "\ufeff": "字节顺序标记", "\u00a0": "不换行空格", "\u3000": "全角空格"}


def _invisible(text: str) -> str | None:
    """The first character of ``text`` that shows as nothing or as a space but is not an ASCII space (nvcc
    rejects it; labsim's reader skips some of them), named for the student."""
    import unicodedata
    for ch in text:
        if ch in " \t\n\r":
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cf", "Cc", "Zs", "Zl", "Zp", "Co", "Cn") or ch in INVISIBLE_NAMES:
            name = INVISIBLE_NAMES.get(ch) or unicodedata.name(ch, "").lower() or "控制字符"
            return f"U+{ord(ch):04X}（{name}）"
    return None


def _common_prefix(a: list[Token], b: list[Token]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n].key == b[n].key:
        n += 1
    return n


def _lines_spanned(toks: list[Token]) -> int:
    return len({t.line for t in toks})


def _slide(opcodes: list[tuple], ttoks: list[Token], stoks: list[Token], bi: int) -> list[tuple]:
    """Move each pure deletion or insertion along the equal runs around it to where it spans the fewest
    lines: deleting ``__syncthreads();`` after ``x = y;`` may align as ``; __syncthreads ( )``, which would
    place the edit on the line before. Equal runs shrink or grow by what the edit gave up or took."""
    ops = [list(o) for o in opcodes]
    for k, o in enumerate(ops):
        op, i1, i2, j1, j2 = o
        if op not in ("delete", "insert") or k == 0 or k == len(ops) - 1:
            continue
        prev, nxt = ops[k - 1], ops[k + 1]
        if prev[0] != "equal" or nxt[0] != "equal":
            continue
        seq, a, b = (ttoks, i1, i2) if op == "delete" else (stoks, j1, j2)
        lo, hi = (prev[1], nxt[2]) if op == "delete" else (prev[3], nxt[4])
        cands = [0]
        d = 0
        while a + d - 1 >= lo and seq[a + d - 1].key == seq[b + d - 1].key:
            d -= 1
            cands.append(d)
        d = 0
        while b + d < hi and seq[a + d].key == seq[b + d].key:
            d += 1
            cands.append(d)
        if op == "delete":        # the blank itself must stay in an equal run of this alignment
            cands = [c for c in cands if not i1 + c <= bi < i2 + c]
        if not cands:
            continue
        best = min(cands, key=lambda c: (_lines_spanned(seq[a + c:b + c]), abs(c)))
        if best:
            o[1], o[2], o[3], o[4] = i1 + best, i2 + best, j1 + best, j2 + best
            prev[2], prev[4] = prev[2] + best, prev[4] + best
            nxt[1], nxt[3] = nxt[1] + best, nxt[3] + best
    return [tuple(o) for o in ops if o[0] != "equal" or o[2] > o[1]]


def _edit_cost(tkeys: list, skeys: list) -> int:
    """Tokens deleted plus tokens inserted by the best alignment of the two key lists."""
    sm = difflib.SequenceMatcher(a=tkeys, b=skeys, autojunk=False)
    return len(tkeys) + len(skeys) - 2 * sum(m.size for m in sm.get_matching_blocks())


def _recover_blank(ttoks: list[Token], stoks: list[Token], bi: int, regions: list[Region]):
    """When the blank's own line was edited too (a guard around the blank deleted), the token alignment may
    lend the blank's tokens to the edit. Try every span of the submission that sits where the blank does
    (after the token before the blank, up to the token after it at the same bracket depth) and keep the one
    that leaves the fewest template tokens edited; None when none beats the plain alignment or the edits would
    reach into the blank."""
    if bi == 0 or bi + 1 >= len(ttoks) or len(stoks) > 4 * len(ttoks):
        return None
    tkeys, skeys = [t.key for t in ttoks], [t.key for t in stoks]
    before, after = ttoks[bi - 1].key, ttoks[bi + 1].key
    best, best_cost = None, _edit_cost(tkeys[:bi] + tkeys[bi + 1:], skeys) + 1
    for j in [j + 1 for j, k in enumerate(skeys) if k == before][:32]:
        depth, end = 0, None
        for q in range(j, len(stoks)):
            text = stoks[q].text
            if depth == 0 and skeys[q] == after:
                end = q
                break
            depth += (text in "([{") - (text in ")]}")
            if depth < 0:
                break
        if end is None or end == j:
            continue
        cost = _edit_cost(tkeys[:bi] + skeys[j:end] + tkeys[bi + 1:], skeys)
        if cost < best_cost:
            best, best_cost = (j, end), cost
    if best is None:
        return None
    j, end = best
    blank_line = ttoks[bi].line
    filled = ttoks[:bi] + [Token(t.kind, t.text, blank_line, t.col) for t in stoks[j:end]] + ttoks[bi + 1:]
    span = range(bi, bi + end - j)
    sm = difflib.SequenceMatcher(a=[t.key for t in filled], b=skeys, autojunk=False)
    edits: list[Edit] = []
    line_map: dict[int, int] = {}
    for op, i1, i2, j1, j2 in _slide(sm.get_opcodes(), filled, stoks, bi):
        if op == "equal":
            for t, s in zip(filled[i1:i2], stoks[j1:j2]):
                line_map.setdefault(t.line, s.line)
            continue
        if any(i in span for i in range(i1, i2)) or (op == "insert" and span.start < i1 < span.stop):
            return None
        edits.append(_edit(op, filled[i1:i2], stoks[j1:j2], filled, stoks, j1, regions, blank_line, at=i1))
    return stoks[j:end], edits, line_map


def _diff(ttoks: list[Token], stoks: list[Token], bi: int, regions: list[Region]):
    sm = difflib.SequenceMatcher(a=[t.key for t in ttoks], b=[t.key for t in stoks], autojunk=False)
    blank_toks: list[Token] = []
    edits: list[Edit] = []
    line_map: dict[int, int] = {}
    blank_line = ttoks[bi].line
    for op, i1, i2, j1, j2 in _slide(sm.get_opcodes(), ttoks, stoks, bi):
        if op == "equal":
            for t, s in zip(ttoks[i1:i2], stoks[j1:j2]):
                line_map.setdefault(t.line, s.line)
            continue
        if i1 <= bi < i2:
            # the blank sits in this change; template tokens around it that changed too are edits
            before, after, new = ttoks[i1:bi], ttoks[bi + 1:i2], stoks[j1:j2]
            lo = _common_prefix(before, new)
            hi = _common_prefix(after[::-1], new[lo:][::-1])
            blank_toks = new[lo:len(new) - hi]
            rest = before[lo:] + after[:len(after) - hi]
            if rest:
                edits.append(_edit("delete", rest, [], ttoks, stoks, j1, regions, blank_line))
            continue
        edits.append(_edit(op, ttoks[i1:i2], stoks[j1:j2], ttoks, stoks, j1, regions, blank_line, at=i1))
    return blank_toks, edits, line_map


def _edit(op, old, new, ttoks, stoks, j1, regions, blank_line, at=None) -> Edit:
    if old:
        tline = old[0].line
        touched = {r.id for r in regions for t in old if t.line in r.lines}
    else:
        i = at if at is not None else 0
        left = ttoks[i - 1] if i > 0 else None
        right = ttoks[i] if i < len(ttoks) else None
        tline = (left or right).line
        # an insertion changes a region only when it lands inside it (both neighbours in the region)
        touched = {r.id for r in regions if left and right and left.line in r.lines and right.line in r.lines}
        if left is not None and left.line == blank_line:
            touched.add(BLANK_LINE)       # code added on the blank's own line, after the declaration
    sline = new[0].line if new else (stoks[j1 - 1].line if 0 < j1 <= len(stoks) else tline)
    shown_old, shown_new = old, new
    if op == "replace" and at is not None and len(old) <= 2 and len(new) <= 2:
        # a one-token change ("<" to "<=") says little, and two of them on one line read the same: show each
        # with its neighbours on the line ("row < M" to "row <= M")
        i2, j2 = at + len(old), j1 + len(new)
        left = [t for t in ttoks[max(at - 1, 0):at] if t.line == old[0].line]
        right = [t for t in ttoks[i2:i2 + 1] if t.line == old[-1].line]
        sleft = [t for t in stoks[max(j1 - 1, 0):j1] if t.line == new[0].line]
        sright = [t for t in stoks[j2:j2 + 1] if t.line == new[-1].line]
        shown_old, shown_new = left + old + right, sleft + new + sright
    return Edit(op, _snippet(shown_old), _snippet(shown_new), tline, sline, tuple(sorted(touched)))


def _escapes(toks: list[Token], escape: frozenset | set | tuple) -> list[Token]:
    """Tokens that close the array or start new code; a comma inside parentheses is an argument list or the
    comma operator, still one expression."""
    out, depth = [], 0
    for t in toks:
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth = max(0, depth - 1)
        if t.text in escape and not (t.text == "," and depth > 0):
            out.append(t)
    return out


def _shown_snippet(conf: Conformance, limit: int = 60) -> str:
    s = conf.blank_shown
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _judge_blank(conf: Conformance, blank: str, names: dict[str, int],
                 value_range: tuple[int, int] | None, rules: BlankRules) -> None:
    toks = conf.blank_tokens
    if not toks or any(t.text == blank for t in toks):
        conf.problem_kind = "unfilled"
        conf.problem = rules.unfilled.format(blank=blank)
        return
    hidden = _invisible(conf.blank_source + "".join(t.text for t in toks))
    if hidden:
        conf.problem_kind = "syntax"
        conf.problem = (f"填空里有一个看不见的字符 {hidden}：nvcc 不认它，编译会失败。删掉它（常见于从网页或聊天软件"
                        "复制来的代码），只用普通空格。")
        return
    escape = _escapes(toks, rules.escape)
    added = [e for e in conf.edits if e.op == "insert" and BLANK_LINE in e.regions]
    if added and not escape:
        conf.problem_kind = "injection"
        conf.problem = rules.injected.format(code=added[0].new, line=added[0].submission_line)
        return
    if escape:
        conf.problem_kind = "injection"
        conf.problem = rules.escaped.format(token=escape[0].text, line=escape[0].line, text=_shown_snippet(conf))
        return
    if rules.kind == "expression":
        return
    try:
        value = evaluate_tokens(toks, names)
    except ConstExprError as e:
        where = f"（第 {e.token.line} 行第 {e.token.col} 列）" if e.token else ""
        if e.undecidable:
            conf.problem_kind = "undecidable"
            conf.problem = (f"评分程序无法判断填空 `{_shown_snippet(conf)}` 是不是合法的整数常量表达式：{e.message}{where}。"
                            "代码这几项交给老师人工判断，不按 0 分计。")
            return
        conf.problem_kind = "syntax"
        conf.problem = rules.syntax.format(text=_shown_snippet(conf), error=e.message, where=where)
        return
    conf.value = value
    if value_range is not None and not value_range[0] <= value <= value_range[1]:
        conf.problem_kind = "range"
        lo, hi = value_range
        conf.problem = rules.out_of_range.format(value=value, lo=lo, hi=hi)
