"""Independent leak probes for the branch tests (no coursebuild code involved).

A line-based reading of a lesson source finds answer-only material: bodies of ``course_role: solution``
cells and text inside ``.content-visible when-profile="answer"`` (or ``.content-hidden
when-profile="exercise"``) fenced divs. A *probe* is a run of at least 8 characters of such a line that
survives rendering (no markdown/HTML markup inside) and that never occurs in the lesson outside
answer-only material, so finding it in an exercise file means it leaked.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

_MARKUP = re.compile(r"(?:@[\w-]+|\{#[\w-]+\}|[*`\[\]()$|#<>{}\"\\_~])+")
_ANSWER_DIV = re.compile(r"""^:{3,}\s*\{[^}]*\.content-(visible[^}]*when-profile=["']?answer|hidden[^}]*when-profile=["']?exercise)""")


def split_lesson(text: str) -> tuple[list[tuple[str, bool]], list[str]]:
    """(answer-only ``(line, is_code)`` pairs, all other lines) of a .qmd source."""
    answer, other = [], []
    stack: list[bool] = []      # one entry per open fenced div: is it answer-only?
    in_code, code_fence, cell_lines = False, "", []
    for line in text.splitlines():
        s = line.rstrip()
        if in_code:
            if re.match(r"^ {0,3}(`{3,}|~{3,})\s*$", s) and s.strip()[0] == code_fence[0] and len(s.strip()) >= len(code_fence):
                in_code = False
                is_solution = any(re.match(r"#\|\s*course_role:\s*solution", c) for c in cell_lines)
                body = [c for c in cell_lines if not c.startswith(("#|", "%%"))]
                if is_solution or any(stack):
                    answer.extend((c, True) for c in body)
                else:
                    other.extend(body)
                continue
            cell_lines.append(s)
            continue
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", s)
        if m:
            in_code, code_fence, cell_lines = True, m.group(1), []
            continue
        if re.match(r"^:{3,}\s*\S", s):
            stack.append(bool(_ANSWER_DIV.match(s)))
            continue
        if re.match(r"^:{3,}\s*$", s):
            stack.pop()
            continue
        if any(stack):
            answer.append((s, False))
        else:
            other.append(s)
    return answer, other


def probes(text: str, min_len: int = 8) -> list[str]:
    """Distinctive runs of the lesson's answer-only lines (see the module docstring)."""
    answer, other = split_lesson(text)
    other_text = "\n".join(other)
    out = []
    for line, is_code in answer:
        # Code is shown verbatim (whole line); prose loses its markup, so only markup-free runs survive.
        for run in [line.strip()] if is_code else _MARKUP.split(line):
            run = run.strip(" -:：，。;；,.")
            # A short ASCII run of prose ("half tile" of `__half tile[32][33]`) is a name, not answer text:
            # tools such as the explorer show every layout on both branches.
            generic = not is_code and run.isascii() and len(run) < 16
            if (len(run) >= min_len and not generic and run not in other_text and run not in out
                    and "://" not in run):
                out.append(run)
    return out


def visible_text(path: Path) -> str:
    """The text a reader sees in a built file: HTML without tags, a notebook's sources and text outputs."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
        return html.unescape(re.sub(r"<[^>]+>", "", raw))
    if path.suffix == ".ipynb":
        nb = json.loads(raw)
        parts = []
        for cell in nb["cells"]:
            parts.append("".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"])
            for out in cell.get("outputs", []):
                text = out.get("text") or out.get("data", {}).get("text/plain") or ""
                parts.append("".join(text) if isinstance(text, list) else text)
        return "\n".join(parts)
    return raw
