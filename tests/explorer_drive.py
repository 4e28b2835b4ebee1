"""Drive a static explorer (figures/static_explorer.js) in a Playwright page the way a reader does.

``move`` changes one control through its real input element and the events a user's action fires;
``sweep`` visits every state of the control grid that way and returns what the page shows for each.
"""
from __future__ import annotations

_SWEEP = r"""(root) => {
  const rows = Array.from(root.querySelectorAll('.ce-control'));
  const sizes = rows.map(r => {
    const radios = r.querySelectorAll('input[type=radio]');
    if (radios.length) return radios.length;
    const s = r.querySelector('select'); if (s) return s.options.length;
    const rg = r.querySelector('input[type=range]'); if (rg) return Number(rg.max) + 1;
    return 2;   // checkbox
  });
  function set(r, k) {
    const radios = r.querySelectorAll('input[type=radio]');
    if (radios.length) { radios[k].click(); return; }
    const s = r.querySelector('select');
    if (s) { s.value = String(k); s.dispatchEvent(new Event('change', {bubbles: true})); return; }
    const rg = r.querySelector('input[type=range]');
    if (rg) { rg.value = String(k); rg.dispatchEvent(new Event('input', {bubbles: true})); return; }
    const cb = r.querySelector('input[type=checkbox]');
    if (cb.checked !== (k === 1)) cb.click();
  }
  const out = {};
  const idx = sizes.map(() => 0);
  rows.forEach((r, i) => set(r, 0));
  while (true) {
    const shown = {};
    root.querySelectorAll('dd[data-part]').forEach(d => { shown[d.dataset.part] = d.textContent; });
    root.querySelectorAll('[data-part] svg.ce-bars').forEach(svg => {
      const part = svg.parentNode.dataset.part;
      shown[part] = Array.from(svg.querySelectorAll('rect.ce-bar')).map(b => Number(b.dataset.value));
      shown[part + ':on'] = Array.from(svg.querySelectorAll('rect.ce-bar-on')).map(b => Number(b.dataset.index));
    });
    root.querySelectorAll('[data-part] svg.ce-heatmap').forEach(svg => {
      shown[svg.parentNode.dataset.part + ':cells'] = svg.querySelectorAll('rect[data-row]').length;
    });
    out[root.getAttribute('data-state')] = shown;
    let d = sizes.length - 1;
    while (d >= 0 && idx[d] === sizes[d] - 1) { idx[d] = 0; set(rows[d], 0); d--; }
    if (d < 0) break;
    idx[d]++; set(rows[d], idx[d]);
  }
  return out;
}"""


def numbers(page, selector: str) -> dict[str, str]:
    """The explorer's numbers as the page shows them: ``{part name: text}``."""
    return page.eval_on_selector(selector, "(root) => Object.fromEntries(Array.from("
                                 "root.querySelectorAll('dd[data-part]')).map(d => [d.dataset.part, d.textContent]))")


def sweep(page, selector: str) -> dict[str, dict]:
    """Every state of the explorer at ``selector``, reached through its controls: ``{"i,j,...": shown}``."""
    return page.eval_on_selector(selector, _SWEEP)


def states(spec_controls: list[dict]):
    """``(key, {name: value})`` for every state, from the explorer's control definitions (row-major)."""
    import itertools
    for idx in itertools.product(*(range(len(c["values"])) for c in spec_controls)):
        yield ",".join(map(str, idx)), {c["name"]: c["values"][i] for c, i in zip(spec_controls, idx)}
