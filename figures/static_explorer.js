// Course explorers on static pages: every view was computed by labsim at build time (figures/static_explorer.py)
// and embedded as JSON; this script only builds the controls and shows the view of the chosen state.
// No network, no kernel, no dependencies. Defined once per page; mounts every explorer not yet mounted.
(function () {
  'use strict';
  if (window.CourseExplorer) { window.CourseExplorer.mountAll(); return; }
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in (attrs || {})) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in (attrs || {})) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function bin(bounds, v) {
    for (var i = 0; i + 1 < bounds.length; i++) { if (v >= bounds[i] && v < bounds[i + 1]) { return i; } }
    return v < bounds[0] ? 0 : bounds.length - 2;
  }

  function drawHeatmap(part, value) {
    var cell = 11, left = 44, top = 24, rows = part.rows, cols = part.cols;
    var w = left + cols * cell + 8, h = top + rows * cell + 40;
    var s = svg('svg', {viewBox: '0 0 ' + w + ' ' + h, width: w, height: h, role: 'img',
                        'class': 'ce-heatmap', 'aria-label': value.title || part.label || ''});
    s.appendChild(svg('text', {x: left, y: 14, 'class': 'ce-title'}, value.title || ''));
    s.appendChild(svg('rect', {x: left, y: top, width: cols * cell, height: rows * cell, 'class': 'ce-blank'}));
    var flat = value.cells || [];
    for (var q = 0; q + 2 < flat.length; q += 3) {
      var c = [flat[q], flat[q + 1], flat[q + 2]];
      var r = svg('rect', {x: left + c[1] * cell, y: top + c[0] * cell, width: cell, height: cell,
                           fill: part.colors[bin(part.bounds, c[2])], 'data-row': c[0], 'data-col': c[1],
                           'data-value': c[2]});
      r.appendChild(svg('title', {}, part.ylabel + ' ' + c[0] + ', ' + part.xlabel + ' ' + c[1] + ': ' + c[2]));
      s.appendChild(r);
    }
    if (part.row_groups) {
      for (var g = part.row_groups; g < rows; g += part.row_groups) {
        s.appendChild(svg('line', {x1: left, x2: left + cols * cell, y1: top + g * cell, y2: top + g * cell,
                                   'class': 'ce-group'}));
      }
    }
    for (var i = 0; i < Math.max(rows, cols); i += 8) {
      if (i < cols) { s.appendChild(svg('text', {x: left + i * cell, y: top + rows * cell + 12, 'class': 'ce-tick'}, i)); }
      if (i < rows) { s.appendChild(svg('text', {x: left - 4, y: top + i * cell + 9, 'class': 'ce-tick', 'text-anchor': 'end'}, i)); }
    }
    s.appendChild(svg('text', {x: left + cols * cell / 2, y: top + rows * cell + 26, 'class': 'ce-axis',
                               'text-anchor': 'middle'}, part.xlabel));
    s.appendChild(svg('text', {x: 10, y: top + rows * cell / 2, 'class': 'ce-axis', 'text-anchor': 'middle',
                               transform: 'rotate(-90 10 ' + (top + rows * cell / 2) + ')'}, part.ylabel));
    var box = el('div', {'class': 'ce-figure'});
    box.appendChild(s);
    if (part.legend && part.legend.length) {
      var legend = el('div', {'class': 'ce-legend'});
      part.legend.forEach(function (label, k) {
        var item = el('span', {'class': 'ce-legend-item'});
        var sw = el('span', {'class': 'ce-swatch'});
        sw.style.background = part.colors[k];
        item.appendChild(sw);
        item.appendChild(document.createTextNode(label));
        legend.appendChild(item);
      });
      box.appendChild(legend);
    }
    return box;
  }

  function drawBars(part, value, on) {
    var vals = value.values || [], bw = 11, left = 34, top = 24, ph = 90;
    var max = Math.max.apply(null, vals.concat([1]));
    var w = left + vals.length * bw + 8, h = top + ph + 40;
    var s = svg('svg', {viewBox: '0 0 ' + w + ' ' + h, width: w, height: h, role: 'img', 'class': 'ce-bars',
                        'aria-label': value.title || part.label || ''});
    s.appendChild(svg('text', {x: left, y: 14, 'class': 'ce-title'}, value.title || ''));
    vals.forEach(function (v, i) {
      var bh = ph * v / max;
      var r = svg('rect', {x: left + i * bw + 1, y: top + ph - bh, width: bw - 2, height: bh, 'data-index': i,
                           'data-value': v, 'class': i === on ? 'ce-bar ce-bar-on' : 'ce-bar'});
      r.appendChild(svg('title', {}, part.xlabel + ' ' + i + ': ' + v));
      s.appendChild(r);
    });
    s.appendChild(svg('line', {x1: left, x2: left + vals.length * bw, y1: top + ph, y2: top + ph, 'class': 'ce-group'}));
    s.appendChild(svg('text', {x: left - 4, y: top + 8, 'class': 'ce-tick', 'text-anchor': 'end'}, max));
    s.appendChild(svg('text', {x: left - 4, y: top + ph, 'class': 'ce-tick', 'text-anchor': 'end'}, 0));
    for (var i = 0; i < vals.length; i += 4) {
      s.appendChild(svg('text', {x: left + i * bw + bw / 2, y: top + ph + 12, 'class': 'ce-tick', 'text-anchor': 'middle'}, i));
    }
    s.appendChild(svg('text', {x: left + vals.length * bw / 2, y: top + ph + 27, 'class': 'ce-axis',
                               'text-anchor': 'middle'}, part.xlabel + (part.ylabel ? '（纵轴：' + part.ylabel + '）' : '')));
    var box = el('div', {'class': 'ce-figure'});
    box.appendChild(s);
    return box;
  }

  function mount(root) {
    if (root.getAttribute('data-mounted')) { return; }
    var data = JSON.parse(root.querySelector('script.course-explorer-data').textContent);
    root.setAttribute('data-mounted', '1');
    var idx = data.controls.map(function (c) { return c.index; });
    var names = data.controls.map(function (c) { return c.name; });
    var form = el('div', {'class': 'ce-controls'});
    var inputs = [];
    if (data.title) { root.appendChild(el('div', {'class': 'ce-heading'}, data.title)); }

    data.controls.forEach(function (c, ci) {
      var row = el('div', {'class': 'ce-control', 'data-control': c.name});
      var id = data.id + '-' + c.name;
      row.appendChild(el('label', {'for': id, 'class': 'ce-label'}, c.label));
      var input;
      if (c.kind === 'slider') {
        input = el('input', {type: 'range', id: id, min: 0, max: c.values.length - 1, step: 1, value: c.index,
                             name: c.name});
        var shown = el('output', {'class': 'ce-slider-value', 'for': id}, c.labels[c.index]);
        input.addEventListener('input', function () {
          idx[ci] = Number(input.value); shown.textContent = c.labels[idx[ci]]; update();
        });
        input.setValue = function (k) { input.value = k; shown.textContent = c.labels[k]; };
        row.appendChild(input); row.appendChild(shown);
      } else if (c.kind === 'checkbox') {
        input = el('input', {type: 'checkbox', id: id, name: c.name});
        input.checked = c.index === 1;
        input.addEventListener('change', function () { idx[ci] = input.checked ? 1 : 0; update(); });
        input.setValue = function (k) { input.checked = k === 1; };
        row.appendChild(input);
      } else if (c.kind === 'radio') {
        input = el('span', {id: id, 'class': 'ce-radios', role: 'radiogroup'});
        var radios = c.labels.map(function (label, k) {
          var lab = el('label', {'class': 'ce-radio'});
          var r = el('input', {type: 'radio', name: id, value: k});
          r.checked = k === c.index;
          r.addEventListener('change', function () { if (r.checked) { idx[ci] = k; update(); } });
          lab.appendChild(r); lab.appendChild(document.createTextNode(label));
          input.appendChild(lab);
          return r;
        });
        input.setValue = function (k) { radios.forEach(function (r, j) { r.checked = j === k; }); };
        row.appendChild(input);
      } else {
        input = el('select', {id: id, name: c.name});
        c.labels.forEach(function (label, k) {
          var o = el('option', {value: k}, label);
          if (k === c.index) { o.selected = true; }
          input.appendChild(o);
        });
        input.addEventListener('change', function () { idx[ci] = Number(input.value); update(); });
        input.setValue = function (k) { input.value = String(k); };
        row.appendChild(input);
      }
      inputs.push(input);
      form.appendChild(row);
    });

    if (data.presets && data.presets.length) {
      var presets = el('div', {'class': 'ce-presets'});
      data.presets.forEach(function (p) {
        var b = el('button', {type: 'button', 'class': 'ce-preset'}, p.label);
        b.addEventListener('click', function () {
          data.controls.forEach(function (c, ci) {
            if (p.indices.hasOwnProperty(c.name)) { idx[ci] = p.indices[c.name]; inputs[ci].setValue(idx[ci]); }
          });
          update();
        });
        presets.appendChild(b);
      });
      form.appendChild(presets);
    }

    var out = el('div', {'class': 'ce-output', 'aria-live': 'polite'});
    var layout = el('div', {'class': 'ce-layout'});
    layout.appendChild(form); layout.appendChild(out);
    root.appendChild(layout);

    function update() {
      var key = idx.join(',');
      var row = data.states[key];
      root.setAttribute('data-state', key);
      out.textContent = '';
      if (!row) { out.appendChild(el('p', {'class': 'ce-missing'}, '（此组合没有预先计算的结果）')); return; }
      var numbers = el('dl', {'class': 'ce-numbers'});
      data.parts.forEach(function (part, pi) {
        var v = data.pools[part.name][row[pi]];
        if (part.kind === 'number') {
          numbers.appendChild(el('dt', {}, part.label));
          numbers.appendChild(el('dd', {'data-part': part.name}, v));
        } else if (part.kind === 'text') {
          out.appendChild(el('p', {'class': 'ce-text', 'data-part': part.name}, v));
        } else if (part.kind === 'heatmap') {
          var hm = drawHeatmap(part, v); hm.setAttribute('data-part', part.name); out.appendChild(hm);
        } else if (part.kind === 'bars') {
          var hc = names.indexOf(part.highlight);
          var bars = drawBars(part, v, hc < 0 ? -1 : data.controls[hc].values[idx[hc]]); bars.setAttribute('data-part', part.name); out.appendChild(bars);
        } else if (part.kind === 'image') {
          out.appendChild(el('img', {src: v.src, alt: part.alt || '', 'data-part': part.name, 'class': 'ce-image'}));
        }
      });
      if (numbers.childNodes.length) { out.insertBefore(numbers, out.firstChild); }
    }
    update();
  }

  function mountAll() {
    var roots = document.querySelectorAll('[data-course-explorer]');
    for (var i = 0; i < roots.length; i++) {
      try { mount(roots[i]); } catch (err) {
        roots[i].setAttribute('data-error', String(err));
        console.error('course explorer:', err);
      }
    }
  }

  var style = document.createElement('style');
  style.textContent = [
    '.course-explorer{border:1px solid #dee2e6;border-radius:.4rem;padding:.8rem 1rem;margin:1rem 0;background:#fcfcfd}',
    '.course-explorer .ce-heading{font-weight:700;margin-bottom:.5rem}',
    '.course-explorer .ce-layout{display:flex;flex-wrap:wrap;gap:1.2rem;align-items:flex-start}',
    '.course-explorer .ce-controls{flex:0 0 17rem;display:flex;flex-direction:column;gap:.55rem;font-size:.9rem}',
    '.course-explorer .ce-control{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem}',
    '.course-explorer .ce-label{font-weight:600;min-width:5.5rem}',
    '.course-explorer input[type=range]{width:9rem}',
    '.course-explorer .ce-radio{margin-right:.6rem;font-weight:normal}',
    '.course-explorer .ce-presets{display:flex;flex-wrap:wrap;gap:.3rem;margin-top:.3rem}',
    '.course-explorer .ce-preset{font-size:.8rem;padding:.15rem .5rem;border:1px solid #2c5d8f;border-radius:.3rem;' +
      'background:#fff;color:#2c5d8f;cursor:pointer}',
    '.course-explorer .ce-output{flex:1 1 22rem;min-width:0}',
    '.course-explorer .ce-numbers{display:grid;grid-template-columns:max-content auto;gap:.15rem .8rem;margin:0 0 .5rem;font-size:.92rem}',
    '.course-explorer .ce-numbers dt{color:#495057;font-weight:600;white-space:nowrap;float:none;width:auto;margin:0}',
    '.course-explorer .ce-numbers dd{margin:0;font-variant-numeric:tabular-nums}',
    '.course-explorer .ce-figure{display:inline-block;vertical-align:top;margin:.2rem .8rem .4rem 0;max-width:100%;overflow-x:auto}',
    '.course-explorer svg text{font-size:10px;fill:#333;font-family:system-ui,"Noto Sans CJK SC",sans-serif}',
    '.course-explorer svg .ce-title{font-size:11px;font-weight:600}',
    '.course-explorer svg .ce-blank{fill:#f3f3f3}',
    '.course-explorer svg .ce-group{stroke:#222;stroke-width:1.2}',
    '.course-explorer svg .ce-bar{fill:#9ecae1}.course-explorer svg .ce-bar-on{fill:#d95f0e}',
    '.course-explorer .ce-legend{font-size:.78rem;display:flex;flex-wrap:wrap;gap:.2rem .6rem}',
    '.course-explorer .ce-swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.2rem;vertical-align:middle;border:1px solid #999}',
    '.course-explorer .ce-text{margin:.2rem 0;font-size:.9rem}'
  ].join('\n');
  document.head.appendChild(style);

  window.CourseExplorer = {mount: mount, mountAll: mountAll};
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', mountAll);
  } else {
    mountAll();
  }
})();
