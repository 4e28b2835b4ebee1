"""Step 6: prove nothing hidden survived — no hidden-check module, none of its check names or function
names, no instructor secret, none of the files an exercise keeps for instructors (rubric, solution, ...) —
and that no file of the kit (the folder the student build writes into: notebooks, labsim, figures, grading)
holds an exercise's reference fill."""
from __future__ import annotations

from pathlib import Path


class BuildError(RuntimeError):
    """The student build still holds something that must not ship."""


def forbidden_strings(exercises: tuple[str, ...]) -> dict[str, str]:
    """Strings that only hidden material contains, with what each is (read from the instructor copy)."""
    from ..spec import load_exercise
    out: dict[str, str] = {}
    for name in exercises:
        ex = load_exercise(name)
        if ex.config.get("instructor_secret"):
            out[ex.config["instructor_secret"]] = f"{name} instructor secret"
        for spec in ex.hidden_checks:
            out[spec.id] = f"{name} hidden check function {spec.id}"
            out[spec.name] = f"{name} hidden check name"
    return out


def _forbidden_files(ctx) -> set[Path]:
    from ..spec import load_exercise
    return {ctx.out / "exercises" / name / f for name in ctx.exercises for f in load_exercise(name).instructor_files}


def answer_hits(ctx) -> list[str]:
    """Where the kit (everything under the folder the student build writes into) holds an exercise's reference
    fill: the solution diffed against the template (studentbuild.fills, which the course build's scanner uses too)."""
    from .fills import code_only, fill_patterns, reference_fill, scan_for_fills, shipped_files
    from ..spec import available, load_exercise
    fills, public = [], []
    for name in available():
        ex = load_exercise(name)
        public.append("\n".join(code_only(ln) for ln in ex.template.splitlines()))
        if name in ctx.exercises and ex.solution_path.is_file() and not ex.whole:   # whole: no blank to fill
            fills.append(reference_fill(name, ex.template, ex.solution_path.read_text(encoding="utf-8"), ex.blank))
    return scan_for_fills(shipped_files(ctx.out.parent), fill_patterns(fills, public))


def run(ctx) -> None:
    forbidden = forbidden_strings(ctx.exercises)
    files = _forbidden_files(ctx)
    for p in sorted(ctx.out.rglob("*")):
        if not p.is_file():
            continue
        if p.name == "hidden_checks.py" or p in files:
            raise BuildError(f"{p} must not ship")
        text = p.read_text(encoding="utf-8", errors="replace")
        for s, what in forbidden.items():
            if s in text:
                raise BuildError(f"{p.relative_to(ctx.out)} contains {what} ({s!r})")
    hits = answer_hits(ctx)
    if hits:
        raise BuildError("an exercise's answer ships:\n  " + "\n  ".join(hits[:20]))
    ctx.log.append(f"verified: none of {len(forbidden)} hidden strings in {ctx.out}, no reference fill of "
                   f"{', '.join(ctx.exercises)} in {ctx.out.parent}")
