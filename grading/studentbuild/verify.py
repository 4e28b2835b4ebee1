"""Step 6: prove nothing hidden survived — no hidden-check module, none of its check names or function
names, no instructor secret, no rubric or solution."""
from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent


class BuildError(RuntimeError):
    """The student build still holds something that must not ship."""


def forbidden_strings(exercises: tuple[str, ...]) -> dict[str, str]:
    """Strings that only hidden material contains, with what each is (read from the instructor copy)."""
    out: dict[str, str] = {}
    for ex in exercises:
        cfg = tomllib.loads((SOURCE / "exercises" / ex / "config.toml").read_text(encoding="utf-8"))
        if cfg.get("instructor_secret"):
            out[cfg["instructor_secret"]] = f"{ex} instructor secret"
        hidden = importlib.import_module(f"grading.exercises.{ex}.hidden_checks")
        from grading.checks import collect_checks
        for spec in collect_checks(hidden):
            out[spec.id] = f"{ex} hidden check function {spec.id}"
            out[spec.name] = f"{ex} hidden check name"
    return out


def run(ctx) -> None:
    forbidden = forbidden_strings(ctx.exercises)
    for p in sorted(ctx.out.rglob("*")):
        if not p.is_file():
            continue
        if p.name in ("hidden_checks.py", "rubric.toml", "solution.cu"):
            raise BuildError(f"{p} must not ship")
        text = p.read_text(encoding="utf-8", errors="replace")
        for s, what in forbidden.items():
            if s in text:
                raise BuildError(f"{p.relative_to(ctx.out)} contains {what} ({s!r})")
    ctx.log.append(f"verified: none of {len(forbidden)} hidden strings in {ctx.out}")
