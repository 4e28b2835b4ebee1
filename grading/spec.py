"""Exercise specs: one folder per exercise under grading/exercises/ (template, config, checks, rubric)."""
from __future__ import annotations

import hashlib
import importlib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from .checks import CheckSpec, collect_checks
from .conformance import Region
from .constexpr import constexpr_names, evaluate

EXERCISES_DIR = Path(__file__).parent / "exercises"


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

    def __repr__(self) -> str:
        return f"ManualItem({self.id!r}, {self.points} pts)"


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

    def __repr__(self) -> str:
        return (f"Exercise({self.id!r}, public={len(self.public_checks)}, hidden={len(self.hidden_checks)}, "
                f"manual={len(self.manual)})")

    @property
    def blank(self) -> str:
        return self.config["blank"]

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

    def line_of(self, text: str) -> int:
        """Template line (1-based) holding ``text``."""
        for i, line in enumerate(self.template.splitlines(), 1):
            if text in line:
                return i
        raise SpecError(f"{self.id}: no template line contains {text!r}")

    @property
    def blank_line(self) -> int:
        return self.line_of(self.blank)

    @property
    def read_line(self) -> int:
        return self.line_of(self.config["transposed_read"])

    def fill(self, blank_text: str) -> str:
        """The template with the blank replaced (kept on one line, so template line numbers hold)."""
        return self.template.replace(self.blank, " ".join(blank_text.split()), 1)

    def blank_value(self, text: str) -> int:
        return evaluate(text, self.names)

    def value_range(self) -> tuple[int, int]:
        """Legal values of the blank: a positive size whose tile fits the static shared-memory limit."""
        tile_rows = self.names.get("TILE_DIM", 1)
        limit = _smem_limit()
        return 1, max(1, limit // (tile_rows * int(self.config.get("element_bytes", 4))))

    @property
    def solution_path(self) -> Path:
        """The reference solution (instructor copy only)."""
        return self.folder / self.config.get("solution", "solution.cu")

    def fingerprint(self) -> str:
        """Changes whenever the template or public checks change (receipts carry it)."""
        h = hashlib.sha256(self.template.encode())
        h.update(Path(self.public_module.__file__).read_bytes())
        return h.hexdigest()[:12]


def _smem_limit() -> int:
    try:
        from labsim.gpus import GPUS
        return int(GPUS["H200"].smem_per_block)
    except Exception:  # labsim absent: fall back to the CUDA static limit the presets also carry
        return 48 * 1024


def available() -> list[str]:
    return sorted(p.name for p in EXERCISES_DIR.iterdir() if (p / "config.toml").is_file())


_CACHE: dict[str, Exercise] = {}


def load_exercise(name: str) -> Exercise:
    """Load ``grading/exercises/<name>``; raises SpecError naming what is missing."""
    if name in _CACHE:
        return _CACHE[name]
    folder = EXERCISES_DIR / name
    cfg_path = folder / "config.toml"
    if not cfg_path.is_file():
        raise SpecError(f"unknown exercise {name!r}; known: {', '.join(available()) or 'none'}")
    try:
        config = tomllib.loads(cfg_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{cfg_path}: {e}") from None
    template = (folder / config["template"]).read_text(encoding="utf-8")
    if template.count(config["blank"]) != 1:
        raise SpecError(f"{name}: the template must hold the blank {config['blank']!r} exactly once")
    lines = template.splitlines()
    regions = []
    for r in config.get("region", []):
        hit = frozenset(i for i, line in enumerate(lines, 1) if any(p in line for p in r["lines"]))
        if not hit:
            raise SpecError(f"{name}: region {r['id']!r} matches no template line")
        regions.append(Region(r["id"], r["label"], hit, r.get("veto")))
    public = importlib.import_module(f"grading.exercises.{name}.public_checks")
    try:
        hidden = importlib.import_module(f"grading.exercises.{name}.hidden_checks")
    except ModuleNotFoundError as e:
        if e.name != f"grading.exercises.{name}.hidden_checks":
            raise
        hidden = None                  # the student build ships without them
    rubric_path = folder / "rubric.toml"
    rubric = tomllib.loads(rubric_path.read_text(encoding="utf-8")) if rubric_path.is_file() else {}
    manual = [ManualItem(m["id"], m["name"], float(m["points"]), tuple(m["headings"]), m.get("marker", ""),
                         rubric.get(m["id"], {})) for m in config.get("manual", [])]
    ex = Exercise(name, folder, config, template, constexpr_names(template), regions,
                  collect_checks(public), collect_checks(hidden) if hidden else [], hidden, public,
                  manual, rubric)
    _CACHE[name] = ex
    return ex
