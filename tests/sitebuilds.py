"""The real course site, built once per renderer for the tests (``coursebuild.build.ensure_built``).

* Quarto: ``_site/`` when ``quarto`` is on PATH (``.ci/run`` installs Quarto 1.7.34 from
  ``../shared/tools/quarto``); without it the Quarto tests skip with that reason.
* Fallback: ``_site/`` when Quarto is absent, else a second build under ``_build/fallback/`` so both
  renderers stay tested on machines that have Quarto.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from coursebuild.build import ensure_built
from coursebuild.quarto import find_quarto

REPO = Path(__file__).resolve().parents[1]
RENDERERS = ("quarto", "fallback")
NO_QUARTO = ("quarto is not on PATH: .ci/run installs Quarto 1.7.34 from ../shared/tools/quarto (elsewhere: "
             "conda-forge `quarto` or `pip install quarto-cli`); the fallback renderer is still tested")


def site_root(renderer: str) -> Path:
    """Folder holding ``_site/`` and ``_build/`` built with ``renderer`` (built now if stale)."""
    if renderer == "quarto":
        if find_quarto() is None:
            pytest.skip(NO_QUARTO)
        ensure_built(REPO, renderer="quarto", log=lambda line: None)
        return REPO
    out = None if find_quarto() is None else REPO / "_build" / "fallback"
    ensure_built(REPO, renderer="fallback", out=out, log=lambda line: None)
    return out or REPO


def build_info(root: Path) -> dict:
    return json.loads((root / "_site" / "build-info.json").read_text(encoding="utf-8"))


def explorer_cache(build: bool = True) -> Path | None:
    """The fallback build's cache of static explorer specs (``_build/explorer-cache/<inputs digest>/<key>.json``):
    the specs its pages embed, computed once per build by the same code from the same inputs. A test that
    reads an explorer's spec points ``COURSEBUILD_EXPLORER_CACHE`` here (and uses the build's key) instead of
    computing the whole grid again (lesson 10's: ~4 s of CPU). ``build=False``: None unless the site is already
    current (the caller then computes the spec itself; the outcome is the same, only the cost differs)."""
    from coursebuild.build import site_is_current
    if build:
        root = site_root("fallback")
    else:
        root = REPO if find_quarto() is None else REPO / "_build" / "fallback"
        if not site_is_current(REPO, renderer="fallback", out=None if root == REPO else root):
            return None
    return root / "_build" / "explorer-cache" / build_info(root)["inputs_digest"][:16]
