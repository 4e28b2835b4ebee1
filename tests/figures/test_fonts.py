"""Chinese labels when a CJK font exists, English otherwise."""
from __future__ import annotations

import warnings

import matplotlib
import pytest
from matplotlib import font_manager

from figures import _fonts


def test_label_follows_font_availability(monkeypatch):
    monkeypatch.setattr(_fonts, "cjk_family", lambda: "Some CJK")
    assert _fonts.t("中文", "English") == "中文"
    monkeypatch.setattr(_fonts, "cjk_family", lambda: None)
    assert _fonts.t("中文", "English") == "English"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _fonts.use_cjk_font() is None
    assert any("fonts-noto-cjk" in str(w.message) for w in caught)


def test_found_family_is_installed_and_first():
    fam = _fonts.cjk_family()
    if fam is None:
        pytest.skip("no CJK font installed here (labels fall back to English)")
    assert fam in {f.name for f in font_manager.fontManager.ttflist}
    _fonts.use_cjk_font()
    assert matplotlib.rcParams["font.sans-serif"][0] == fam
