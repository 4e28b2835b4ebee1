"""Checks: small decorated functions with their points and visibility (otter's ``@test_case`` idea).

An exercise's ``public_checks.py`` and ``hidden_checks.py`` define them in the order they run::

    @check_case(name="正常形状：结果正确", points=1, hidden=True, kind="normal")
    def normal_correct(ctx: RunContext) -> Outcome: ...

A check gets a RunContext (the student's compiled program, its cases and memoised runs) and returns an
Outcome. The message of a hidden check is shown to the student, so it carries counts and failure kinds,
never inputs; ``detail`` is for the instructor only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable


@dataclass
class Outcome:
    """What a check found. ``fraction`` (0..1) overrides pass/fail scoring for partial credit."""

    passed: bool
    message: str
    detail: str = ""
    notes: list[str] = field(default_factory=list)
    fraction: float | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Outcome({'passed' if self.passed else 'failed'}, {self.message!r})"


@dataclass(frozen=True)
class CheckSpec:
    """A registered check."""

    id: str
    name: str
    points: float
    hidden: bool
    kind: str
    tags: tuple[str, ...]
    func: Callable[..., Outcome]

    def __repr__(self) -> str:
        return f"CheckSpec({self.id!r}, {self.points} pts, {'hidden' if self.hidden else 'public'})"


def check_case(*, name: str, points: float = 0.0, hidden: bool = False, kind: str = "",
               tags: tuple[str, ...] = ()) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Register a function as a check of the module it is defined in."""
    def deco(fn: Callable[..., Outcome]) -> Callable[..., Outcome]:
        fn.__check_spec__ = CheckSpec(fn.__name__, name, float(points), hidden, kind, tuple(tags), fn)
        return fn
    return deco


def collect_checks(module: ModuleType) -> list[CheckSpec]:
    """The module's checks in definition order."""
    return [v.__check_spec__ for v in vars(module).values() if hasattr(v, "__check_spec__")]


def count_message(label: str, passed: int, total: int, failures: dict[str, int] | None = None) -> str:
    """The only shape a hidden check's message takes: "边界形状：3/5（2 个结果错误）"."""
    text = f"{label}：{passed}/{total}"
    kinds = [f"{n} 个{k}" for k, n in (failures or {}).items() if n]
    return text + (f"（{'，'.join(kinds)}）" if kinds else "")
