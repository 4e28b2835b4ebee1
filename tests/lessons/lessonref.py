"""Reading lesson sources in tests without the site builder: cells, divs and prose, line by line."""
from __future__ import annotations

import ast
import contextlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from matplotlib.figure import Figure
from matplotlib.text import Text

from figures.table import Table

REPO = Path(__file__).resolve().parents[2]
LESSON9 = REPO / "lessons" / "lesson09_transpose_tiled.qmd"


@dataclass
class Cell:
    lang: str
    options: dict
    source: str           # without the option lines
    line: int
    divs: tuple           # attribute strings of the enclosing divs, outermost first


@dataclass
class Lesson:
    front: dict
    cells: list = field(default_factory=list)
    prose: list = field(default_factory=list)    # (line number, text, enclosing divs) outside code blocks
    divs: list = field(default_factory=list)     # (line, attrs, depth)


def read_lesson(path: Path = LESSON9) -> Lesson:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "---", f"{path}: no front matter"
    end = lines.index("---", 1)
    lesson = Lesson(yaml.safe_load("\n".join(lines[1:end])))
    stack: list[str] = []
    i = end + 1
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^(`{3,})\s*(\{(\w+)[^}]*\}|\S*)", line)
        if fence:
            close = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(1))
            if fence.group(3):
                body = lines[i + 1:close]
                prefix = "%%|" if fence.group(3) == "mermaid" else "#|"
                k = 0
                while k < len(body) and body[k].startswith(prefix):
                    k += 1
                opts = yaml.safe_load("\n".join(b[len(prefix):] for b in body[:k])) or {}
                lesson.cells.append(Cell(fence.group(3), opts, "\n".join(body[k:]) + "\n", i + 1, tuple(stack)))
            i = close + 1
            continue
        if re.match(r"^:{3,}\s*\S", line):
            stack.append(line.strip(": ").strip())
            lesson.divs.append((i + 1, stack[-1], len(stack)))
        elif re.match(r"^:{3,}\s*$", line):
            assert stack, f"{path}:{i + 1}: ':::' closes nothing"
            stack.pop()
        else:
            lesson.prose.append((i + 1, line, tuple(stack)))
        i += 1
    assert not stack, f"{path}: unclosed div {stack[-1]}"
    return lesson


CHALLENGE_HEADING = "## 挑战（选做）"


def challenge_line(lesson) -> float:
    """The line of the lesson's optional challenge section (after the questions and the answers; it has its own
    exercise, solution and check cells), or infinity when the lesson has none."""
    return min((ln for ln, text, _ in lesson.prose if text.startswith(CHALLENGE_HEADING)), default=float("inf"))


def answer_only(divs: tuple) -> bool:
    return any('when-profile="answer"' in d and "content-visible" in d for d in divs)


def shown_texts(obj, printed: str) -> list[str]:
    """The texts a cell displays: a Table's caption, headers, cells and notes, a Figure's text artists."""
    out = [printed]
    if isinstance(obj, Table):
        out += [obj.caption or "", *obj.headers, *obj.notes, *(str(v) for r in obj.data for v in r)]
    elif isinstance(obj, Figure):
        out += [t.get_text() for t in obj.findobj(Text)]
    elif obj is not None:
        out.append(str(obj))
    return out


def run_cell(source: str, ns: dict):
    """Run one lesson cell like IPython would: statements, then the value of a final expression."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(tree, "<lesson cell>", "exec"), ns)          # the lesson's own cells, not student code
        value = eval(compile(ast.Expression(last.value), "<lesson cell>", "eval"), ns) if last else None
    return value, buf.getvalue()


def graded_lessons(root: Path = REPO) -> list[tuple[Path, str, str, str]]:
    """(lesson path, exercise id, target, reference fill) for every page of the site, in its order, that has an
    exercise cell, except the prelude's (lessons/prelude/: the P2 script's companion, not a graded lesson's
    structure). The exercise is the one whose ``target`` the cell's ``%%writefile`` names."""
    from coursebuild.site import load_site
    from figures.lessonkit import reference_fill
    from grading.spec import resolve
    out = []
    for page in load_site(root).order:
        path = root / page
        if not page.startswith("lessons/") or page.startswith("lessons/prelude/"):
            continue
        cells = [c for c in read_lesson(path).cells if c.options.get("course_role") == "exercise"]
        if not cells:
            continue
        m = re.match(r"%%writefile (\S+)", cells[0].source)
        assert m, f"{page}: the exercise cell does not start with %%writefile"
        ex = resolve(path=m.group(1))
        assert ex.config["target"] == m.group(1), f"{page}: no exercise has target {m.group(1)}"
        out.append((path, ex.id, m.group(1), reference_fill(ex.id)))
    return out


def site_notebook(path: Path, branch: str):
    """``path``'s notebook on ``branch`` as the site build executed it (the fallback renderer's build, made now
    if stale and shared with tests/coursebuild and the page tests): a lesson's run is checked without
    executing it again. Only its code cells, which carry ``course_role`` in their metadata."""
    import nbformat
    from sitebuilds import site_root
    root = site_root("fallback")
    rel = path.resolve().relative_to(REPO).with_suffix(".ipynb")
    nb = nbformat.read(root / "_build" / "executed" / branch / rel, as_version=4)
    errors = [(i, o.ename, o.evalue) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              and "raises-exception" not in c.metadata.get("tags", []) for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    nb.cells = [c for c in nb.cells if c.cell_type == "code"]
    return nb
