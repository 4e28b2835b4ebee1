"""The import graph has no cycle: between the packages (labsim at the bottom, then grading, figures and
coursebuild above it) and between the modules inside each package. Imports are read from the source with
``ast`` (imports inside functions count too: a lazy import hides a cycle, it does not remove it)."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("labsim", "grading", "figures", "coursebuild")
# which package may import which (the layers of docs/ARCHITECTURE.md): nothing imports upward
ALLOWED = {"labsim": set(), "grading": {"labsim"}, "figures": {"labsim", "grading"},
           "coursebuild": {"labsim", "grading", "figures"}}



def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in sorted((REPO / pkg).rglob("*.py")):
            out[module_name(p)] = p
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports (``from pkg import sub`` names the submodule where one exists)."""
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                head = base[:len(base) - node.level + 1]
                mod = ".".join(head + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            # the deepest project module the name refers to
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


@functools.lru_cache(maxsize=1)
def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {m: imports(m, p, known) for m, p in mods.items()}


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(g.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(g):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def _package(mod: str) -> str:
    return mod.split(".")[0]


def test_packages_import_only_downward():
    upward = sorted(f"{m} -> {t}" for m, ts in graph().items() for t in ts
                    if _package(t) != _package(m) and _package(t) not in ALLOWED[_package(m)])
    assert not upward, upward


@pytest.mark.parametrize("pkg", PACKAGES)
def test_no_import_cycle_between_modules(pkg):
    # a package's __init__ re-exports its modules; a module's import of its own package's __init__ is not
    # counted as a dependency of the module on its siblings
    g = {m: {t for t in ts if _package(t) == pkg and not m.startswith(t + ".")} for m, ts in graph().items()
         if _package(m) == pkg}
    cycle = find_cycle(g)
    assert cycle is None, " -> ".join(cycle)


def test_the_checker_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    g = graph()
    assert "labsim.launch" in g["labsim.cuda.program"] or "labsim" in g["labsim.cuda.program"]
