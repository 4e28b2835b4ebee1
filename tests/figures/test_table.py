"""The lesson tables: raw values kept, HTML escaped, bad rows refused."""
from __future__ import annotations

import pytest

from figures.table import Table


def test_table_keeps_values_and_escapes_html():
    tab = Table(["a", "b"], [[1, "<x>"], [2.5, "line1\nline2"]], caption="cap", notes=["n"])
    assert tab.column("a") == [1, 2.5] and tab.data[0][1] == "<x>"
    h = tab.html()
    assert "&lt;x&gt;" in h and "<x>" not in h and "line1<br>line2" in h and "cap" in h
    assert "a" in str(tab) and "2.5" in str(tab)
    with pytest.raises(KeyError, match="no column"):
        tab.column("z")


def test_ragged_rows_are_refused():
    with pytest.raises(ValueError, match="row 1 has 1 cells"):
        Table(["a", "b"], [[1, 2], [3]])
