"""The check cell's HTML view: the verdict, then the student's kernel the way Nsight Compute's source page shows
it — one row per source line with requests, sectors or wavefronts per request and bank conflicts, coloured by
cost, the exercise's focus line outlined; a click on an instruction opens one warp's lane × bank (shared) or
lane × sector (global) map, drawn as inline SVG.

No script and no external resource: the view is plain HTML + SVG + a scoped ``<style>``, so it works in
Jupyter, in nbconvert's pages and in Quarto's (shown there as a raw-HTML block: grading.display.html_bundle)
without a CDN and without console errors. The plain text (``CheckReport.text()``) stays for terminals and
Gradescope, and is the ``text/plain`` of the same display bundle.

A lesson's check cell is one line, ``report = check("/tmp/<target>.cu")``: in a Jupyter kernel check()
displays this view itself (:func:`show`); elsewhere it prints the text.
"""
from __future__ import annotations

import html
import sys
from typing import Any

# the view of grading.checkcell's CheckReport and InstrRow, which import this module (never the other way:
# annotations name them as strings)

CELL = 7             # px per lane × bank cell of the map
STYLE = """<style>
.labsim-check{font-size:0.9rem;line-height:1.45}
.labsim-check .lc-verdict{margin:0 0 .3em}
.labsim-check ul{margin:.2em 0 .4em 1.2em;padding:0}
.labsim-check .lc-edited{border-left:4px solid #b58900;padding-left:8px;margin:.4em 0}
.labsim-check .lc-edited pre{white-space:pre-wrap;margin:.2em 0}
.labsim-check table.lc-counter-table{border-collapse:collapse;font-size:0.8rem;margin:.3em 0;width:auto;max-width:100%}
.labsim-check table.lc-counter-table th,.labsim-check table.lc-counter-table td{padding:1px 6px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.labsim-check table.lc-counter-table code{font-size:0.75rem;overflow-wrap:anywhere;word-break:break-all}
.labsim-check table.lc-src{border-collapse:collapse;font-size:0.8rem;margin:.3em 0;width:auto;max-width:100%}
.labsim-check table.lc-src th{text-align:left;border-bottom:1px solid #999;padding:2px 6px;vertical-align:bottom}
.labsim-check .lc-scroll{overflow-x:auto;max-width:100%}
.labsim-check table.lc-src td{padding:1px 6px;vertical-align:top;border-bottom:1px solid #eee;text-align:left}
.labsim-check table.lc-src td.line,.labsim-check table.lc-src td.req,.labsim-check table.lc-src td.sec,
.labsim-check table.lc-src td.wf,.labsim-check table.lc-src td.conf{text-align:right;font-variant-numeric:tabular-nums}
/* page themes wrap code and right-align cells (Quarto also wraps <pre> text in <code> and gives the table
   Bootstrap's classes), and Jupyter's output CSS sets <pre> in rendered HTML in the text font: the source keeps
   its lines and a monospace font */
.labsim-check table.lc-src td pre,.labsim-check table.lc-src td pre code{margin:0;white-space:pre-wrap !important;overflow:visible;word-break:normal !important;overflow-wrap:anywhere !important;font-size:0.8rem;background:none;padding:0;border:0;color:inherit;font-family:ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace}
.labsim-check table.lc-src td.code{overflow-wrap:anywhere;word-break:normal;min-width:16em}
.labsim-check .lc-pass{color:#2a8c3a;font-weight:bold}
.labsim-check .lc-fail{color:#c0392b;font-weight:bold}
.labsim-check table.lc-src td.line{width:2.5em}
.labsim-check table.lc-src td.what{min-width:7em}
.labsim-check table.lc-src tr.lc-maprow td{border-bottom:0;padding-top:0}
.labsim-check table.lc-src tr.lc-focus td{border-top:2px solid #268bd2;border-bottom:2px solid #268bd2}
.labsim-check table.lc-src tr.lc-focus.lc-maprow td{border-top:0}
.labsim-check table.lc-src tr:hover td{box-shadow:inset 0 0 0 999px rgba(38,139,210,.08)}
.labsim-check details summary{cursor:pointer;white-space:nowrap}
.labsim-check svg.lc-map{display:block;margin:.3em 0}
.labsim-check .lc-key{font-size:0.8rem;color:#555;white-space:normal}
.labsim-check details .lc-key{max-width:30em}
.labsim-check .lc-receipt{font-size:0.8rem;color:#555}
</style>"""


def show(report: "CheckReport") -> None:
    """Display ``report`` in the running notebook: the HTML view, with the plain text as its ``text/plain``
    (a raw-HTML block under Quarto, which would otherwise load require.js from a CDN); print it elsewhere."""
    from .display import in_notebook_kernel as _in_notebook_kernel
    if not _in_notebook_kernel():
        print(report.text())
        return
    from IPython.display import display
    sys.stdout.flush()                       # earlier prints stay above the view
    display(report._repr_mimebundle_(), raw=True)


def _mark_html(passed: bool) -> str:
    """✓ / ✗ in a colour and a word for screen readers: both glyphs are in the fonts the page ships."""
    from .results import mark
    cls, word = ("lc-pass", "通过") if passed else ("lc-fail", "未通过")
    return f"<span class='{cls}' title='{word}'>{mark(passed)}</span>"


def _code_spans(text: str) -> str:
    """A message with its `code spans` as <code> elements, everything escaped."""
    import re
    out, pos = [], 0
    for m in re.finditer(r"`([^`\n]{1,400})`", text):
        out += [html.escape(text[pos:m.start()]), f"<code>{html.escape(m.group(1))}</code>"]
        pos = m.end()
    return "".join(out + [html.escape(text[pos:])])


def report_html(rep: "CheckReport") -> str:
    """The whole view (deterministic: the grader re-renders it to check a saved one)."""
    esc = html.escape
    parts = [STYLE, "<div class='labsim-check'>",
             f"<p class='lc-verdict'><b>{esc(rep.exercise)} 公开检查</b>：{_code_spans(rep.verdict)}</p>"]
    if rep.blank is not None:
        parts.append(f"<p>填空：<code>{esc(rep.blank)}</code>"
                     + (f" = {rep.value}" if rep.value is not None else "") + "</p>")
    if rep.problem != "missing":
        parts.append(f"<p class='lc-numbering'>{esc(rep.numbering.statement())}</p>")
    if rep.checks:
        parts.append("<ul>" + "".join(f"<li>{_mark_html(c.status == 'passed')} {esc(c.name)}："
                                      f"<span style='white-space:pre-wrap'>{_code_spans(c.output)}</span></li>"
                                      for c in rep.checks) + "</ul>")
    if rep.notes:
        parts.append("<ul>" + "".join(f"<li style='white-space:pre-wrap'>{_code_spans(n)}</li>" for n in rep.notes)
                     + "</ul>")
    if rep.counter_table is not None:
        parts.append(rep.counter_table.html())
    if rep.edited:
        parts.append(f"<div class='lc-edited'><b>{esc(rep.edited[0])}</b>"
                     f"<pre>{esc(chr(10).join(ln.strip() for ln in rep.edited[1:]))}</pre></div>")
    if rep.instr_rows:
        parts.append(source_view(rep))
    if rep.heatmap_summary:
        parts.append(f"<p class='lc-key'>{esc(rep.heatmap_summary)}</p>")
    if rep.receipt:
        parts.append(f"<p class='lc-receipt'><code>{esc(rep.receipt)}</code></p>")
    if rep.shape_lines:
        parts.append(SHAPE_START + "<pre>" + esc("\n".join(rep.shape_lines)) + "</pre></div>")
    return "\n".join(parts) + "</div>"


def excess(r: "InstrRow") -> float:
    """How many times its least possible cost an instruction costs per request: wavefronts over the
    conflict-free minimum (shared), sectors over the requested bytes' own sectors (global)."""
    return r.per_request / r.ideal if r.ideal else 1.0


def _heat(r: "InstrRow") -> str:
    """Background of an instruction's row: none at its ideal cost, deeper red up to 32 times it."""
    import math
    x = min(1.0, math.log2(max(1.0, excess(r))) / 5)
    return f"rgba(220,50,47,{0.05 + 0.5 * x:.2f})" if x > 0 else "rgba(42,161,152,0.10)"


SHAPE_START = "<div class='lc-shape'>"
EDITED_START = "<div class='lc-edited'>"


def bound_html(view: str) -> str:
    """The part of a saved view the grader compares with its re-run: all but the check(shape=...) section (as
    in the text, the receipt binds the public cases only) and the edited version's section (不计分: the grader
    runs it after the verdict, under its own time limit, and compares it there)."""
    start = view.find(EDITED_START)
    if start >= 0:
        end = view.find("</div>", start)
        # with the newline that joined it to the view: the re-run without the section has no blank line there
        cut = start - 1 if view[start - 1:start] == "\n" else start
        view = view[:cut] + (view[end + len("</div>"):] if end >= 0 else "")
    start = view.find(SHAPE_START)
    if start < 0:
        return view.strip()
    end = view.find("</div>", start)
    head = view[:start].rstrip("\n")
    return (head + view[end + len("</div>"):]).strip() if end >= 0 else head.strip()


def source_view(rep: "CheckReport") -> str:
    """The kernel's lines around its memory instructions, one row per instruction with its counters (Nsight
    Compute's source page), each followed by a row holding its lane map (folded, but for the focus line)."""
    esc = html.escape
    by_line: dict[int, list["InstrRow"]] = {}
    for r in rep.instr_rows:
        by_line.setdefault(r.line, []).append(r)
    lo = max(1, min(by_line) - 3)
    hi = min(len(rep.source_lines), max(by_line) + 3)
    # the counters before the code: on a narrow page the long source lines scroll, the numbers stay in view
    head = ("<tr><th>行</th><th>指令</th><th>requests</th><th>sectors/<br>request</th>"
            "<th>wavefronts/<br>request</th><th>bank<br>conflicts</th><th>代码</th></tr>")
    rows = []
    # the shown lines without their common indentation (long lines then wrap inside the page's column)
    shown = rep.source_lines[lo - 1: hi]
    indent = min((len(t) - len(t.lstrip()) for t in shown if t.strip()), default=0)
    for n in range(lo, hi + 1):
        code = esc(rep.source_lines[n - 1][indent:]) if n <= len(rep.source_lines) else ""
        instrs = by_line.get(n, [])
        cls = " class='lc-focus'" if any(r.focus for r in instrs) else ""
        height = sum(2 if r.map_svg else 1 for r in instrs)
        span = f" rowspan='{height}'" if height > 1 else ""
        line_td = f"<td class='line'{span}>{n}</td>"
        code_td = f"<td class='code'{span}><pre>{code}</pre></td>"
        if not instrs:
            rows.append(f"<tr id='L{n}' data-line='{n}'>{line_td}<td colspan='5'></td>{code_td}</tr>")
            continue
        for i, r in enumerate(instrs):
            what = f"{esc(r.space)} {esc(r.op)} {esc(r.array)}" + (f" ◀ {esc(r.focus)}" if r.focus else "")
            per = f"{r.per_request:.2f}".rstrip("0").rstrip(".")
            cells = {"what": what, "req": str(r.requests), "sec": per if r.space == "global" else "",
                     "wf": per if r.space == "shared" else "", "conf": str(r.conflicts) if r.space == "shared" else ""}
            td = "".join(f"<td class='{k}' style='background:{_heat(r)}'>{v}</td>" for k, v in cells.items())
            rid = f" id='L{n}' data-line='{n}'" if i == 0 else f" data-line='{n}'"
            row = line_td + td + code_td if i == 0 else td
            rows.append(f"<tr{rid}{cls} title='{esc(r.lanes)}'>{row}</tr>")
            if r.map_svg:
                kind = "lane × bank" if r.space == "shared" else "lane × sector"
                opened = " open" if r.focus else ""
                rows.append(f"<tr class='lc-maprow{' lc-focus' if cls else ''}' data-line='{n}'>"
                            f"<td class='map' colspan='5'><details{opened}><summary>{esc(r.array)} 的 {kind}"
                            f"（一个 warp）</summary>{r.map_svg}<div class='lc-key'>{esc(r.lanes)}</div>"
                            "</details></td></tr>")
    return (f"<p>你的内核，{esc(rep.numbering.where)}的第 {lo}–{hi} 行（{esc(rep.counters_case)}）。每条访存指令一行，"
            "底色按它每个请求的代价是理想值的几倍（青 = 理想，越红越贵，32 倍最深）；蓝框是本练习关注的那一行；"
            "点开指令下面的 lane × bank / lane × sector 看一个 warp 的访问（鼠标停在指令上也能看到文字版）：</p>"
            f"<div class='lc-scroll'><table class='lc-src'>{head}{''.join(rows)}</table></div>")


def _degree_colour(v: int) -> str:
    return {1: "#2aa198", 2: "#b58900"}.get(v, "#dc322f")


def lane_map_svg(sample: Any) -> str:
    """One warp's access as a lanes × banks (shared) or lanes × sectors (global) grid of SVG cells.

    Shared: a cell is filled where the lane touches the bank; its colour is the number of distinct 4-byte words
    the warp touches in that bank (1: served at once; k: k passes). Global: columns are the distinct 32-byte
    sectors the warp touches, in address order, labelled relative to the lowest."""
    import numpy as np
    active = np.asarray(sample.active, dtype=bool)
    cells: list[tuple[int, int, int]] = []             # (lane, column, value)
    if sample.space == "shared":
        n = int(sample.banks_n)
        k = max(1, int(sample.itemsize) // int(sample.bank_bytes))
        words = np.asarray(sample.words)
        per_bank: dict[int, set[int]] = {}
        for lane in np.flatnonzero(active):
            for j in range(k):
                w = int(words[lane]) + j
                per_bank.setdefault(w % n, set()).add(w)
        for lane in np.flatnonzero(active):
            for b in sorted({(int(words[lane]) + j) % n for j in range(k)}):
                cells.append((int(lane), b, len(per_bank[b])))
        labels = list(range(n))
        xname, key = "bank", "颜色：这个 bank 里被这个 warp 访问的不同 4 字节字数（绿 = 1，一次完成；越红要排队越多次）"
    else:
        ids = np.asarray(sample.sector_ids())
        labels = sorted({int(v) for v in ids[active]})
        col = {s: i for i, s in enumerate(labels)}
        count = {s: int((ids[active] == s).sum()) for s in labels}
        cells = [(int(lane), col[int(ids[lane])], count[int(ids[lane])]) for lane in np.flatnonzero(active)]
        n = len(labels)
        xname, key = "sector（相对编号）", f"列：这个 warp 碰到的 {n} 个 32 字节 sector（按地址排序）"
    left, top = 34, 26
    width, height = max(left + CELL * max(n, 1) + 16, 170), top + CELL * 32 + 6   # room for the axis titles
    out = [f"<svg class='lc-map' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' role='img' aria-label='lane × {html.escape(xname)}'>",
           f"<text x='{left}' y='10' font-size='9'>{html.escape(xname)} →</text>",
           f"<text x='0' y='{top - 4}' font-size='9'>lane ↓</text>"]
    for i, lab in enumerate(labels):
        if n <= 32 and (i % 8 == 0 or i == n - 1):
            out.append(f"<text x='{left + i * CELL}' y='{top - 4}' font-size='8'>{lab}</text>")
    for lane in range(0, 32, 8):
        out.append(f"<text x='2' y='{top + lane * CELL + CELL - 1}' font-size='8'>{lane}</text>")
    out.append(f"<rect x='{left}' y='{top}' width='{CELL * max(n, 1)}' height='{CELL * 32}' fill='#f6f6f6' "
               "stroke='#ccc' stroke-width='0.5'/>")
    for lane, c, v in cells:
        fill = _degree_colour(v) if sample.space == "shared" else "#268bd2"
        out.append(f"<rect x='{left + c * CELL}' y='{top + lane * CELL}' width='{CELL - 1}' height='{CELL - 1}' "
                   f"fill='{fill}' data-lane='{lane}' data-col='{labels[c]}' data-value='{v}'/>")
    out.append("</svg>")
    return "".join(out) + f"<div class='lc-key'>{html.escape(key)}</div>"
