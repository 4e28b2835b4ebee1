"""Exercise specs: one folder per exercise (grading/exercises/README.md describes the format).

Exercises are discovered by scanning the roots for ``<root>/<id>/config.toml``: grading/exercises/ first, then
every folder in the ``GRADING_EXERCISES`` environment variable (os.pathsep-separated; the CLI's
``--exercises-root`` sets it), so an exercise can live outside the package (a test fixture, a course's own).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .checks import CheckSpec, collect_checks
from .conformance import BlankRules, Region
from .constexpr import constexpr_names, evaluate
from .sim import Call, Case, Focus

EXERCISES_DIR = Path(__file__).parent / "exercises"
ROOTS_ENV = "GRADING_EXERCISES"
REQUIRED_KEYS = ("id", "template", "blank", "target", "host_function", "pass_score")
# files an exercise folder may hold that never ship to students (with the config's `solution`)
INSTRUCTOR_FILES = ("hidden_checks.py", "rubric.toml")
INSTRUCTOR_KEYS = ("instructor_secret",)
INSTRUCTOR_TABLES = ("bench",)          # grading.bench's sample blanks list right answers


class SpecError(Exception):
    """The exercise spec itself is broken or missing (grader misuse, not a student problem)."""


@dataclass
class ManualItem:
    """A free-text item a person grades: where it lives in the notebook and what to look for."""

    id: str
    name: str
    points: float
    headings: tuple[str, ...]
    marker: str
    rubric: dict = field(default_factory=dict)
    # False: optional points outside the pass rule (a challenge's design explanation): they add to the score,
    # but the verdict neither needs them nor waits for them
    counts_toward_pass: bool = True

    def __repr__(self) -> str:
        return f"ManualItem({self.id!r}, {self.points} pts{'' if self.counts_toward_pass else ', optional'})"


@dataclass
class Exercise:
    """Everything about one exercise; hidden parts are None in the student build."""

    id: str
    folder: Path
    config: dict
    template: str
    names: dict[str, int]
    regions: list[Region]
    public_checks: list[CheckSpec]
    hidden_checks: list[CheckSpec]
    hidden_module: ModuleType | None
    public_module: ModuleType
    manual: list[ManualItem]
    rubric: dict
    module: ModuleType                                   # exercise.py: call(case) and optional hooks
    focus: tuple[Focus, ...] = ()
    blank_rules: BlankRules = field(default_factory=BlankRules)
    cache: dict[str, Any] = field(default_factory=dict)  # per-process values an exercise computes once

    def __repr__(self) -> str:
        return (f"Exercise({self.id!r}, public={len(self.public_checks)}, hidden={len(self.hidden_checks)}, "
                f"manual={len(self.manual)})")

    @property
    def blank(self) -> str:
        return self.config.get("blank", "")

    @property
    def whole(self) -> bool:
        """A whole-kernel exercise (grading.whole): the submission replaces the template; no blank."""
        return self.config.get("kind") == "whole"

    @property
    def title(self) -> str:
        return self.config.get("title", self.id)

    @property
    def limits(self) -> dict:
        return self.config.get("limits", {})

    @property
    def region_labels(self) -> dict[str, str]:
        return {r.id: r.label for r in self.regions}

    @property
    def secret(self) -> str | None:
        return os.environ.get("GRADING_SECRET") or self.config.get("instructor_secret")

    @property
    def target_name(self) -> str:
        """The file name the exercise cell writes (what compile errors and nvcc name)."""
        return Path(self.config["target"]).name

    def line_of(self, text: str) -> int:
        """Template line (1-based) holding ``text``."""
        for i, line in enumerate(self.template.splitlines(), 1):
            if text in line:
                return i
        raise SpecError(f"{self.id}: no template line contains {text!r}")

    @property
    def blank_line(self) -> int:
        return self.line_of(self.blank)

    def focus_by_id(self, fid: str) -> Focus:
        for f in self.focus:
            if f.id == fid:
                return f
        raise SpecError(f"{self.id}: no [[focus]] with id {fid!r}")

    @property
    def heatmap_focus(self) -> Focus | None:
        return next((f for f in self.focus if f.heatmap), None)

    def fill(self, blank_text: str) -> str:
        """The template with the blank replaced (kept on one line, so template line numbers hold); a whole-kernel
        exercise's graded source is the submission itself."""
        if self.whole:
            return blank_text
        return self.template.replace(self.blank, " ".join(blank_text.split()), 1)

    def blank_value(self, text: str) -> int:
        return evaluate(text, self.names)

    def value_range(self) -> tuple[int, int] | None:
        """Legal values of the blank: exercise.py's ``value_range(ex)``, else config ``[blank_rules] range``."""
        hook = getattr(self.module, "value_range", None)
        if hook is not None:
            return hook(self)
        r = self.config.get("blank_rules", {}).get("range")
        return (int(r[0]), int(r[1])) if r else None

    def call(self, case: Case) -> Call:
        """The host function's arguments and reference outputs for ``case`` (exercise.py's ``call``)."""
        return self.module.call(case)

    @property
    def vetoes(self) -> list:
        """The exercise's own veto rules (exercise.py's ``VETOES``), run before the generic ones."""
        return list(getattr(self.module, "VETOES", []))

    @property
    def solution_path(self) -> Path:
        """The reference solution (instructor copy only)."""
        return self.folder / self.config.get("solution", "solution.cu")

    @property
    def instructor_files(self) -> tuple[str, ...]:
        """Files of the folder the student build drops."""
        return (*INSTRUCTOR_FILES, self.config.get("solution", "solution.cu"),
                *self.config.get("instructor_files", []))

    def fingerprint(self) -> str:
        """Changes whenever the template, what the public checks run (the public checks, every shipped module of
        the folder they may import: exercise.py, common.py, ..., and the config as the student build ships it,
        parsed so comments and the stripped instructor keys do not count) or the check's printed format changes
        (receipts carry it: an output saved before such a change is re-checked, never taken for an edit)."""
        h = hashlib.sha256(self.template.encode())
        h.update(f"check-output-format {CHECK_OUTPUT_FORMAT}".encode())
        if self.whole:
            h.update(f"whole-output-format {WHOLE_OUTPUT_FORMAT}".encode())
        shipped = {k: v for k, v in self.config.items() if k not in INSTRUCTOR_KEYS + INSTRUCTOR_TABLES}
        h.update(json.dumps(shipped, sort_keys=True, ensure_ascii=False, default=str).encode())
        public = Path(self.public_module.__file__)
        instructor = set(self.instructor_files)
        for p in [public] + sorted(p for p in public.parent.glob("*.py") if p != public and p.name not in instructor):
            h.update(p.read_bytes())
        return h.hexdigest()[:12]


# bump when check() prints its lines differently (2: the "行号：" line, lines in the notebook cell's numbering;
# 3: ✓/✗ marks, the blank as written, no backticks)
CHECK_OUTPUT_FORMAT = 3
# and for whole-kernel exercises (the challenges) only: 2: the counter table (grading.whole.CounterTable)
WHOLE_OUTPUT_FORMAT = 2


def _manual_items(cfg_path: Path, config: dict, rubric: dict) -> list[ManualItem]:
    """``[[manual]]``; an item with ``counts_toward_pass = false`` is optional (outside the pass rule), and
    ``optional_manual = false`` at the top of the config drops every optional item (the instructor's switch)."""
    keep_optional = config.get("optional_manual", True)
    if not isinstance(keep_optional, bool):
        raise SpecError(f"{cfg_path}: optional_manual must be true or false, not {keep_optional!r}")
    items = []
    for m in config.get("manual", []):
        counts = m.get("counts_toward_pass", True)
        if not isinstance(counts, bool):
            raise SpecError(f"{cfg_path}: [[manual]] {m.get('id')!r}: counts_toward_pass must be true or false, "
                            f"not {counts!r}")
        if not counts and not keep_optional:
            continue
        items.append(ManualItem(m["id"], m["name"], float(m["points"]), tuple(m["headings"]), m.get("marker", ""),
                                rubric.get(m["id"], {}), counts))
    return items


def roots() -> list[Path]:
    """Where exercises are looked for, in order."""
    extra = [Path(p) for p in os.environ.get(ROOTS_ENV, "").split(os.pathsep) if p.strip()]
    out = [EXERCISES_DIR]
    for p in extra:
        if p.resolve() not in [r.resolve() for r in out]:
            out.append(p)
    return out


def discover() -> dict[str, Path]:
    """id -> folder of every exercise under the roots; the same id twice is a SpecError."""
    found: dict[str, Path] = {}
    for root in roots():
        if not root.is_dir():
            raise SpecError(f"exercises root {root} is not a folder (from ${ROOTS_ENV})")
        for p in sorted(root.iterdir()):
            if (p / "config.toml").is_file():
                if p.name in found:
                    raise SpecError(f"exercise {p.name!r} is in two roots: {found[p.name]} and {p}")
                found[p.name] = p
    return found


def available() -> list[str]:
    return sorted(discover())


_CACHE: dict[Path, Exercise] = {}


def clear_caches() -> None:
    """Forget every exercise's per-process values (tests that swap the simulator call this)."""
    for ex in _CACHE.values():
        ex.cache.clear()


def _package(name: str, folder: Path) -> str:
    """The import name of an exercise folder: grading.exercises.<id> in the package, else a synthetic
    package registered from the folder (so the folder's modules can import each other relatively)."""
    if folder.resolve().parent == EXERCISES_DIR.resolve():
        return f"grading.exercises.{name}"
    pkg = f"_grading_exercise_{name}"
    mod = sys.modules.get(pkg)
    if mod is None or Path(mod.__path__[0]).resolve() != folder.resolve():
        spec = importlib.util.spec_from_loader(pkg, loader=None, is_package=True)
        mod = importlib.util.module_from_spec(spec)
        mod.__path__ = [str(folder)]
        sys.modules[pkg] = mod
        for sub in [k for k in sys.modules if k.startswith(pkg + ".")]:
            del sys.modules[sub]
    return pkg


def _import(pkg: str, module: str, *, optional: bool = False) -> ModuleType | None:
    try:
        return importlib.import_module(f"{pkg}.{module}")
    except ModuleNotFoundError as e:
        if optional and e.name == f"{pkg}.{module}":
            return None
        raise


def _focus(name: str, config: dict, lines: list[str]) -> tuple[Focus, ...]:
    out = []
    for f in config.get("focus", []):
        for key in ("id", "label", "line"):
            if key not in f:
                raise SpecError(f"{name}: a [[focus]] entry lacks {key!r}")
        hit = [i for i, line in enumerate(lines, 1) if f["line"] in line]
        if len(hit) != 1:
            raise SpecError(f"{name}: focus {f['id']!r}: {len(hit)} template lines contain {f['line']!r} (need 1)")
        col = None
        if "access" in f:          # e.g. "x[(i * 2) % n]": one of several accesses on the line
            text = lines[hit[0] - 1]
            if text.count(f["access"]) != 1:
                raise SpecError(f"{name}: focus {f['id']!r}: access {f['access']!r} must occur once on its line")
            col = text.index(f["access"]) + 1
            blank_at = text.find(config["blank"])
            if 0 <= blank_at < col:
                raise SpecError(f"{name}: focus {f['id']!r}: the blank precedes the access on its line, so its "
                                "column moves with the student's answer; use array/op instead")
        out.append(Focus(f["id"], f["label"], hit[0], f.get("space", ""), f.get("op", ""), f.get("array", ""),
                         bool(f.get("heatmap", False)), col))
    if sum(f.heatmap for f in out) > 1:
        raise SpecError(f"{name}: at most one [[focus]] may say heatmap = true")
    return tuple(out)


def load_exercise(name: str | Path) -> Exercise:
    """Load an exercise by id (searched in the roots) or by folder; raises SpecError naming what is wrong."""
    if isinstance(name, Path) or os.sep in str(name):
        folder = Path(name)
        name = folder.name
    else:
        known = discover()
        if name not in known:
            raise SpecError(f"unknown exercise {name!r}; known: {', '.join(sorted(known)) or 'none'}")
        folder = known[name]
    key = folder.resolve()
    if key in _CACHE:
        return _CACHE[key]
    cfg_path = folder / "config.toml"
    if not cfg_path.is_file():
        raise SpecError(f"{folder}: no config.toml")
    try:
        config = tomllib.loads(cfg_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{cfg_path}: {e}") from None
    whole = config.get("kind") == "whole"
    missing = [k for k in REQUIRED_KEYS if k not in config and not (whole and k == "blank")]
    if missing:
        raise SpecError(f"{cfg_path}: missing {', '.join(missing)}")
    if config["id"] != name:
        raise SpecError(f"{cfg_path}: id = {config['id']!r} but the folder is {name!r}")
    # __init__.py: setuptools ships only folders that are packages (pip install of the kit or the bundle)
    for f in ("__init__.py", "exercise.py", "public_checks.py", config["template"]):
        if not (folder / f).is_file():
            raise SpecError(f"{name}: {folder / f} is missing")
    template = (folder / config["template"]).read_text(encoding="utf-8")
    if not whole and template.count(config["blank"]) != 1:
        raise SpecError(f"{name}: the template must hold the blank {config['blank']!r} exactly once")
    lines = template.splitlines()
    regions = []
    for r in config.get("region", []):
        hit = frozenset(i for i, line in enumerate(lines, 1) if any(p in line for p in r["lines"]))
        if not hit:
            raise SpecError(f"{name}: region {r['id']!r} matches no template line")
        regions.append(Region(r["id"], r["label"], hit, r.get("veto")))
    pkg = _package(name, folder)
    module = _import(pkg, "exercise")
    if not callable(getattr(module, "call", None)):
        raise SpecError(f"{name}: exercise.py must define call(case) -> grading.sim.Call")
    public = _import(pkg, "public_checks")
    hidden = _import(pkg, "hidden_checks", optional=True)      # the student build ships without them
    for mod in filter(None, (public, hidden)):
        if not callable(getattr(mod, "cases", None)):
            raise SpecError(f"{name}: {mod.__name__} must define cases()")
    rubric_path = folder / "rubric.toml"
    rubric = tomllib.loads(rubric_path.read_text(encoding="utf-8")) if rubric_path.is_file() else {}
    manual = _manual_items(cfg_path, config, rubric)
    try:
        rules = BlankRules.from_config(config.get("blank_rules", {}))
    except (ValueError, TypeError) as e:
        raise SpecError(f"{cfg_path}: {e}") from None
    ex = Exercise(name, folder, config, template, constexpr_names(template), regions,
                  collect_checks(public), collect_checks(hidden) if hidden else [], hidden, public,
                  manual, rubric, module, _focus(name, config, lines), rules)
    _CACHE[key] = ex
    return ex


def resolve(exercise: str | None = None, path: str | Path | None = None) -> Exercise:
    """The exercise meant: the one named; else the one whose ``target`` file has ``path``'s name; else the
    only exercise there is; else the one whose template ``path``'s code resembles most. SpecError when that
    leaves none or several."""
    if exercise:
        return load_exercise(exercise)
    known = available()
    if path is not None:
        hits = [n for n in known if Path(load_exercise(n).config["target"]).name == Path(path).name]
        if len(hits) == 1:
            return load_exercise(hits[0])
    if len(known) == 1:
        return load_exercise(known[0])
    from .whole import signature_match       # a whole-kernel exercise: the file holds its signatures
    best = signature_match([load_exercise(n) for n in known], path) or _closest(known, path)
    if best is not None:
        return best
    raise SpecError(f"say which exercise (one of: {', '.join(known) or 'none'})")


def _closest(known: list[str], path: str | Path | None) -> Exercise | None:
    """The exercise whose template shares clearly the most tokens with the file (a renamed exercise file)."""
    import difflib

    from .ctokens import tokenize
    try:
        p = Path(path) if path is not None else None
        if p is None or not p.is_file() or p.stat().st_size > 1_000_000:
            return None
        keys = [t.key for t in tokenize(p.read_text(encoding="utf-8", errors="replace"))]
    except Exception:          # not code we can read: the caller says which exercises exist
        return None
    scores = []
    for n in known:
        ex = load_exercise(n)
        sm = difflib.SequenceMatcher(a=[t.key for t in tokenize(ex.template)], b=keys, autojunk=False)
        scores.append((sm.ratio(), n))
    scores.sort(reverse=True)
    if scores and scores[0][0] >= 0.5 and (len(scores) == 1 or scores[0][0] - scores[1][0] >= 0.1):
        return load_exercise(scores[0][1])
    return None
