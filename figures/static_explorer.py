"""Explorers on the static site: every view precomputed by labsim at build time, shown by a small local script.

A lesson's explorer is an ipywidgets panel in Jupyter (a live kernel recomputes on every change). A static
page has no kernel, so the build evaluates the explorer's ``compute`` function on *every* combination of the
control values (the control grid), embeds the results as JSON in the page and ships ``static_explorer.js``
(vendored here, no CDN) that redraws the figure and the numbers when a control moves. The page therefore
shows labsim's values, never a JavaScript re-implementation of the model.

Usage (see coursebuild/README.md, "Explorers"):

    ex = StaticExplorer(
        controls=[Slider("pad", "填充", range(5)), Select("dtype", "元素类型", [("float32", "float")]),
                  Checkbox("swizzle", "XOR 混洗")],
        parts=[Heatmap("heat", rows=32, cols=32, ...), Number("wf", "wavefront"), Text("note")],
        compute=lambda pad, dtype, swizzle: {"heat": ..., "wf": 3, "note": "..."})
    ex          # in a cell: the static HTML (``_repr_mimebundle_``; a raw-HTML block under Quarto)

:func:`choose` returns the ipywidgets panel in Jupyter and the static explorer when the course build runs
the notebook (``COURSEBUILD_STATIC=1``, set by ``python -m coursebuild`` for both renderers).
"""
from __future__ import annotations

import base64
import html
import io
import itertools
import json
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from grading.display import html_bundle, quarto_rendering

SCRIPT = Path(__file__).with_name("static_explorer.js")
MAX_STATES = 20000        # the grid is evaluated at build time and shipped in the page
MAX_IMAGE_STATES = 64     # per-state PNGs are heavy: use Heatmap/Bars for larger grids


KINDS = ("number", "text", "heatmap", "bars", "image")


class ExplorerSpecError(ValueError):
    """An explorer definition or a computed view is malformed; the message names the control or part."""


def is_static_build() -> bool:
    """True while ``python -m coursebuild`` (or Quarto itself) executes the lesson for the static site."""
    return os.environ.get("COURSEBUILD_STATIC") == "1" or quarto_rendering()


def choose(static: Callable[[], Any], widgets: Callable[[], Any]) -> Any:
    """``static()`` during the site build, ``widgets()`` (the ipywidgets panel) everywhere else."""
    return static() if is_static_build() else widgets()


# ---- controls ------------------------------------------------------------------------------------------

@dataclass
class Control:
    """One control: ``name`` (the keyword passed to ``compute``), a label and the finite list of values."""

    name: str
    label: str
    values: list
    labels: list[str] = field(default_factory=list)
    value: Any = None
    kind: str = "select"

    def __post_init__(self) -> None:
        self.values = list(self.values)
        if not self.values:
            raise ExplorerSpecError(f"control {self.name!r}: needs at least one value")
        if not self.labels:
            self.labels = [str(v) for v in self.values]
        if len(self.labels) != len(self.values):
            raise ExplorerSpecError(f"control {self.name!r}: {len(self.labels)} labels for {len(self.values)} values")
        if self.value is None:
            self.value = self.values[0]
        if self.value not in self.values:
            raise ExplorerSpecError(f"control {self.name!r}: initial value {self.value!r} is not one of {self.values}")

    def spec(self) -> dict:
        return {"name": self.name, "label": self.label, "kind": self.kind, "labels": self.labels,
                "values": [_jsonable(v, f"control {self.name!r}") for v in self.values],
                "index": self.values.index(self.value)}


def Slider(name: str, label: str, values: Sequence, value: Any = None) -> Control:
    """A range slider over ``values`` (integers, in order)."""
    return Control(name, label, list(values), value=value, kind="slider")


def Select(name: str, label: str, options: Sequence[tuple[Any, str]], value: Any = None) -> Control:
    """A drop-down; ``options`` are ``(value, label)`` pairs."""
    return Control(name, label, [v for v, _ in options], [lbl for _, lbl in options], value, "select")


def Radio(name: str, label: str, options: Sequence[tuple[Any, str]], value: Any = None) -> Control:
    """Toggle buttons (radio inputs); ``options`` are ``(value, label)`` pairs."""
    return Control(name, label, [v for v, _ in options], [lbl for _, lbl in options], value, "radio")


def Checkbox(name: str, label: str, value: bool = False) -> Control:
    """A checkbox: ``compute`` receives False or True."""
    return Control(name, label, [False, True], ["否", "是"], value, "checkbox")


# ---- parts (what a view shows) -------------------------------------------------------------------------

@dataclass
class Part:
    """Something the explorer shows; ``compute`` returns one value per part name.

    Kinds and the value ``compute`` returns for them:

    * ``number``: a number or short string, shown after ``label`` (the numbers a test compares);
    * ``text``: a sentence;
    * ``heatmap``: ``{"cells": [row, col, value, row, col, value, ...], "title": str}`` (flat triples;
      cells not listed are blank);
      static options: ``rows``, ``cols``, ``bounds`` (bin edges), ``colors`` (one per bin), ``legend``
      (one label per bin), ``xlabel``, ``ylabel``, ``row_groups`` (draw a line every n rows);
    * ``bars``: ``{"values": [...], "title": str}``; options ``xlabel``, ``ylabel``, ``highlight`` (the name of
      a control: the bar at that control's current position is highlighted);
    * ``image``: a matplotlib Figure (rendered to PNG at build time; small grids only).
    """

    name: str
    kind: str
    label: str = ""
    options: dict = field(default_factory=dict)

    def spec(self) -> dict:
        return {"name": self.name, "kind": self.kind, "label": self.label, **self.options}


def Number(name: str, label: str) -> Part:
    return Part(name, "number", label)


def Text(name: str, label: str = "") -> Part:
    return Part(name, "text", label)


def Heatmap(name: str, *, rows: int, cols: int, bounds: Sequence[float], colors: Sequence[str],
            legend: Sequence[str] = (), xlabel: str = "", ylabel: str = "", row_groups: int = 0,
            label: str = "") -> Part:
    if len(colors) != len(bounds) - 1:
        raise ExplorerSpecError(f"heatmap {name!r}: {len(bounds)} bounds need {len(bounds) - 1} colors")
    return Part(name, "heatmap", label, {"rows": rows, "cols": cols, "bounds": list(bounds), "colors": list(colors),
                                         "legend": list(legend), "xlabel": xlabel, "ylabel": ylabel,
                                         "row_groups": row_groups})


def Bars(name: str, *, xlabel: str = "", ylabel: str = "", highlight: str = "", label: str = "") -> Part:
    return Part(name, "bars", label, {"xlabel": xlabel, "ylabel": ylabel, "highlight": highlight})


def Image(name: str, alt: str = "") -> Part:
    return Part(name, "image", "", {"alt": alt})


# ---- the explorer --------------------------------------------------------------------------------------

class StaticExplorer:
    """Evaluates ``compute`` over the whole control grid and renders the self-contained HTML of the explorer.

    ``presets``: optional ``(label, {control: value})`` buttons that jump to views worth seeing.
    ``title``: shown above the controls. ``key``: a stable element id, also the build cache's name (default:
    random, not cached).
    """

    def __init__(self, controls: Sequence[Control], parts: Sequence[Part], compute: Callable[..., dict], *,
                 title: str = "", presets: Sequence[tuple[str, dict]] = (), key: str | None = None) -> None:
        names = [c.name for c in controls]
        if len(set(names)) != len(names):
            raise ExplorerSpecError(f"control names repeat: {names}")
        if len({p.name for p in parts}) != len(parts):
            raise ExplorerSpecError(f"part names repeat: {[p.name for p in parts]}")
        self.controls, self.parts, self.compute = list(controls), list(parts), compute
        if key is not None and not re.fullmatch(r"[A-Za-z][\w-]*", key):
            raise ExplorerSpecError(f"explorer key {key!r}: letters, digits, '-' and '_' only (it is an element id)")
        self.title, self.key, self._stable_key = title, key or f"course-explorer-{uuid.uuid4().hex[:8]}", key is not None
        self.presets = []
        for label, values in presets:
            unknown = set(values) - set(names)
            if unknown:
                raise ExplorerSpecError(f"preset {label!r} names unknown controls {sorted(unknown)}")
            for c in self.controls:
                if c.name in values and values[c.name] not in c.values:
                    raise ExplorerSpecError(f"preset {label!r}: {c.name}={values[c.name]!r} is not one of {c.values}")
            self.presets.append((label, dict(values)))
        n = 1
        for c in self.controls:
            n *= len(c.values)
        if n > MAX_STATES:
            raise ExplorerSpecError(f"the control grid has {n} states (more than {MAX_STATES}); narrow a control")
        for p in parts:
            if p.kind not in KINDS:
                raise ExplorerSpecError(f"part {p.name!r}: unknown kind {p.kind!r} (one of {', '.join(KINDS)})")
            if p.kind == "bars" and p.options.get("highlight") and p.options["highlight"] not in names:
                raise ExplorerSpecError(f"bars {p.name!r}: highlight names no control ({p.options['highlight']!r})")
        if any(p.kind == "image" for p in parts) and n > MAX_IMAGE_STATES:
            raise ExplorerSpecError(f"an image part over {n} states is too heavy (max {MAX_IMAGE_STATES}); "
                                    "draw it as a heatmap or bars part")
        self._spec: dict | None = None

    def __repr__(self) -> str:
        return f"StaticExplorer({[c.name for c in self.controls]}, {len(self.parts)} parts)"

    def states(self):
        """Every combination of control values, as ``(indices, {name: value})``, in row-major order."""
        for idx in itertools.product(*(range(len(c.values)) for c in self.controls)):
            yield idx, {c.name: c.values[i] for c, i in zip(self.controls, idx)}

    def spec(self) -> dict:
        """The JSON the page embeds: controls, parts, the distinct values of each part (``pools``) and, per
        state (control indices joined by ","), the index into each part's pool (``states``).

        With an explicit ``key`` and ``COURSEBUILD_EXPLORER_CACHE`` set (the build sets it to a folder named
        by the digest of all its inputs), the spec is computed once per build and reused by the other branch.
        """
        if self._spec is not None:
            return self._spec
        cache = os.environ.get("COURSEBUILD_EXPLORER_CACHE")
        cached = Path(cache) / f"{self.key}.json" if cache and self._stable_key else None
        if cached is not None and cached.is_file():
            self._spec = json.loads(cached.read_text(encoding="utf-8"))
            return self._spec
        self._spec = self._compute_spec()
        if cached is not None:
            write_build_cache(cached, json.dumps(self._spec, ensure_ascii=False))
        return self._spec

    def _compute_spec(self) -> dict:
        pools: dict[str, list] = {p.name: [] for p in self.parts}
        seen: dict[str, dict[str, int]] = {p.name: {} for p in self.parts}
        states: dict[str, list[int]] = {}
        for idx, values in self.states():
            view = self._view(values)
            row = []
            for p in self.parts:
                text = json.dumps(view[p.name], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                if text not in seen[p.name]:
                    seen[p.name][text] = len(pools[p.name])
                    pools[p.name].append(view[p.name])
                row.append(seen[p.name][text])
            states[",".join(map(str, idx))] = row
        return {"version": 1, "id": self.key, "title": self.title,
                "controls": [c.spec() for c in self.controls], "parts": [p.spec() for p in self.parts],
                "presets": [{"label": lbl, "indices": {k: self._control(k).values.index(v) for k, v in vals.items()}}
                            for lbl, vals in self.presets],
                "pools": pools, "states": states}

    def view_at(self, **values) -> dict:
        """The view the page shows for these control values (from the embedded spec, as the script reads it)."""
        spec = self.spec()
        key = ",".join(str(c.values.index(values.get(c.name, c.value))) for c in self.controls)
        return {p.name: spec["pools"][p.name][i] for p, i in zip(self.parts, spec["states"][key])}

    def _control(self, name: str) -> Control:
        return next(c for c in self.controls if c.name == name)

    def _view(self, values: dict) -> dict:
        where = ", ".join(f"{k}={v!r}" for k, v in values.items())
        try:
            result = self.compute(**values)
        except Exception as err:
            raise ExplorerSpecError(f"compute({where}) failed: {type(err).__name__}: {err}") from err
        if not isinstance(result, dict):
            raise ExplorerSpecError(f"compute({where}) must return a dict of part values, got {type(result).__name__}")
        missing = {p.name for p in self.parts} - set(result)
        if missing:
            raise ExplorerSpecError(f"compute({where}) returned no value for parts {sorted(missing)}")
        view = {}
        for p in self.parts:
            value = result[p.name]
            if p.kind == "image":
                value = {"src": _png_data_uri(value)}
            view[p.name] = _jsonable(value, f"part {p.name!r} at {where}")
        return view

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return html_bundle(self.html(), f"{self!r} (an interactive figure: open the web page)")

    def html(self) -> str:
        """The explorer's HTML: a container, the JSON and the (inline) script; no network."""
        data = json.dumps(self.spec(), ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
        noscript = "（此交互图需要浏览器启用 JavaScript。）"
        return (f'<div class="course-explorer" id="{html.escape(self.key)}" data-course-explorer="1">'
                f'<noscript>{noscript}</noscript>'
                f'<script type="application/json" class="course-explorer-data">{data}</script></div>'
                f"<script>{script_source()}</script>")


def write_build_cache(path: Path, text: str) -> None:
    """Write one entry of a course build's cache (explorer specs, pure figures) whole: pages run in parallel,
    and none may read a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def script_source() -> str:
    """The vendored explorer script (defines ``window.CourseExplorer`` once, then mounts every explorer)."""
    return SCRIPT.read_text(encoding="utf-8").replace("</script", "<\\/script")


def _jsonable(value: Any, where: str) -> Any:
    try:
        import numpy as np
        if isinstance(value, np.generic):
            value = value.item()
        elif isinstance(value, np.ndarray):
            value = value.tolist()
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    if isinstance(value, dict):
        return {str(k): _jsonable(v, where) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if all(type(v) is int for v in value):      # the common case (heatmap cells, bars): nothing to convert
            return list(value)
        return [_jsonable(v, where) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ExplorerSpecError(f"{where}: {value} cannot be shown (not a finite number)")
        return round(value, 6)
    raise ExplorerSpecError(f"{where}: a {type(value).__name__} cannot be embedded as JSON")


def _png_data_uri(fig: Any) -> str:
    if not hasattr(fig, "savefig"):
        raise ExplorerSpecError(f"an image part needs a matplotlib Figure, got {type(fig).__name__}")
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
