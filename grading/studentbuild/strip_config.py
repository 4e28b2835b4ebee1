"""Step 4: remove instructor-only keys (the secret that seeds hidden cases) and tables (``[bench]``: sample
blanks, right ones among them) from each exercise's config.toml, keeping the other comments; the result must
still parse."""
from __future__ import annotations

import re
import tomllib

from ..spec import INSTRUCTOR_KEYS, INSTRUCTOR_TABLES


def strip_keys(text: str, keys: tuple[str, ...] = INSTRUCTOR_KEYS) -> str:
    rx = re.compile(rf"^\s*({'|'.join(map(re.escape, keys))})\s*=.*(?:\n|$)", re.M)
    return rx.sub("", text)


def strip_tables(text: str, tables: tuple[str, ...] = INSTRUCTOR_TABLES) -> str:
    """Drop each ``[table]`` with the comment block above it and its lines, up to the next table header or the
    comment block above that."""
    names = "|".join(map(re.escape, tables))
    rx = re.compile(rf"^(?:#.*\n)*\[(?:{names})\][ \t]*\n(?:(?!\[|#).*\n|[ \t]*\n|#.*\n(?=(?:#.*\n)*(?!\[)))*", re.M)
    return rx.sub("", text)


def run(ctx) -> None:
    for p in sorted(ctx.out.glob("exercises/*/config.toml")):
        text = strip_tables(strip_keys(p.read_text(encoding="utf-8")))
        data = tomllib.loads(text)
        left = [k for k in INSTRUCTOR_KEYS + INSTRUCTOR_TABLES if k in data]
        if left:
            raise ValueError(f"{p}: could not strip {left}")
        p.write_text(text, encoding="utf-8")
        ctx.log.append(f"stripped {', '.join(INSTRUCTOR_KEYS + INSTRUCTOR_TABLES)} from {p.relative_to(ctx.out)}")
