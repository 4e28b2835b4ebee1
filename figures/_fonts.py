"""Chinese text in matplotlib figures: find a CJK font, or fall back to English labels.

The course's figures speak Chinese. Matplotlib ships no CJK glyphs, so a system font is needed
(Debian: ``fonts-noto-cjk``; ``fonts-wqy-microhei`` is a small alternative). Without one, Chinese text
would render as empty boxes, so every label is given in both languages and :func:`t` picks the English
one when no CJK font is installed.
"""
from __future__ import annotations

import functools
import warnings

import matplotlib
from matplotlib import font_manager

# Sans-serif families with Simplified Chinese glyphs, best first.
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Sarasa Gothic SC",
    "Microsoft YaHei",
    "PingFang SC",
    "SimHei",
    "Noto Serif CJK SC",
)


_FILE_HINTS = ("cjk", "wqy", "sourcehan", "source-han", "sarasa", "simhei", "yahei", "pingfang")


def _first_known() -> str | None:
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((fam for fam in CJK_FAMILIES if fam in installed), None)


@functools.lru_cache(maxsize=1)
def cjk_family() -> str | None:
    """The first installed CJK family of :data:`CJK_FAMILIES`, or None."""
    fam = _first_known()
    if fam is None:
        # matplotlib's font cache may predate the font's installation: add matching system files
        for path in font_manager.findSystemFonts():
            if any(h in path.lower() for h in _FILE_HINTS):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    continue
        fam = _first_known()
    return fam


def has_cjk() -> bool:
    """True when Chinese labels can be drawn."""
    return cjk_family() is not None


def t(zh: str, en: str) -> str:
    """A label in Chinese when a CJK font exists, else its English fallback."""
    return zh if has_cjk() else en


def use_cjk_font() -> str | None:
    """Put the CJK family first in matplotlib's sans-serif list; returns the family used (or None)."""
    fam = cjk_family()
    if fam is not None:
        sans = [f for f in matplotlib.rcParams["font.sans-serif"] if f != fam]
        matplotlib.rcParams["font.sans-serif"] = [fam, *sans]
        matplotlib.rcParams["font.family"] = "sans-serif"
        # CJK fonts lack U+2212 (minus) in some builds; use the ASCII hyphen for tick labels
        matplotlib.rcParams["axes.unicode_minus"] = False
    else:
        warnings.warn("no CJK font found (install Debian's fonts-noto-cjk): figure labels fall back to English",
                      stacklevel=2)
    return fam
