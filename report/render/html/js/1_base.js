/* gpuleak-report --html: draws the page from the JSON in #gl-data.
 * Hand-written SVG, no library, no network.  Everything here works on data
 * that gpuleak-report already aggregated (docs/html-report.md), so the cost
 * of drawing is bounded whatever the size of the snapshot.
 * Elements carry data-* attributes with exact numbers (bytes, counts) for
 * tests and for anyone who inspects the page. */
(function () {
  'use strict';
  var T_START = performance.now();
  var D = JSON.parse(document.getElementById('gl-data').textContent);
  var app = document.getElementById('app');
  var NS = 'http://www.w3.org/2000/svg';

  /* ---- helpers ---- */
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    addKids(e, kids);
    return e;
  }
  function sv(tag, attrs, kids) {
    var e = document.createElementNS(NS, tag);
    setAttrs(e, attrs);
    addKids(e, kids);
    return e;
  }
  function setAttrs(e, attrs) {
    if (!attrs) return;
    for (var k in attrs) {
      if (attrs[k] === null || attrs[k] === undefined) continue;
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.setAttribute('class', attrs[k]);
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
  }
  function addKids(e, kids) {
    if (kids === undefined || kids === null) return;
    if (!Array.isArray(kids)) kids = [kids];
    for (var i = 0; i < kids.length; i++) {
      var k = kids[i];
      if (k === null || k === undefined) continue;
      e.appendChild(typeof k === 'string' ? document.createTextNode(k) : k);
    }
  }
  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function human(n) {
    if (n < 1024) return n + ' B';
    var u = 0;
    while (n >= 1024 && u < UNITS.length - 1) { n /= 1024; u++; }
    return n.toFixed(1) + ' ' + UNITS[u];
  }
  function exact(n) { return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function bytes(n) { return exact(n) + ' bytes (' + human(n) + ')'; }
  function secs(ns) {
    var s = ns / 1e9;
    if (s >= 100) return s.toFixed(0) + ' s';
    if (s >= 1) return s.toFixed(2) + ' s';
    if (s >= 0.001) return (s * 1e3).toFixed(s >= 0.01 ? 0 : 1) + ' ms';
    return (ns / 1e3).toFixed(0) + ' µs';
  }
  function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(a / b < 0.1 ? 2 : 1) + '%' : '-'; }
  function base(p) { var i = p.lastIndexOf('/'); return i < 0 ? p : p.slice(i + 1); }
  function devName(d) { return d < 0 ? 'host' : 'device ' + d; }
  function frameText(i, full) {
    var f = D.frames[i];
    if (!f) return '?';
    if (!f[1] && !f[2] && !f[3]) return f[0];
    var where = f[1] ? (full ? f[1] : base(f[1])) + (f[2] ? ':' + f[2] : '') : f[3];
    return f[0] + (where ? ' (' + where + ')' : '') + (f[4] & 1 ? ' [inlined]' : '');
  }
  function stackLines(si, max) {
    var st = D.stacks[si];
    if (!st || !st.length) return ['(no stack captured)'];
    var out = [];
    /* a run of PyTorch's C++ frames is one line, as in the text report
       (--full-stacks shows them) */
    function internal(k) { return !D.full_stacks && k < st.length && D.frames[st[k]] && D.frames[st[k]][4] & 4; }
    for (var i = 0; i < st.length && (!max || out.length < max); i++) {
      var j = i;
      while (internal(j)) j++;
      if (j - i >= 2) {
        out.push('#' + i + '-#' + (j - 1) + ' PyTorch internals, ' + (j - i) + ' frames');
        i = j - 1;
      } else {
        out.push('#' + i + ' ' + frameText(st[i], true));
      }
    }
    if (max && i < st.length) out.push('... ' + (st.length - i) + ' more');
    return out;
  }
  /* a stack's one-line name: its label frame, the first outside known
     allocator wrappers (the reporter's model/user_frame.h) */
  function topFrame(si) {
    var st = D.stacks[si];
    var at = D.stack_labels ? D.stack_labels[si] || 0 : 0;
    return st && st.length ? frameText(st[at < st.length ? at : 0], false) : '(no stack captured)';
  }
  /* PyTorch's view (D.torch, docs/pytorch.md): a tensor line by its frame */
  var TORCH = D.torch && D.torch.status === 'answered' ? D.torch : null;
  /* PyTorch's verdict on its steps (docs/pytorch.md, "Leaks by growth") */
  var GROWTH = D.leaks_by_growth || null;
  var GROWTH_LEAKS = GROWTH ? GROWTH.leaks : [];
  var REACHABLE = GROWTH ? GROWTH.still_reachable : null;
  var LINES_UNKNOWN = 'lines unknown: set GPULEAK_TORCH_LINES=start to name them';
  function stepLine(r) {
    return r.line === null ? LINES_UNKNOWN : r.line === 0 ? '(no Python line)' : (r.function || '?') + ' (' + base(r.file || '?') + ':' + r.line + ')';
  }
  function lineText(l) { return l.frame >= 0 ? frameText(l.frame, false) : '(no Python line: PyTorch recorded none)'; }
  function tensorsText(b, n) { return human(b) + ' in ' + exact(n) + ' tensor' + (n === 1 ? '' : 's'); }
  function hashColor(s, hue0, hue1) {
    var h = 0;
    for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    var x = (h >>> 0) % 1000 / 1000;
    return 'hsl(' + (hue0 + x * (hue1 - hue0)).toFixed(0) + ',' + (62 + (h >>> 10) % 20) + '%,' + (60 + (h >>> 20) % 12) + '%)';
  }

  /* one tooltip for the whole page */
  var tip = el('div', {id: 'tip'});
  document.body.appendChild(tip);
  function showTip(ev, text) {
    tip.textContent = text;
    tip.style.display = 'block';
    var x = ev.clientX + 14, y = ev.clientY + 14;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > window.innerWidth - 8) x = Math.max(4, ev.clientX - w - 14);
    if (y + h > window.innerHeight - 8) y = Math.max(4, ev.clientY - h - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function hideTip() { tip.style.display = 'none'; }
  function svgX(svg, ev, width) {
    var r = svg.getBoundingClientRect();
    return (ev.clientX - r.left) * width / r.width;
  }
  /* an axis label's width in the SVG's units (11px sans-serif) */
  function labelWidth(text) { return 6.2 * text.length; }
  /* the byte axis: grid lines and labels (GLTicks, ticks.js) */
  function byteAxis(g, max, x1, x2, Y) {
    GLTicks.bytes(max, 4).forEach(function (t) {
      g.appendChild(sv('line', {cls: 'grid', x1: x1, x2: x2, y1: Y(t.v), y2: Y(t.v)}));
      g.appendChild(sv('text', {cls: 'ytick', x: x1 - 4, y: Y(t.v) + 3, 'text-anchor': 'end', 'data-v': t.v, text: t.label}));
    });
  }
  /* the time axis: ticks between t0 and t1 (ns) at x = X(t), labels kept
   * inside [lo, hi] */
  function timeAxis(g, t0, t1, X, y, lo, hi, n) {
    GLTicks.time(t0, t1, n).forEach(function (t) {
      var x = X(t.v);
      g.appendChild(sv('line', {x1: x, x2: x, y1: y - 16, y2: y - 12}));
      g.appendChild(sv('text', {cls: 'xtick', x: x, y: y, 'text-anchor': GLTicks.anchor(x, labelWidth(t.label), lo, hi),
        'data-v': t.v, text: t.label}));
    });
  }

