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

  /* ---- header ---- */
  var S = D.snapshot;
  var devPeak = {};
  (D.devices || []).forEach(function (d) { devPeak[d.device] = d; }); /* a merge page has none */
  function header() {
    var exe = base(S.exe || S.path);
    var h = el('header', null, [
      el('h1', {text: 'gpuleak report: ' + exe + ' (pid ' + S.pid + ')'}),
      el('div', {cls: 'meta', text: S.path + ' · host ' + S.host + ' · ' + (S.rank === null ? 'no rank' : 'rank ' + S.rank) + ' · ' +
        (S.final ? 'at exit' : S.reason) + ' · ran ' + secs(S.duration_ns) + ' · ' + exact(S.live_allocations) +
        ' live allocations · ' + exact(S.events) + ' history events'}),
    ]);
    var cards = el('div', {cls: 'cards'});
    var sm = D.summary;
    if (GROWTH_LEAKS.length) cards.appendChild(el('div', {cls: 'card', id: 'card-growth',  /* first: the verdict's leaks */
      'data-bytes-per-step': GROWTH.bytes_per_step, 'data-lines': GROWTH.lines_known ? GROWTH_LEAKS.length : 0}, [
      el('div', {cls: 'v', text: human(GROWTH.bytes_per_step) + '/step'}),
      el('div', {cls: 'l', text: 'leaked by growth: ' + exact(GROWTH.bytes_per_step) + ' bytes/step ' +
        (GROWTH.lines_known ? 'at ' + GROWTH_LEAKS.length + (GROWTH_LEAKS.length === 1 ? ' line' : ' lines') : 'allocated') +
        ', steps ' + GROWTH_LEAKS[0].from_step + ' to ' + GROWTH_LEAKS[0].to_step +
        (GROWTH.lines_known ? '' : '; ' + LINES_UNKNOWN)})]));
    cards.appendChild(el('div', {cls: 'card', id: 'card-leaked', 'data-bytes': sm.leaked_bytes}, [
      el('div', {cls: 'v', text: human(sm.leaked_bytes)}),
      el('div', {cls: 'l', text: 'leaked: ' + exact(sm.leaked_count) + ' allocations in ' + exact(sm.leak_groups) + ' stacks'})]));
    if (TORCH) cards.appendChild(el('div', {cls: 'card', id: 'card-torch', 'data-bytes': TORCH.allocated_bytes,
      'data-tensors': TORCH.tensor_count, 'data-lines': TORCH.lines_total}, [
      el('div', {cls: 'v', text: human(TORCH.allocated_bytes)}),
      el('div', {cls: 'l', text: 'live tensors in PyTorch\u2019s cache: ' + exact(TORCH.tensor_count) + ' tensors from ' +
        exact(TORCH.lines_total) + ' Python lines, in ' + human(TORCH.reserved_bytes) + ' reserved'})]));
    if (REACHABLE && REACHABLE.lines.length) cards.appendChild(el('div', {cls: 'card', id: 'card-reachable',
      'data-bytes': REACHABLE.bytes, 'data-lines': REACHABLE.lines.length}, [
      el('div', {cls: 'v', text: human(REACHABLE.bytes)}),
      el('div', {cls: 'l', text: 'still reachable: ' + exact(REACHABLE.count) + ' tensors at ' + exact(REACHABLE.lines.length) +
        ' lines that did not grow (not leaks)'})]));
    if (sm.cached_bytes) cards.appendChild(el('div', {cls: 'card', 'data-bytes': sm.cached_bytes}, [
      el('div', {cls: 'v', text: human(sm.cached_bytes)}), el('div', {cls: 'l', text: 'held by allocator caches'})]));
    if (sm.suppressed_bytes) cards.appendChild(el('div', {cls: 'card', 'data-bytes': sm.suppressed_bytes}, [
      el('div', {cls: 'v', text: human(sm.suppressed_bytes)}), el('div', {cls: 'l', text: 'suppressed'})]));
    if (sm.mapped_count) cards.appendChild(el('div', {cls: 'card', id: 'card-mapped', 'data-bytes': sm.mapped_bytes}, [
      el('div', {cls: 'v', text: human(sm.mapped_bytes)}),
      el('div', {cls: 'l', text: 'mapped from other processes: ' + exact(sm.mapped_count) + ' mappings in ' +
        exact(sm.mapped_groups) + ' stacks (not this process\u2019s memory)'})]));
    if (sm.modules_count) cards.appendChild(el('div', {cls: 'card', id: 'card-modules', 'data-bytes': sm.modules_bytes}, [
      el('div', {cls: 'v', text: human(sm.modules_bytes)}),
      el('div', {cls: 'l', text: 'loaded modules: ' + exact(sm.modules_count) + ' loads in ' +
        exact(sm.modules_groups) + ' stacks (not leaks)'})]));
    D.devices.forEach(function (d) {
      cards.appendChild(el('div', {cls: 'card peak', 'data-device': d.device, 'data-peak-bytes': d.peak_bytes}, [
        el('div', {cls: 'v', text: human(d.peak_bytes)}),
        el('div', {cls: 'l', text: devName(d.device) + ' peak at ' + secs(d.peak_time_ns) + ', live ' + human(d.live_bytes) +
          (d.fragmentation !== undefined ? ', fragmentation ' + d.fragmentation.toFixed(2) : '')})]));
    });
    (D.ledger || []).forEach(function (L) {
      cards.appendChild(el('div', {cls: 'card ledger', 'data-device': L.device, 'data-unexplained-bytes': L.unexplained_bytes}, [
        el('div', {cls: 'v', text: (L.unexplained_bytes < 0 ? '-' : '') + human(Math.abs(L.unexplained_bytes))}),
        el('div', {cls: 'l', text: devName(L.device) + ' unexplained: ' + L.unexplained_pct.toFixed(1) + '% of ' +
          human(L.used_bytes) + ' used (ledger in Tables)'})]));
    });
    h.appendChild(cards);
    var nav = el('nav');
    [['timeline', 'Timeline'], ['flame', 'Flame graphs']].concat(D.torch ? [['torch', 'PyTorch\u2019s tensors']] : [])
      .concat([['addrmap', 'Address space'], ['tables', 'Tables']])
      .concat(D.growth ? [['growth', 'Growth across snapshots']] : [])
      .forEach(function (x) { nav.appendChild(el('a', {href: '#' + x[0], text: x[1]})); });
    h.appendChild(nav);
    return h;
  }

  /* ---- timeline ---- */
  var W = 1000, ML = 64, MR = 12, MT = 26, MB = 22, TH = 230;
  function timeline() {
    var sec = el('section', {id: 'timeline'}, el('h2', {text: 'Memory over time'}));
    var T = D.timeline;
    if (!T.present) {
      sec.appendChild(el('p', {cls: 'muted', text: 'No history in this snapshot: the timeline needs EVENTS records.'}));
      return sec;
    }
    var note = 'History: ' + exact(T.last_seq - T.first_seq + 1) + ' sequence numbers' +
      (T.wrapped ? ' (the ring wrapped: the first ' + exact(T.first_seq - 1) + ' are gone; the level before it is derived from the live allocations)' : '') +
      '. Drag to zoom into a time range, double-click to zoom out; hover for the event under the cursor.';
    sec.appendChild(el('p', {cls: 'meta', text: note}));
    T.devices.forEach(function (dv) { sec.appendChild(timelinePanel(T, dv)); });
    return sec;
  }

  function timelinePanel(T, dv) {
    var span = Math.max(1, T.t1 - T.t0);
    var n = dv.t.length, ts = dv.t, last = dv.last, lo = dv.lo || last, hi = dv.hi || last;
    var peak = devPeak[dv.device];
    var view = [0, span];
    var panel = el('div', {cls: 'panel'});
    var reset = el('button', {text: 'reset zoom'});
    var info = el('span', {cls: 'meta'});
    panel.appendChild(el('div', {cls: 'panel-head'}, [el('h3', {text: devName(dv.device)}), info, reset]));
    var svg = sv('svg', {cls: 'timeline', viewBox: '0 0 ' + W + ' ' + TH, 'data-device': dv.device,
      'data-max-bytes': dv.max_bytes, 'data-peak-bytes': peak ? peak.peak_bytes : dv.max_bytes,
      'data-points': dv.points, 'data-drawn-points': n});
    panel.appendChild(svg);
    var PW = W - ML - MR, PH = TH - MT - MB;

    function idxAt(t) { /* last bucket starting at or before t, -1 before the first */
      var a = 0, b = n - 1, r = -1;
      while (a <= b) { var m = (a + b) >> 1; if (ts[m] <= t) { r = m; a = m + 1; } else b = m - 1; }
      return r;
    }
    function levelBefore(i) { return i < 0 ? dv.start_bytes : last[i]; }

    function draw() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var v0 = view[0], v1 = view[1], vs = Math.max(1, v1 - v0);
      svg.setAttribute('data-view-start', Math.round(v0));
      svg.setAttribute('data-view-end', Math.round(v1));
      var cols = PW;
      var cmax = new Float64Array(cols), cmin = new Float64Array(cols), clast = new Float64Array(cols);
      var i = idxAt(v0), cur = levelBefore(i), ymax = 0;
      i = i < 0 ? 0 : i + 1;
      for (var c = 0; c < cols; c++) {
        var tEnd = v0 + vs * (c + 1) / cols;
        var mx = cur, mn = cur;
        while (i < n && ts[i] < tEnd) {
          if (hi[i] > mx) mx = hi[i];
          if (lo[i] < mn) mn = lo[i];
          cur = last[i];
          if (cur > mx) mx = cur;
          if (cur < mn) mn = cur;
          i++;
        }
        cmax[c] = mx; cmin[c] = mn; clast[c] = cur;
        if (mx > ymax) ymax = mx;
      }
      var peakIn = peak && peak.peak_time_ns >= T.t0 + v0 && peak.peak_time_ns <= T.t0 + v1;
      if (peakIn && peak.peak_bytes > ymax) ymax = peak.peak_bytes;
      ymax = ymax > 0 ? ymax * 1.08 : 1;
      function Y(b) { return MT + PH - PH * b / ymax; }
      function X(t) { return ML + PW * (t - v0) / vs; }
      /* grid and axes */
      var g = sv('g', {cls: 'axis'});
      byteAxis(g, ymax / 1.08, ML, W - MR, Y);
      /* times since the process started, as the labels elsewhere */
      timeAxis(g, T.t0 + v0, T.t0 + v0 + vs, function (t) { return X(t - T.t0); }, TH - 6, 0, W, 6);
      g.appendChild(sv('line', {x1: ML, x2: W - MR, y1: MT + PH, y2: MT + PH}));
      svg.appendChild(g);
      /* envelope: highest level in each column (light), lowest (dark), last level (line) */
      var top = 'M' + ML + ',' + Y(0), bot = top, line = '';
      for (c = 0; c < cols; c++) {
        var x0 = ML + c, x1 = ML + c + 1;
        top += 'L' + x0 + ',' + Y(cmax[c]).toFixed(1) + 'L' + x1 + ',' + Y(cmax[c]).toFixed(1);
        bot += 'L' + x0 + ',' + Y(cmin[c]).toFixed(1) + 'L' + x1 + ',' + Y(cmin[c]).toFixed(1);
        line += (c ? 'L' : 'M') + x0 + ',' + Y(clast[c]).toFixed(1) + 'L' + x1 + ',' + Y(clast[c]).toFixed(1);
      }
      top += 'L' + (ML + cols) + ',' + Y(0) + 'Z';
      bot += 'L' + (ML + cols) + ',' + Y(0) + 'Z';
      svg.appendChild(sv('path', {cls: 'env-hi', d: top}));
      svg.appendChild(sv('path', {cls: 'env-lo', d: bot}));
      svg.appendChild(sv('path', {cls: 'level', d: line}));
      /* annotations, OOMs, snapshots: labels only where there is room */
      var lastLabel = -1e9, shown = 0, marks = T.marks;
      for (var k = 0; k < marks.length; k++) {
        var m = marks[k];
        if (m[3] >= 0 && m[3] !== dv.device) continue;
        if (m[1] < v0 || m[1] > v1) continue;
        var x = X(m[1]);
        /* a snapshot mark says which snapshot it is: the history holds the
         * marks of the earlier ones too, and an unnamed "snapshot" read as
         * this page's own one at the wrong time */
        var label = m[0] === 3 ? 'OOM' : m[0] === 4 ? (m[5] === S.index ? 'this snapshot (' + m[5] + ')' : 'snapshot ' + m[5]) :
          (m[2] === null ? 'annotation' : m[2]);
        var mg = sv('g', {cls: 'mark' + (m[0] === 3 ? ' oom' : ''), 'data-type': m[0], 'data-seq': m[4],
          'data-label': label, 'data-time-ns': T.t0 + m[1], 'data-index': m[0] === 4 ? m[5] : null});
        mg.appendChild(sv('line', {x1: x, x2: x, y1: MT - 4, y2: MT + PH}));
        if (x - lastLabel > 70) {
          var shortLabel = label.length > 18 ? label.slice(0, 17) + '…' : label;
          /* right of the line, or left of it where it would leave the chart */
          var right = x + 3 + labelWidth(shortLabel) <= W - MR;
          mg.appendChild(sv('text', {x: right ? x + 3 : x - 3, y: MT - 8, 'text-anchor': right ? 'start' : 'end', text: shortLabel}));
          lastLabel = x;
          shown++;
        }
        svg.appendChild(mg);
      }
      /* the device's peak (from the snapshot's counters) */
      if (peakIn) {
        var px = X(peak.peak_time_ns - T.t0), py = Y(peak.peak_bytes);
        var pg = sv('g', {cls: 'peak-marker', 'data-bytes': peak.peak_bytes, 'data-time-ns': peak.peak_time_ns,
          'data-seq': peak.peak_seq});
        pg.appendChild(sv('line', {x1: px, x2: px, y1: MT, y2: MT + PH}));
        pg.appendChild(sv('circle', {cx: px, cy: py, r: 4}));
        pg.appendChild(sv('text', {x: Math.min(px + 6, W - MR - 150), y: Math.max(py - 6, MT + 10),
          text: 'peak ' + human(peak.peak_bytes)}));
        svg.appendChild(pg);
      }
      info.textContent = 'peak ' + bytes(peak ? peak.peak_bytes : dv.max_bytes) + ' · highest in the history ' +
        human(dv.max_bytes) + ' · ' + exact(dv.points) + ' points' + (dv.raw ? '' : ' in ' + exact(n) + ' buckets') +
        (v0 > 0 || v1 < span ? ' · showing ' + secs(T.t0 + v0) + ' – ' + secs(T.t0 + v1) : '');
      cursor = sv('line', {cls: 'cursor', y1: MT, y2: MT + PH, x1: -10, x2: -10});
      sel = sv('rect', {cls: 'sel', x: -10, y: MT, width: 0, height: PH});
      svg.appendChild(cursor);
      svg.appendChild(sel);
    }
    var cursor, sel, drag = null;
    function tAt(ev) {
      var x = Math.max(ML, Math.min(W - MR, svgX(svg, ev, W)));
      return {x: x, t: view[0] + (view[1] - view[0]) * (x - ML) / PW};
    }
    svg.addEventListener('mousemove', function (ev) {
      var p = tAt(ev);
      cursor.setAttribute('x1', p.x);
      cursor.setAttribute('x2', p.x);
      if (drag) {
        sel.setAttribute('x', Math.min(drag.x, p.x));
        sel.setAttribute('width', Math.abs(p.x - drag.x));
      }
      var i = idxAt(p.t);
      var lines = [secs(T.t0 + p.t) + ': ' + human(levelBefore(i)) + ' live'];
      if (i >= 0) {
        var bucketEnd = i + 1 < n ? ts[i + 1] : span;
        if (!dv.raw) lines.push('bucket ' + secs(T.t0 + ts[i]) + ' – ' + secs(T.t0 + bucketEnd) +
          ': lowest ' + human(lo[i]) + ', highest ' + human(hi[i]));
        var e = dv.ev[i] >= 0 ? D.timeline.events[dv.ev[i]] : null;
        if (e) {
          lines.push((e[3] === 1 ? 'alloc ' : 'free ') + bytes(e[2]) + ' ' + T.kind_names[e[5]] + ' (' +
            T.api_names[e[6]] + ') ' + e[7]);
          lines.push('seq ' + e[0] + ' at ' + secs(T.t0 + e[1]) + (dv.raw ? '' : ' (reached the highest level of the bucket)'));
          lines = lines.concat(stackLines(e[4], 8));
        }
      }
      showTip(ev, lines.join('\n'));
    });
    svg.addEventListener('mouseleave', function () { hideTip(); cursor.setAttribute('x1', -10); cursor.setAttribute('x2', -10); });
    svg.addEventListener('mousedown', function (ev) { ev.preventDefault(); drag = tAt(ev); });
    window.addEventListener('mouseup', function (ev) {
      if (!drag) return;
      var p = tAt(ev), a = drag;
      drag = null;
      sel.setAttribute('width', 0);
      if (Math.abs(p.x - a.x) < 3) return;
      var t0 = Math.min(a.t, p.t), t1 = Math.max(a.t, p.t);
      if (t1 - t0 < 1) t1 = t0 + 1;
      view = [t0, t1];
      draw();
    });
    svg.addEventListener('dblclick', function () { view = [0, span]; draw(); });
    reset.addEventListener('click', function () { view = [0, span]; draw(); });
    draw();
    return panel;
  }

  /* ---- flame graphs (icicle: the root on top) ---- */
  var FR = 18;
  function flames() {
    var sec = el('section', {id: 'flame'}, el('h2', {text: 'Flame graphs'}));
    sec.appendChild(el('p', {cls: 'meta', text: 'Outermost frame on top, the allocating frame at the bottom; width is bytes. ' +
      'Click a frame to zoom into it, click the root or a dimmed frame above to zoom out. Frames under ' +
      (100 / D.limits.flame_div).toFixed(2) + '% of the total are left out.'}));
    var leakRoot = D.flame.leaks;
    if ((!leakRoot || !leakRoot[1]) && TORCH && TORCH.tensor_count) {
      /* the leaks are empty because PyTorch's cache holds the memory: its
       * live tensors, by line, are what the program kept */
      var lp = el('div', {cls: 'panel'});
      lp.appendChild(el('div', {cls: 'panel-head'}, el('h3', {text: 'Leaked memory (live at the snapshot, no rule matched)'})));
      lp.appendChild(el('p', {cls: 'muted', id: 'leaks-torch-note', 'data-tensors': TORCH.tensor_count,
        'data-bytes': TORCH.allocated_bytes, text: 'No memory outside the allocator caches. PyTorch\u2019s cache holds ' +
        tensorsText(TORCH.allocated_bytes, TORCH.tensor_count) + ' still alive: the suspects, by the Python line that ' +
        'allocated them, are in the next graph and in \u201cPyTorch\u2019s tensors\u201d.'}));
      sec.appendChild(lp);
    } else {
      sec.appendChild(flamePanel('leaks', 'Leaked memory (live at the snapshot, no rule matched)', leakRoot));
    }
    if (TORCH && TORCH.tensor_count)
      sec.appendChild(flamePanel('tensors', 'Live tensors in PyTorch\u2019s cache, by the Python line that allocated them',
        tensorTree(TORCH)));
    sec.appendChild(flamePanel('peak', 'Composition of each device\u2019s peak', D.flame.peak));
    return sec;
  }

  /* The tensor lines as a flame graph's tree ([frame, bytes, kids]): each
   * line's stack from its outermost frame down to the line itself (the
   * frames inside PyTorch below it are left out), under one root. */
  function tensorTree(T) {
    var rootFrame = D.frames.length;
    D.frames.push(['PyTorch\u2019s tensors']);
    var root = [rootFrame, 0, []];
    T.lines.forEach(function (l) {
      var st = D.stacks[l.stack] || [], at = st.indexOf(l.frame), nd = root;
      var path = l.frame >= 0 && at >= 0 ? st.slice(at).reverse() : [l.frame >= 0 ? l.frame : pseudoFrame('(no Python line)')];
      root[1] += l.bytes;
      path.forEach(function (f) {
        var kid = null;
        for (var i = 0; i < nd[2].length; i++) if (nd[2][i][0] === f) kid = nd[2][i];
        if (!kid) { kid = [f, 0, []]; nd[2].push(kid); }
        kid[1] += l.bytes;
        nd = kid;
      });
    });
    (function order(nd) { nd[2].sort(function (a, b) { return b[1] - a[1]; }); nd[2].forEach(order); })(root);
    return root;
  }
  function pseudoFrame(name) {
    for (var i = 0; i < D.frames.length; i++) if (D.frames[i].length === 1 && D.frames[i][0] === name) return i;
    D.frames.push([name]);
    return D.frames.length - 1;
  }

  function flamePanel(kind, title, root) {
    var panel = el('div', {cls: 'panel'});
    var info = el('span', {cls: 'meta'});
    panel.appendChild(el('div', {cls: 'panel-head'}, [el('h3', {text: title}), info]));
    if (!root || !root[1]) {
      panel.appendChild(el('p', {cls: 'muted', text: 'Nothing to show.'}));
      return panel;
    }
    var depth = 0;
    (function walk(nd, d) { if (d > depth) depth = d; if (nd[2]) nd[2].forEach(function (c) { walk(c, d + 1); }); })(root, 1);
    var H = depth * FR + 4;
    var svg = sv('svg', {cls: 'flame', viewBox: '0 0 ' + W + ' ' + H, 'data-kind': kind, 'data-total-bytes': root[1]});
    panel.appendChild(svg);
    var zoomPath = [root];
    function name(nd) { return frameText(nd[0], false); }
    function draw() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var z = zoomPath[zoomPath.length - 1];
      svg.setAttribute('data-zoom-name', name(z));
      svg.setAttribute('data-zoom-bytes', z[1]);
      svg.setAttribute('data-zoom-depth', zoomPath.length - 1);
      info.textContent = 'total ' + bytes(root[1]) + (zoomPath.length > 1 ? ' · zoomed: ' + name(z) + ', ' +
        human(z[1]) + ' (' + pct(z[1], root[1]) + ')' : '');
      var frag = document.createDocumentFragment();
      /* the ancestors of the zoomed frame, full width, dimmed */
      for (var a = 0; a < zoomPath.length - 1; a++) frag.appendChild(node(zoomPath[a], 0, W, a, true, a));
      var scale = W / z[1], count = 0;
      (function lay(nd, x, d) {
        var w = nd[1] * scale;
        if (w < 0.5) return;
        count++;
        frag.appendChild(node(nd, x, w, d, false, -1));
        var cx = x;
        if (nd[2]) for (var i = 0; i < nd[2].length; i++) { lay(nd[2][i], cx, d + 1); cx += nd[2][i][1] * scale; }
      })(z, 0, zoomPath.length - 1);
      svg.setAttribute('data-drawn-nodes', count);
      svg.appendChild(frag);
    }
    function node(nd, x, w, d, anc, ancIndex) {
      var nm = name(nd), pseudo = D.frames[nd[0]] && !D.frames[nd[0]][1] && !D.frames[nd[0]][3];
      var g = sv('g', {cls: 'fnode' + (anc ? ' anc' : ''), 'data-bytes': nd[1], 'data-name': nm});
      g.appendChild(sv('rect', {x: x.toFixed(2), y: d * FR, width: Math.max(0.5, w - 0.3).toFixed(2), height: FR - 1,
        fill: pseudo ? '#c9d1da' : kind !== 'peak' ? hashColor(nm, 0, 50) : hashColor(nm, 190, 240)}));
      if (w > 34) {
        var maxc = Math.floor((w - 6) / 6.4), label = nm + ' ' + human(nd[1]);
        if (label.length > maxc) label = maxc > 2 ? label.slice(0, maxc - 1) + '…' : '';
        g.appendChild(sv('text', {x: (x + 3).toFixed(2), y: d * FR + 12.5, text: label}));
      }
      g.addEventListener('click', function () {
        if (anc) zoomPath = zoomPath.slice(0, ancIndex + 1);
        else if (nd === zoomPath[zoomPath.length - 1]) { if (zoomPath.length > 1) zoomPath.pop(); }
        else zoomPath = pathTo(nd);
        hideTip();
        draw();
      });
      g.addEventListener('mousemove', function (ev) {
        var z = zoomPath[zoomPath.length - 1];
        showTip(ev, frameText(nd[0], true) + '\n' + bytes(nd[1]) + '\n' + pct(nd[1], root[1]) + ' of the total' +
          (z !== root ? ', ' + pct(nd[1], z[1]) + ' of the zoomed frame' : ''));
      });
      g.addEventListener('mouseleave', hideTip);
      return g;
    }
    function pathTo(target) {
      var out = null;
      (function find(nd, path) {
        if (out) return;
        path.push(nd);
        if (nd === target) { out = path.slice(); return; }
        if (nd[2]) nd[2].forEach(function (c) { find(c, path); });
        path.pop();
      })(root, []);
      return out || [root];
    }
    draw();
    return panel;
  }

  /* ---- PyTorch's tensors ---- */
  function torchSection() {
    if (!D.torch) return null;
    var sec = el('section', {id: 'torch'}, el('h2', {text: 'PyTorch\u2019s tensors'}));
    if (!TORCH) {
      sec.appendChild(el('p', {cls: 'muted', id: 'torch-none', text: D.torch.status === 'no_answer' ?
        'PyTorch was not asked in time (its main thread ran no Python within 2 s, or took over 60 s to answer): ' +
        'this snapshot has no tensors.' : 'torch.cuda.memory._snapshot() failed: this snapshot has no tensors.'}));
      return sec;
    }
    var T = TORCH;
    sec.appendChild(el('p', {cls: 'meta', text: 'What PyTorch\u2019s caching allocator held (torch.cuda.memory._snapshot()): ' +
      'reserved ' + bytes(T.reserved_bytes) + ' in ' + exact(T.segment_count) + ' segments, allocated ' +
      bytes(T.allocated_bytes) + ' in ' + exact(T.tensor_count) + ' tensors. The stack of a segment\u2019s cudaMalloc is ' +
      'only the request that did not fit the cache; its tensors say what keeps it.' +
      (T.age_us ? ' This view is from ' + (T.age_us / 1e6).toFixed(1) + ' s before the snapshot, the last PyTorch gave.' : '')}));
    if (T.problems.length) sec.appendChild(el('p', {cls: 'warn', text: 'PyTorch\u2019s view does not add up, so its totals ' +
      'are not used: ' + T.problems.join('; ')}));
    sec.appendChild(el('h3', {text: 'Live tensors by Python line: ' + exact(T.lines_total) + ' lines' +
      (T.lines.length < T.lines_total ? ' (' + exact(T.lines.length) + ' shown)' : '') +
      ' (at exit, the tensors a program kept are its leak)'}));
    sec.appendChild(T.lines.length ? table('torch-lines-table', [['bytes', 'bytes', true, exact],
      ['size', 'bytes', true, function (v) { return human(v); }], ['tensors', 'count', true, exact],
      ['allocated at', function (r) { return lineText(r); }, false, null, 'where']],
      T.lines.slice(), function (r) { return r.stack; }) : el('p', {cls: 'muted', text: 'No live tensors.'}));
    /* the segments, each with its tensors by line, are drawn on the address map, a table per device */
    sec.appendChild(el('p', {cls: 'meta', id: 'torch-segments', 'data-segments': T.segments_total, text: exact(T.segments_total) +
      ' segments' + (T.segments.length < T.segments_total ? ' (the ' + exact(T.segments.length) + ' with the most tensors shown)' : '') +
      ': on the address map, outlined, each with its tensors by line (hover, or the table under the map).'}));
    return sec;
  }

  function segLines(g) {
    return g.lines.map(function (l) { return tensorsText(l.bytes, l.count) + ': ' + lineText(l); })
      .concat(g.other_count ? [tensorsText(g.other_bytes, g.other_count) + ' from ' + exact(g.lines_total - g.lines.length) +
        ' more lines'] : []);
  }
  function segmentTable(id, segs) {
    return table(id, [['address', 'address', false, null, 'where'], ['device', 'device', true, devName],
      ['size', 'size', true, function (v) { return human(v); }],
      ['tensors', 'allocated_bytes', true, function (v, r) { return tensorsText(v, r.allocated_count); }],
      ['cached', 'cached_bytes', true, function (v) { return human(v); }],
      ['tensors by line', function (r) { return segLines(r).join('; '); }, false, null, 'where'],
      ['cudaMalloc from', function (r) { return r.alloc_stack >= 0 ? topFrame(r.alloc_stack) : '(not seen: expandable?)'; },
        false, null, 'where']],
      segs.slice(), function (r) {
        return r.lines.map(function (l) { return [tensorsText(l.bytes, l.count) + ' allocated at', l.stack]; })
          .concat(r.alloc_stack >= 0 ? [['the segment\u2019s cudaMalloc (the request that did not fit)', r.alloc_stack]] : []);
      });
  }

  /* PyTorch's segments over the address map's cells: for each cell, the
   * segments it overlaps (both in address order: one sweep). */
  function cellSegments(m, segs) {
    var out = [], unit = BigInt(m.unit), base = BigInt(m.base), k = 0;
    var S2 = segs.map(function (g) { var a = BigInt(g.address); return {g: g, a: a, e: a + BigInt(g.size)}; })
      .sort(function (x, y) { return x.a < y.a ? -1 : x.a > y.a ? 1 : 0; });
    for (var i = 0; i < m.u.length; i++) {
      var a = base + BigInt(m.u[i]) * unit, e = a + BigInt(m.g[i] || 1) * unit, here = [];
      while (k < S2.length && S2[k].e <= a) k++;
      for (var j = k; j < S2.length && S2[j].a < e; j++) if (S2[j].e > a) here.push(S2[j].g);
      out.push(here);
    }
    return out;
  }

  /* ---- address space ---- */
  function addrmap() {
    var sec = el('section', {id: 'addrmap'}, el('h2', {text: 'Address space (device and pool allocations)'}));
    if (!D.addrmap.length) {
      sec.appendChild(el('p', {cls: 'muted', text: 'No device memory analysed.'}));
      return sec;
    }
    sec.appendChild(el('p', {cls: 'meta', text: 'Each cell is a 2 MiB page (or a run of pages when there are many), ' +
      'shaded by the live bytes on it; white cells inside the span are holes, a hatched cell folds a long empty stretch. ' +
      'Hover for the addresses.'}));
    D.addrmap.forEach(function (m) { sec.appendChild(mapPanel(m)); });
    return sec;
  }

  function occColor(o) {
    if (o <= 0) return '#ffffff';
    if (o < 0.5) return 'hsl(32,' + (90 - o * 40).toFixed(0) + '%,' + (80 - o * 40).toFixed(0) + '%)';
    return 'hsl(212,60%,' + (70 - (o - 0.5) * 60).toFixed(0) + '%)';
  }

  function mapPanel(m) {
    var panel = el('div', {cls: 'panel'});
    var nc = m.u.length, unit = m.unit;
    var touched = 0;
    for (var i = 0; i < nc; i++) if (m.n[i] > 0) touched++;
    var stats = exact(m.address_count) + ' allocations, ' + human(m.address_bytes) + ' in ' + exact(m.pages) +
      ' pages (' + pct(m.address_bytes, m.pages * D.page_size) + ' occupancy), ' + exact(m.sparse_pages) +
      ' mostly empty · ' + exact(m.holes) + ' holes, ' + human(m.hole_bytes) + ', largest ' + human(m.largest_hole) +
      ' · fragmentation ' + m.fragmentation.toFixed(2) + (unit > D.page_size ? ' · one cell = ' + human(unit) : '');
    panel.appendChild(el('div', {cls: 'panel-head'}, [el('h3', {text: devName(m.device)}),
      el('span', {cls: 'meta', text: stats})]));
    if (!nc) {
      panel.appendChild(el('p', {cls: 'muted', text: 'No device or pool allocations live.'}));
      return panel;
    }
    var cols = Math.min(128, Math.max(16, Math.ceil(Math.sqrt(nc * 4)))), cw = W / cols, ch = Math.min(cw, 16);
    var rows = Math.ceil(nc / cols);
    var svg = sv('svg', {cls: 'addrmap', viewBox: '0 0 ' + W + ' ' + (rows * ch + 2), 'data-device': m.device,
      'data-pages': m.pages, 'data-holes': m.holes, 'data-hole-bytes': m.hole_bytes,
      'data-largest-hole': m.largest_hole, 'data-address-bytes': m.address_bytes,
      'data-fragmentation': m.fragmentation, 'data-cells': nc, 'data-touched-cells': touched, 'data-unit': unit});
    var defs = sv('defs');
    var pat = sv('pattern', {id: 'hatch' + m.device, width: 6, height: 6, patternUnits: 'userSpaceOnUse',
      patternTransform: 'rotate(45)'});
    pat.appendChild(sv('rect', {width: 6, height: 6, fill: '#eef0f3'}));
    pat.appendChild(sv('line', {x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#b9c0c8', 'stroke-width': 2}));
    defs.appendChild(pat);
    svg.appendChild(defs);
    var frag = document.createDocumentFragment();
    var segs = TORCH ? TORCH.segments.filter(function (g) { return g.device === m.device; }) : [];
    var inCell = segs.length ? cellSegments(m, segs) : null;
    for (i = 0; i < nc; i++) {
      var occ = Math.min(1, m.b[i] / unit);
      var attrs = {cls: 'cell', x: (i % cols) * cw, y: Math.floor(i / cols) * ch, width: cw, height: ch,
        fill: m.g[i] ? 'url(#hatch' + m.device + ')' : occColor(occ), 'data-i': i,
        stroke: m.g[i] ? '#fff' : (m.n[i] ? '#fff' : '#e3e7eb')};
      if (inCell && inCell[i].length) { /* a PyTorch segment: its tensors on hover */
        attrs.cls = 'cell torch';
        attrs['data-torch-segments'] = inCell[i].map(function (g) { return g.address; }).join(' ');
      }
      frag.appendChild(sv('rect', attrs));
    }
    svg.appendChild(frag);
    var baseAddr = BigInt(m.base);
    svg.addEventListener('mousemove', function (ev) {
      var t = ev.target, i = t.getAttribute && t.getAttribute('data-i');
      if (i === null || i === undefined) { hideTip(); return; }
      i = +i;
      var a = baseAddr + BigInt(m.u[i]) * BigInt(unit);
      var len = m.g[i] ? m.g[i] : 1;
      var e = a + BigInt(len) * BigInt(unit);
      var lines = ['0x' + a.toString(16) + ' – 0x' + e.toString(16)];
      if (m.g[i]) lines.push('empty: ' + exact(m.g[i]) + (unit === D.page_size ? ' pages' : ' cells') + ' (' + human(m.g[i] * unit) + ')');
      else lines.push(bytes(m.b[i]) + ' live (' + pct(m.b[i], unit) + ' of ' + human(unit) + ')',
        exact(m.n[i]) + ' allocation' + (m.n[i] === 1 ? '' : 's') + ' touch' + (m.n[i] === 1 ? 'es' : '') + ' it');
      if (inCell) inCell[i].forEach(function (g) {
        lines.push('PyTorch segment ' + g.address + ', ' + human(g.size) + ': ' + tensorsText(g.allocated_bytes, g.allocated_count) +
          ', ' + human(g.cached_bytes) + ' cached');
        segLines(g).forEach(function (x) { lines.push('  ' + x); });
      });
      showTip(ev, lines.join('\n'));
    });
    svg.addEventListener('mouseleave', hideTip);
    panel.appendChild(svg);
    panel.appendChild(el('div', {cls: 'legend'}, [
      el('span', null, [el('i', {style: 'background:#fff'}), 'hole (no live bytes)']),
      el('span', null, [el('i', {style: 'background:' + occColor(0.2)}), 'under half used (mostly empty page)']),
      el('span', null, [el('i', {style: 'background:' + occColor(0.75)}), 'half or more used']),
      el('span', null, [el('i', {style: 'background:' + occColor(1)}), 'full']),
      el('span', null, [el('i', {style: 'background:#eef0f3'}), 'long empty stretch (folded)']),
    ].concat(segs.length ? [el('span', null, [el('i', {style: 'outline:2px solid #7a3db8'}), 'PyTorch segment (hover: its tensors by line)'])] : [])));
    if (segs.length) {
      panel.appendChild(el('h3', {text: 'PyTorch\u2019s segments on ' + devName(m.device) + ': the tensors in each by Python line'}));
      panel.appendChild(segmentTable('torch-map-' + m.device, segs));
    }
    return panel;
  }

  /* ---- sortable tables ---- */
  var PAGE_ROWS = 200;
  function table(id, cols, rows, stackOf) {
    /* cols: [title, key or function(row), numeric, render] */
    var t = el('table', {cls: 'sortable', id: id, 'data-rows': rows.length});
    var head = el('tr');
    var body = el('tbody');
    var sortCol = -1, dir = -1, limit = PAGE_ROWS;
    var more = el('button', {text: ''});
    function val(r, c) { var k = cols[c][1]; return typeof k === 'function' ? k(r) : r[k]; }
    function render() {
      while (body.firstChild) body.removeChild(body.firstChild);
      var n = Math.min(limit, rows.length);
      for (var i = 0; i < n; i++) {
        (function (r) {
          var tr = el('tr', {cls: 'row', 'data-bytes': r.bytes});
          cols.forEach(function (c, ci) {
            var v = val(r, ci);
            tr.appendChild(el('td', {cls: c[2] ? 'num' : (c[4] || null), text: c[3] ? c[3](v, r) : String(v)}));
          });
          var open = null;
          if (stackOf) tr.addEventListener('click', function () {
            if (open) { body.removeChild(open); open = null; return; }
            /* stackOf: a stack index, or [[title, stack index], ...] */
            var s = stackOf(r), lines = [];
            if (Array.isArray(s)) s.forEach(function (p) { lines = lines.concat(p[0] ? [p[0]] : [], p[1] >= 0 ? stackLines(p[1]) : []); });
            else lines = stackLines(s);
            open = el('tr', {cls: 'stack'}, el('td', {colspan: cols.length, text: lines.join('\n')}));
            body.insertBefore(open, tr.nextSibling);
          });
          body.appendChild(tr);
        })(rows[i]);
      }
      more.textContent = 'show all ' + exact(rows.length) + ' rows';
      more.style.display = rows.length > limit ? '' : 'none';
    }
    cols.forEach(function (c, ci) {
      var th = el('th', {cls: c[2] ? 'num' : null, text: c[0]});
      th.addEventListener('click', function () {
        dir = sortCol === ci ? -dir : (c[2] ? -1 : 1);
        sortCol = ci;
        rows.sort(function (a, b) {
          var x = val(a, ci), y = val(b, ci);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
        Array.prototype.forEach.call(head.children, function (h) { h.className = h.className.replace(/ ?sorted-\w+/, ''); });
        th.className += (th.className ? ' ' : '') + (dir > 0 ? 'sorted-asc' : 'sorted-desc');
        t.setAttribute('data-sort-col', ci);
        t.setAttribute('data-sort-dir', dir > 0 ? 'asc' : 'desc');
        render();
      });
      head.appendChild(th);
    });
    more.addEventListener('click', function () { limit = rows.length; render(); });
    t.appendChild(el('thead', null, head));
    t.appendChild(body);
    render();
    return el('div', null, [t, more]);
  }

  /* an imported VMM handle: the import does not say its size */
  function unsized(r) { return r.api === 'cuMemImportFromShareableHandle' && !r.bytes; }
  function leakCols() {
    /* light mode: bytes and count are the sampled allocations'; est., what they stand for */
    var est = D.snapshot.sample_bytes ? [['est. bytes', 'est_bytes', true, exact], ['est. size', 'est_bytes', true, human],
      ['est. count', 'est_count', true, exact]] : [];
    return est.concat([['bytes', 'bytes', true, function (v, r) { return unsized(r) ? 'unknown' : exact(v); }],
      ['size', 'bytes', true, function (v, r) { return unsized(r) ? 'exporter\u2019s' : human(v); }],
      ['count', 'count', true, exact], ['kind', 'kind'], ['device', 'device', true, devName], ['API', 'api'],
      ['first seq', 'first_seq', true], ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']]);
  }
  function tables() {
    var sec = el('section', {id: 'tables'}, el('h2', {text: 'Tables'}));
    var T = D.tables;
    sec.appendChild(el('p', {cls: 'meta', text: 'Click a column to sort, a row to see its whole stack.'}));
    if (T.oom && T.oom.length) { /* allocations that failed for lack of memory */
      sec.appendChild(el('h3', {text: 'Out of memory: allocations that failed'}));
      sec.appendChild(table('oom-table', [['at', 'time_ns', true, function (v) { return (v / 1e9).toFixed(2) + ' s'; }],
        ['asked', 'requested', true, exact], ['size', 'requested', true, function (v) { return human(v); }],
        ['device', 'device', true, devName], ['API', 'api'],
        ['free', 'mem_free', true, function (v, r) { return r.mem_total ? human(v) + ' of ' + human(r.mem_total) : 'unknown'; }],
        ['live here', 'live', true, function (v) { return human(v); }],
        ['elsewhere', 'elsewhere', true, function (v, r) { return r.mem_total ? human(v) : ''; }],
        ['then', 'then_time_ns', true, function (v, r) {
          return !v ? '' : 'same size at ' + (v / 1e9).toFixed(2) + ' s' + (r.then_same_stack ? ', same stack (retried)' : ''); }],
        ['called at', function (r) { return topFrame(r.stack); }, false, null, 'where']],
        T.oom.slice(), function (r) { return r.stack; }));
    }
    (D.ledger || []).forEach(function (L) { /* every used byte of the device, the remainder never hidden */
      sec.appendChild(el('h3', {text: 'Ledger of ' + devName(L.device) + ': ' + human(L.used_bytes) + ' used of ' +
        human(L.mem_total) + ' (total - free, the driver\u2019s view), every byte of it'}));
      sec.appendChild(table('ledger-table-' + L.device, [
        ['what', function (r) { return (r.part ? '\u00a0\u00a0\u00a0\u00a0' : '') + r.what; }, false, null, 'where'],
        ['bytes', 'bytes', true, function (v) { return v === null ? '-' : exact(v); }],
        ['size', 'bytes', true, function (v) { return v === null ? '' : (v < 0 ? '-' : '') + human(Math.abs(v)); }],
        ['share of used', 'bytes', true, function (v, r) {
          return v === null || r.part || !L.used_bytes ? '' : (v * 100 / L.used_bytes).toFixed(1) + '%'; }]],
        L.rows.slice(), null));
      if (L.managed_not_counted_bytes) sec.appendChild(el('p', {cls: 'muted', text: 'Not counted: ' +
        human(L.managed_not_counted_bytes) + ' of managed memory, on the device only where its pages are (then in \u201cunexplained\u201d).'}));
    });
    var P = D.phases;
    if (P && P.rows.length) { /* memory by phase: the annotations of the history */
      sec.appendChild(el('h3', {text: 'Memory by phase: ' + exact(P.total) + ' phase and device rows' +
        (P.rows.length < P.total ? ' (' + exact(P.rows.length) + ' shown)' : '') +
        (P.wrapped ? '; the history wrapped: phases before it are gone' : '')}));
      sec.appendChild(table('phases-table', [['#', 'phase', true, String],
        ['phase', function (r) { return new Array(r.depth + 1).join('\u00a0\u00a0') + (r.label === null ? '?' : r.label) +
          (r.start_known ? '' : ' (start lost)'); }, false, null, 'where'],
        ['device', 'device', true, devName], ['start', 'start_bytes', true, function (v) { return human(v); }],
        ['end', 'end_bytes', true, function (v) { return human(v); }],
        ['net', 'net_bytes', true, function (v) { return (v > 0 ? '+' : v < 0 ? '-' : '') + human(Math.abs(v)); }],
        ['peak', 'bytes', true, function (v) { return human(v); }],
        ['at the peak by category', function (r) { return r.categories.map(function (c) { return c[0] + ' ' + human(c[1]); }).join(', '); }],
        ['largest at the peak', function (r) { return r.stack >= 0 ? topFrame(r.stack) : ''; }, false, null, 'where']],
        P.rows.slice(), function (r) { return r.stack; }));
    }
    if (GROWTH_LEAKS.length) { /* first: the lines that grew at each of the last N steps */
      sec.appendChild(el('h3', {id: 'growth-leaks-head', text: 'Leaked by growth: ' +
        (GROWTH.lines_known ? 'live tensors' : 'allocated memory') + ' grew at each of the last ' + GROWTH.growth_steps +
        ' steps (steps ' + GROWTH_LEAKS[0].from_step + ' to ' + GROWTH_LEAKS[0].to_step + ')'}));
      sec.appendChild(table('growth-leaks-table', [['bytes/step', 'bytes_per_step', true, exact],
        ['size/step', 'bytes_per_step', true, function (v) { return human(v); }],
        ['from step', 'from_step', true, String], ['bytes then', 'from_bytes', true, exact],
        ['to step', 'to_step', true, String], ['bytes now', 'to_bytes', true, exact],
        ['tensors', 'count', true, function (v) { return v === null ? '' : exact(v); }],
        ['line', stepLine, false, null, 'where']], GROWTH_LEAKS.slice(), null));
    }
    sec.appendChild(el('h3', {text: 'Leaks: ' + exact(T.leaks_total) + ' stacks' +
      (T.leaks.length < T.leaks_total ? ' (' + exact(T.leaks.length) + ' shown)' : '')}));
    sec.appendChild(T.leaks.length ? table('leaks-table', leakCols(), T.leaks.slice(), function (r) { return r.stack; })
      : GROWTH_LEAKS.length ? el('p', {cls: 'muted', id: 'leaks-other-none', text: 'Nothing else: the other live memory ' +
        'is held by allocator caches or suppressed.'}) /* "No leaks" only when neither rule found one */
      : el('p', {cls: 'muted', id: 'leaks-none', text: TORCH && TORCH.tensor_count ? 'No leaks outside the allocator caches; ' +
        'the tensors PyTorch\u2019s cache keeps alive are in \u201cPyTorch\u2019s tensors\u201d, by line.' : 'No leaks.'}));
    if (REACHABLE && REACHABLE.lines.length) {
      sec.appendChild(el('h3', {id: 'reachable-head', text: 'Still reachable ' +
        (REACHABLE.at_exit ? 'at exit' : 'at step ' + REACHABLE.step) + ': ' +
        human(REACHABLE.bytes) + ' in ' + exact(REACHABLE.count) + ' tensors that did not grow (weights, optimizer state; not leaks)'}));
      sec.appendChild(table('reachable-table', [['bytes', 'bytes', true, exact],
        ['size', 'bytes', true, function (v) { return human(v); }], ['tensors', 'count', true, exact],
        ['line', stepLine, false, null, 'where']], REACHABLE.lines.slice(), null));
    }
    if (T.cached.length) {
      sec.appendChild(el('h3', {text: 'Held by allocator caches'}));
      sec.appendChild(table('cached-table', [['rule', 'rule']].concat(leakCols()), T.cached.slice(), function (r) { return r.stack; }));
    }
    if (T.suppressed.length) {
      sec.appendChild(el('h3', {text: 'Suppressed'}));
      sec.appendChild(table('suppressed-table', [['rule', 'rule']].concat(leakCols()), T.suppressed.slice(), function (r) { return r.stack; }));
    }
    if (T.mapped.length) { /* IPC handles never closed, imported pool pointers never freed, imported VMM handles never unmapped, external memory never released */
      sec.appendChild(el('h3', {text: 'Mapped from other processes or APIs (not allocated here, not in this process\u2019s usage)'}));
      sec.appendChild(table('mapped-table', leakCols(), T.mapped.slice(), function (r) { return r.stack; }));
    }
    if (T.modules && T.modules.length) { /* modules and libraries still loaded: their code and data's device memory */
      sec.appendChild(el('h3', {text: 'Loaded modules (code and data; a context\u2019s end unloads them)'}));
      sec.appendChild(table('modules-table', leakCols(), T.modules.slice(), function (r) { return r.stack; }));
    }
    if (T.invalid_frees && T.invalid_frees.length) { /* frees of pointers with no live allocation */
      sec.appendChild(el('h3', {text: 'Invalid frees (no live allocation at that address)'}));
      sec.appendChild(table('invalid-frees-table', [['count', 'count', true, exact],
        ['CUDA', function (r) { return !r.refused ? 'accepted (allocated unseen)' : r.double_free ? 'refused (double free: the address was freed before)' : r.inside_stack >= 0 ? 'refused (not the start of an allocation)' : 'refused (double or invalid free)'; }],
        ['device', 'device', true, devName], ['API', 'api'], ['first at', 'first_time_ns', true, function (v) { return (v / 1e9).toFixed(2) + ' s'; }],
        ['freed at', function (r) { return topFrame(r.stack); }, false, null, 'where']],
        T.invalid_frees.slice(), function (r) {
          if (r.inside_stack >= 0) /* valgrind's "16 bytes inside a block of size 4,096" */
            return [[null, r.stack], [exact(r.inside_offset) + ' byte' + (r.inside_offset === 1 ? '' : 's') +
              ' inside the ' + (r.inside_bytes >= 1024 ? human(r.inside_bytes) : exact(r.inside_bytes) + '-byte') + ' block' +
              (r.inside_freed_ns ? ' freed at ' + (r.inside_freed_ns / 1e9).toFixed(2) + ' s,' : '') +
              ' allocated at ' + topFrame(r.inside_stack) + ', by', r.inside_stack]];
          if (r.prev_alloc_stack < 0) return r.stack;
          var s = [[null, r.stack], ['that address was freed before, at ' + (r.prev_free_time_ns / 1e9).toFixed(2) +
            ' s; allocated by', r.prev_alloc_stack]];
          if (r.prev_free_stack >= 0) s.push(['and freed by', r.prev_free_stack]);
          else s.push(['(where it was freed is not recorded: GPULEAK_FREE_STACKS=1 records it)', -2]);
          return s;
        }));
    }
    if (T.teardown && T.teardown.length) { /* never freed; released by cudaDeviceReset or a context teardown */
      sec.appendChild(el('h3', {text: 'Freed only by a context teardown (never freed by the program; compute-sanitizer reports these as leaks)'}));
      sec.appendChild(table('teardown-table', [['bytes', 'bytes', true, exact], ['size', 'bytes', true, function (v) { return human(v); }],
        ['count', 'count', true, exact], ['kind', 'kind'], ['device', 'device', true, devName], ['API', 'api'],
        ['released by', 'teardown'], ['rule', 'rule'],
        ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']],
        T.teardown.slice(), function (r) { return r.stack; }));
    }
    callsTable(sec);
    temporaryTable(sec);
    lifetimesTable(sec);
    sec.appendChild(el('h3', {text: 'Peak consumers: what was live at each device\u2019s peak'}));
    var estPeak = D.snapshot.sample_bytes ? [['est. bytes', 'est_bytes', true, exact], ['est. count', 'est_count', true, exact]] : [];
    sec.appendChild(T.peak.length ? table('peak-table', [['device', 'device', true, devName]].concat(estPeak, [['bytes', 'bytes', true, exact],
      ['size', 'bytes', true, function (v) { return human(v); }],
      ['of the peak', function (r) { return r.device_peak ? (r.est_bytes !== undefined ? r.est_bytes : r.bytes) / r.device_peak : 0; }, true, function (v) { return (100 * v).toFixed(1) + '%'; }],
      ['count', 'count', true, exact], ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']]),
      T.peak.slice(), function (r) { return r.stack; }) : el('p', {cls: 'muted', text: 'No peak records.'}));
    return sec;
  }

  /* "4,010 calls": a count and its noun, as the text report writes it */
  function counted(n, noun) { return exact(n) + ' ' + noun + (n === 1 ? '' : 's'); }
  /* ALLOCATION CALLS (D.calls, render/html/calls.c): the text's first line
     as the heading, its sites as the table */
  function callsTable(sec) {
    var C = D.calls;
    if (!C || !C.sites.length) return;
    sec.appendChild(el('h3', {id: 'calls-head', 'data-calls': C.calls, 'data-frees': C.frees, 'data-bytes': C.bytes,
      'data-stacks': C.stacks, text: 'Allocation calls: ' + counted(C.calls, 'call') + ', ' + exact(C.frees) +
      ' freed, from ' + counted(C.stacks, 'stack') + ', ' + bytes(C.bytes) + ' made in all' +
      (C.sites.length < C.stacks ? ' (' + exact(C.sites.length) + ' shown)' : '')}));
    sec.appendChild(el('p', {cls: 'meta', text: 'Every call that made memory since tracking started, by stack, most calls ' +
      'first: cudaMalloc is slow and cudaFree waits for the device, so a stack that allocates and frees in a loop costs ' +
      'time even when it leaks nothing.'}));
    var est = [];
    if (C.sampled) { /* light mode: est., what a stack's sampled calls stand for */
      sec.appendChild(el('p', {cls: 'meta', id: 'calls-sampled', text: 'Sampled (GPULEAK_MODE=light): a stack\u2019s ' +
        'est. columns are estimates from its sampled calls; the totals above are exact. The calls of no stack were not ' +
        'sampled: they are in the estimates.'}));
      var estCol = function (title, k) {
        return [title, function (r) { return r[k] === undefined ? -1 : r[k]; }, true,
          function (v) { return v < 0 ? 'not sampled' : exact(v); }];
      };
      est = [estCol('est. calls', 'est_calls'), estCol('est. freed', 'est_frees'), estCol('est. bytes', 'est_bytes')];
    }
    sec.appendChild(table('calls-table', est.concat([['calls', 'calls', true, exact], ['freed', 'frees', true, exact],
      ['bytes', 'bytes', true, exact], ['size', 'bytes', true, function (v) { return human(v); }], ['API', 'api'],
      ['kind', 'kind'], ['called at', function (r) { return topFrame(r.stack); }, false, null, 'where']]),
      C.sites.slice(), function (r) { return r.stack; }));
  }
  /* TEMPORARY ALLOCATIONS (D.temporary, report/sections/temporary.c) */
  function temporaryTable(sec) {
    var M = D.temporary;
    if (!M || !M.temporary) return; /* as the text: nothing without one */
    sec.appendChild(el('h3', {id: 'temporary-head', 'data-temporary': M.temporary, 'data-allocations': M.allocations,
      'data-bytes': M.bytes, 'data-stacks': M.stacks, text: 'Temporary allocations: ' +
      counted(M.temporary, 'temporary allocation') + ' of the ' + exact(M.allocations) + ' in the history, ' +
      bytes(M.bytes) + ' in all' + (M.sites.length < M.stacks ? ' (' + exact(M.sites.length) + ' stacks shown)' : '')}));
    sec.appendChild(el('p', {cls: 'meta', text: 'Allocations freed before anything else was allocated or freed, by stack, ' +
      'most first. Each is a slow allocation call and a free that waits for the device, for memory used between two ' +
      'calls: a buffer kept across iterations, or a caching allocator, makes neither.'}));
    sec.appendChild(table('temporary-table', [['temporary', 'temporary', true, exact],
      ['made there', 'allocations', true, exact], ['bytes', 'bytes', true, exact],
      ['size', 'bytes', true, function (v) { return human(v); }], ['API', 'api'], ['kind', 'kind'],
      ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']],
      M.sites.slice(), function (r) { return r.stack; }));
  }
  /* ALLOCATION LIFETIMES (D.lifetimes, report/sections/lifetimes.c): the
     text's table; its line "all" is the heading */
  function lifetimesTable(sec) {
    var L = D.lifetimes;
    if (!L || (!L.freed.count && !L.live.count)) return;
    sec.appendChild(el('h3', {id: 'lifetimes-head', 'data-freed': L.freed.count, 'data-freed-bytes': L.freed.bytes,
      'data-live': L.live.count, 'data-live-bytes': L.live.bytes, text: 'Allocation lifetimes: ' +
      exact(L.freed.count) + ' freed in the history, ' + bytes(L.freed.bytes) + ', by how long they lived; ' +
      exact(L.live.count) + ' live, ' + bytes(L.live.bytes) + ', by their age'}));
    sec.appendChild(el('p', {cls: 'meta', text: 'Short lives are allocation calls a cache, or a buffer kept across steps, ' +
      'would save; old live memory was allocated early, young live memory since.'}));
    /* the first column sorts by the class's time, not its name */
    sec.appendChild(table('lifetimes-table', [['lifetime, or age', 'min_ns', false, function (v, r) { return r.name; }],
      ['freed', 'freed', true, exact], ['freed bytes', 'freed_bytes', true, exact], ['live', 'live', true, exact],
      ['live bytes', 'live_bytes', true, exact]], L.classes.slice(), null));
    if (!L.history)
      sec.appendChild(el('p', {cls: 'muted', id: 'lifetimes-note', text: 'No history in this snapshot: no lives of freed allocations.'}));
    else if (L.frees_before_history)
      sec.appendChild(el('p', {cls: 'muted', id: 'lifetimes-note', text: counted(L.frees_before_history, 'free') +
        ' of allocations made before the history began: lives unknown.'}));
  }

  /* ---- several snapshots ---- */
  function growth() {
    var G = D.growth;
    var sec = el('section', {id: 'growth'}, el('h2', {text: 'Growth across ' + exact(G.snapshots_total) + ' snapshots'}));
    sec.appendChild(el('p', {cls: 'meta', text: G.snapshots.map(function (s) {
      return '#' + s.number + ' ' + s.path + ' (pid ' + s.pid + ', ' + (s.rank === null ? 'no rank' : 'rank ' + s.rank) + ', ' + human(s.live_bytes) + ' live)';
    }).join(' · ') + (G.same_process ? ' · one process over time' : ' · different processes: stacks matched by their frames') +
      (G.no_rate ? ' · no growth per hour: ' + G.no_rate : ' · growth per hour over ' + (G.rate_elapsed_ns / 1e9).toFixed(2) + ' s')}));
    if (G.snapshots.length < G.snapshots_total) { /* the page stays small: say what is left out */
      sec.appendChild(el('p', {cls: 'muted', id: 'growth-columns', 'data-shown': G.snapshots.length,
        'data-total': G.snapshots_total, text: 'The tables and the chart show ' + G.snapshots.length + ' of the ' +
        exact(G.snapshots_total) + ' snapshots: the first, the last and evenly spaced ones between (#' +
        G.snapshots.map(function (s) { return s.number; }).join(', #') + '). Growth, the order of the rows and ' +
        '"suspected leak" are computed over all of them; the text and JSON reports (gpuleak-report diff) list every snapshot.'}));
    }
    if (G.devices.length) { /* is the total growing, is the peak creeping up? */
      var dc = [['device', 'device', true, devName]];
      G.snapshots.forEach(function (s, i) {
        dc.push(['#' + s.number + ' live', function (r) { return r.live[i]; }, true,
          function (v, r) { return r.present[i] ? human(v) : '–'; }]);
        dc.push(['#' + s.number + ' peak', function (r) { return r.peak[i]; }, true,
          function (v, r) { return r.present[i] ? human(v) : '–'; }]);
      });
      sec.appendChild(table('growth-devices', dc, G.devices.slice(), null)); /* rows without stacks */
      if (G.devices.length < G.devices_total)
        sec.appendChild(el('p', {cls: 'muted', text: 'The first ' + exact(G.devices.length) + ' of ' + exact(G.devices_total) + ' devices.'}));
    }
    if (G.torch) growthTorch(G, sec); /* what grew inside PyTorch's cache leads */
    if (G.torch) sec.appendChild(el('h3', {text: 'Live memory by allocation stack (gpuleak\u2019s view: PyTorch\u2019s segments ' +
      'at the stack of their cudaMalloc)'}));
    if (!G.rows.length) {
      sec.appendChild(el('p', {cls: 'muted', text: 'No live memory changed between the snapshots.'}));
    } else {
      growthTable(G, sec);
    }
    growthSites(G, sec);
    return sec;
  }

  /* one column per snapshot: '#1', '#2', ... of values(r)[i] */
  function perSnapshot(G, cols, values, render) {
    G.snapshots.forEach(function (s, i) {
      cols.push(['#' + s.number, function (r) { return values(r)[i]; }, true, render]);
    });
  }

  /* a suspected leak's growth per hour over the series' time (none across
   * processes or without times: the page's meta line says why) */
  function perHourColumn() {
    return ['per hour', function (r) { return r.bytes_per_hour || 0; }, true,
      function (v) { return v ? '+' + human(v) + '/hour' : ''; }];
  }

  function signed(render) {
    return function (v) { return (v > 0 ? '+' : v < 0 ? '−' : '') + render(Math.abs(v)); };
  }

  /* the diff's per-site tables: what changed between the snapshots */
  function growthSites(G, sec) {
    if (G.frees.length) {
      sec.appendChild(el('h3', {text: 'Invalid frees between the snapshots'}));
      var fc = [['', 'refused', false, function (v) { return v ? 'refused by CUDA' : 'accepted'; }, 'flag'],
        ['new frees', 'change', true, signed(exact)]];
      perSnapshot(G, fc, function (r) { return r.count; }, exact);
      fc.push(['API', 'api'], ['device', 'device', true, devName],
        ['freed at', function (r) { return topFrame(r.stack); }, false, null, 'where']);
      sec.appendChild(table('growth-frees', fc, G.frees.slice(), function (r) { return r.stack; }));
    }
    if (G.teardown.length) {
      sec.appendChild(el('h3', {text: 'Freed only by a context teardown between the snapshots'}));
      var tc = [['change', 'change', true, signed(human)]];
      perSnapshot(G, tc, function (r) { return r.bytes; }, human);
      tc.push(['kind', 'kind'], ['API', 'api'], ['released by', 'teardown'], ['rule', 'rule', false, function (v) { return v || ''; }],
        ['device', 'device', true, devName], ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']);
      sec.appendChild(table('growth-teardown', tc, G.teardown.slice(), function (r) { return r.stack; }));
    }
  }

  /* the tensors by Python line across the snapshots: chart and table */
  function growthTorch(G, sec) {
    var T = G.torch;
    sec.appendChild(el('h3', {text: 'PyTorch\u2019s tensors by Python line (' + exact(T.snapshots_with_torch) + ' of the ' +
      exact(G.snapshots_total) + ' snapshots carry PyTorch\u2019s view): ' + exact(T.rows_total) + ' lines changed'}));
    if (!T.rows.length) {
      sec.appendChild(el('p', {cls: 'muted', text: 'No change in the tensors between the snapshots.'}));
      return;
    }
    /* a snapshot without PyTorch's view: its tensors are unknown (null), never 0 */
    var missing = G.snapshots.filter(function (s, i) { return T.rows.length && T.rows[0].bytes[i] === null; });
    if (missing.length) sec.appendChild(el('p', {cls: 'muted', id: 'growth-torch-unknown', text: 'Snapshot' +
      (missing.length > 1 ? 's ' : ' ') + missing.map(function (s) { return '#' + s.number; }).join(', ') +
      (missing.length > 1 ? ' have' : ' has') + ' no PyTorch view: ' + (missing.length > 1 ? 'their' : 'its') +
      ' tensors are unknown (?), never 0, and no step of the growth.'}));
    function known(render) { return function (v) { return v === null ? '?' : render(v); }; }
    var cols = [['', function (r) { return r.suspected_leak ? 1 : 0; }, true, function (v) { return v ? 'suspected leak' : ''; }, 'flag'],
      ['growth', 'growth', true, signed(human)], perHourColumn()];
    perSnapshot(G, cols, function (r) { return r.bytes; }, known(human));
    perSnapshot(G, cols, function (r) { return r.count; }, known(exact));
    cols.push(['allocated at', function (r) { return lineText(r); }, false, null, 'where']);
    sec.appendChild(growthChart(G, T.rows, lineText, 'growth-torch'));
    sec.appendChild(table('growth-torch-table', cols, T.rows.slice(), function (r) { return r.stack; }));
  }

  function growthTable(G, sec) {
    var cols = [['', function (r) { return r.suspected_leak ? 1 : 0; }, true, function (v) { return v ? 'suspected leak' : ''; }, 'flag'],
      ['growth', 'growth', true, signed(human)], perHourColumn()];
    perSnapshot(G, cols, function (r) { return r.bytes; }, human);
    cols.push(['kind', 'kind'], ['device', 'device', true, devName],
      ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']);
    if (G.torch) cols.push(['', function (r) { return r.torch_segments ? 'PyTorch\u2019s segments: their tensors are above' : ''; },
      false, null, 'note']);
    var wrap = table('growth-table', cols, G.rows.slice(), function (r) { return r.stack; });
    sec.appendChild(growthChart(G, G.rows, function (r) { return topFrame(r.stack); }, 'growth'));
    sec.appendChild(wrap);
  }

  /* the largest growers as lines over the snapshots */
  function growthChart(G, all, label, cls) {
    var rows = all.slice(0, 8), n = G.snapshots.length, H = 200;
    var max = 1;
    rows.forEach(function (r) { r.bytes.forEach(function (b) { if (b > max) max = b; }); });
    var svg = sv('svg', {cls: cls, viewBox: '0 0 ' + W + ' ' + H, 'data-series': rows.length});
    var PW = W - ML - 260, PH = H - 30;
    /* Snapshots of one process sit at the time they were taken (since it
     * started): spaced by their numbers, a steady leak sampled at growing
     * intervals would look like it speeds up.  Snapshots of different
     * processes have no common clock: they are spaced evenly. */
    var ts = G.snapshots.map(function (s) { return s.duration_ns; });
    var byTime = G.same_process && n > 1 && ts[n - 1] > ts[0] &&
      ts.every(function (t, i) { return i === 0 || t >= ts[i - 1]; });
    svg.setAttribute('data-x', byTime ? 'time' : 'snapshot');
    function X(i) {
      if (byTime) return ML + PW * (ts[i] - ts[0]) / (ts[n - 1] - ts[0]);
      return ML + (n > 1 ? PW * i / (n - 1) : PW / 2);
    }
    function Y(b) { return 10 + PH - PH * b / (max * 1.05); }
    var g = sv('g', {cls: 'axis'});
    byteAxis(g, max, ML, ML + PW, Y);
    if (byTime) {
      timeAxis(g, ts[0], ts[n - 1], function (t) { return ML + PW * (t - ts[0]) / (ts[n - 1] - ts[0]); }, H - 4,
        0, ML + PW + 10, 6);
      for (var i = 0; i < n; i++) /* where each snapshot was taken */
        g.appendChild(sv('line', {cls: 'snap-tick', x1: X(i), x2: X(i), y1: 10 + PH, y2: 10 + PH + 3,
          'data-number': G.snapshots[i].number}));
    } else {
      /* labels only where there is room: a thousand snapshots cannot all be named */
      var every = Math.max(1, Math.ceil(n * 28 / PW));
      for (i = 0; i < n; i++) {
        if (i !== n - 1 && (i % every || n - 1 - i < every)) continue; /* the last always */
        g.appendChild(sv('text', {cls: 'xtick', x: X(i), y: H - 4, 'text-anchor': 'middle', text: '#' + G.snapshots[i].number}));
      }
    }
    svg.appendChild(g);
    rows.forEach(function (r, k) {
      var color = 'hsl(' + (k * 47 % 360) + ',65%,45%)';
      /* a value not known (null: no PyTorch view there) is no point of the line */
      var pts = r.bytes.map(function (b, i) { return b === null ? null : X(i).toFixed(1) + ',' + Y(b).toFixed(1); })
        .filter(function (p) { return p !== null; }).join(' ');
      var line = sv('polyline', {points: pts, fill: 'none', stroke: color, 'stroke-width': r.suspected_leak ? 2.5 : 1.5,
        'data-growth': r.growth});
      line.addEventListener('mousemove', function (ev) {
        showTip(ev, r.bytes.map(function (b, i) { return '#' + G.snapshots[i].number + ' ' + (b === null ? '?' : human(b)); }).join('  ') + '\n' +
          stackLines(r.stack, 8).join('\n'));
      });
      line.addEventListener('mouseleave', hideTip);
      svg.appendChild(line);
      svg.appendChild(sv('text', {x: ML + PW + 10, y: 16 + k * 15, fill: color,
        cls: 'series', 'data-suspected': r.suspected_leak ? 1 : 0, text: (r.suspected_leak ? '▲ ' : '') + label(r).slice(0, 38)}));
    });
    return el('div', {cls: 'panel'}, svg);
  }

  function warnings() {
    if (!D.warnings.length) return null;
    return el('section', {id: 'warnings'}, [el('h2', {text: 'Warnings'}),
      el('ul', null, D.warnings.map(function (w) { return el('li', {cls: 'warn', text: w}); }))]);
  }

  /* ---- a merge: the ranks of one job side by side ---- */
  var MEASURES = {peak_bytes: 'peak', live_bytes: 'live', leaked_bytes: 'leaked'};
  /* rank null: a process that set no rank variable (its rank field is a default 0) */
  function rankName(rank, pid) { return rank === null ? 'no rank (pid ' + pid + ')' : 'rank ' + rank; }
  /* ranks rs, pids their processes': a process with no rank is named by its pid, as the text names it */
  function rankList(rs, pids) {
    return rs.length ? rs.map(function (r, i) { return r === null ? 'no rank (pid ' + pids[i] + ')' : r; }).join(', ') : 'none';
  }
  function mergeHeader() {
    var M = D.merge, hosts = {};
    M.ranks.forEach(function (r) { hosts[r.host] = 1; });
    var h = el('header', null, [
      el('h1', {text: 'gpuleak merge: ' + exact(M.snapshots) + ' rank' + (M.snapshots === 1 ? '' : 's')}),
      el('div', {cls: 'meta', text: 'ranks ' + M.ranks.map(function (r) { return r.rank === null ? 'no rank (pid ' + r.pid + ')' : r.rank; }).join(', ') +
        (M.ranks.length < M.snapshots ? ' (the first ' + exact(M.ranks.length) + ')' : '') + ' · hosts ' +
        Object.keys(hosts).join(', ') + ' · one snapshot per rank; the figures are the text merge\u2019s (gpuleak-report merge)'})]);
    var cards = el('div', {cls: 'cards'});
    M.imbalance.forEach(function (b) { /* the largest rank against the mean */
      var name = MEASURES[b.measure];
      cards.appendChild(el('div', {cls: 'card imbalance', id: 'imbalance-' + name, 'data-measure': b.measure,
        'data-max-bytes': b.max, 'data-rank': b.rank, 'data-ratio': b.ratio === null ? '' : b.ratio.toFixed(2)}, [
        el('div', {cls: 'v', text: b.ratio === null ? '-' : b.ratio.toFixed(2) + '\u00d7'}),
        el('div', {cls: 'l', text: name + ' imbalance: ' + rankName(b.rank, b.pid) + ' highest, ' + human(b.max) + ' against a mean of ' +
          human(Math.round(b.mean)) + ' (largest / mean)'})]));
    });
    var some = M.leak_sites.filter(function (s) { return s.some_ranks; });
    cards.appendChild(el('div', {cls: 'card', id: 'card-some-ranks', 'data-sites': some.length}, [
      el('div', {cls: 'v', text: exact(some.length)}),
      el('div', {cls: 'l', text: 'leak site' + (some.length === 1 ? '' : 's') + ' on some ranks only'})]));
    h.appendChild(cards);
    var nav = el('nav');
    [['ranks', 'Ranks'], ['some-ranks', 'Leaks on some ranks only'], ['leak-sites', 'Leaks by site'],
     ['live-some-ranks', 'Live on some ranks only']].forEach(function (x) { nav.appendChild(el('a', {href: '#' + x[0], text: x[1]})); });
    h.appendChild(nav);
    return h;
  }

  /* the ranks as bars side by side: peak, live and leaked bytes of each */
  function rankBars(M) {
    var rs = M.ranks.slice(0, 64), H = 220, PH = H - 50, max = 1;
    rs.forEach(function (r) { if (r.peak_bytes > max) max = r.peak_bytes; if (r.live_bytes > max) max = r.live_bytes; });
    var svg = sv('svg', {cls: 'ranks', viewBox: '0 0 ' + W + ' ' + H, 'data-ranks': rs.length});
    var PW = W - ML - MR, slot = PW / Math.max(1, rs.length), bw = Math.min(24, slot / 4);
    function Y(b) { return 10 + PH - PH * b / (max * 1.05); }
    var g = sv('g', {cls: 'axis'});
    byteAxis(g, max, ML, ML + PW, Y);
    svg.appendChild(g);
    var colors = {peak_bytes: '#c0392b', live_bytes: '#2e86de', leaked_bytes: '#e67e22'};
    rs.forEach(function (r, i) {
      var x0 = ML + slot * i + slot / 2 - 1.5 * bw;
      ['peak_bytes', 'live_bytes', 'leaked_bytes'].forEach(function (k, j) {
        var bar = sv('rect', {cls: 'bar', x: x0 + j * bw, y: Y(r[k]), width: bw - 1, height: Math.max(0, Y(0) - Y(r[k])),
          fill: colors[k], 'data-rank': r.rank, 'data-measure': k, 'data-bytes': r[k]});
        bar.addEventListener('mousemove', function (ev) {
          showTip(ev, (r.rank === null ? 'no rank' : 'rank ' + r.rank) + ' (pid ' + r.pid + ', host ' + r.host + '): ' + MEASURES[k] + ' ' + bytes(r[k]));
        });
        bar.addEventListener('mouseleave', hideTip);
        svg.appendChild(bar);
      });
      if (rs.length <= 32 || i % Math.ceil(rs.length / 32) === 0)
        svg.appendChild(sv('text', {cls: 'xtick', x: ML + slot * i + slot / 2, y: H - 22, 'text-anchor': 'middle',
          text: rankName(r.rank, r.pid)}));
    });
    ['peak_bytes', 'live_bytes', 'leaked_bytes'].forEach(function (k, j) {
      svg.appendChild(sv('rect', {x: ML + j * 110, y: H - 12, width: 10, height: 10, fill: colors[k]}));
      svg.appendChild(sv('text', {x: ML + j * 110 + 14, y: H - 3, text: MEASURES[k] + ' bytes'}));
    });
    return el('div', {cls: 'panel'}, svg);
  }

  function rankCols() {
    return [['rank', 'rank', true], ['host', 'host'], ['pid', 'pid', true],
      ['devices', function (r) { return r.devices.join(', '); }],
      ['live bytes', 'live_bytes', true, exact], ['leaked bytes', 'leaked_bytes', true, exact],
      ['peak', 'peak_bytes', true, function (v, r) { return human(v) + (r.peak_device >= -1 ? ' on ' + devName(r.peak_device) : ''); }],
      ['invalid frees', 'invalid_frees', true, exact], ['failed allocations', 'failed_allocations', true, exact],
      ['snapshot', 'path']];
  }

  function onRanks(r) { return r.on.map(function (c) { return c[1]; }); }
  function onPids(r) { return r.on.map(function (c) { return c[4]; }); }
  function onList(r) { return rankList(onRanks(r), onPids(r)); }
  function notOnList(r) { return rankList(r.not_on, r.not_on_pids); }
  function mergeSections() {
    var M = D.merge, out = [];
    var sec = el('section', {id: 'ranks'}, el('h2', {text: 'Ranks side by side'}));
    sec.appendChild(rankBars(M));
    var rows = M.ranks.map(function (r) { var x = Object.assign({}, r); x.bytes = r.live_bytes; return x; });
    sec.appendChild(table('ranks-table', rankCols(), rows, null));
    out.push(sec);
    var some = M.leak_sites.filter(function (s) { return s.some_ranks; });
    sec = el('section', {id: 'some-ranks'}, el('h2', {text: 'Leaks on some ranks only'}));
    sec.appendChild(el('p', {cls: 'meta', text: 'Memory still allocated at the end, outside caches and suppressions, by a ' +
      'stack that is on some ranks and not on others: usually a rank-dependent code path. Click a row for its stack.'}));
    sec.appendChild(some.length ? table('some-ranks-table', [['bytes', 'bytes', true, exact],
      ['on ranks', onList], ['not on ranks', notOnList],
      ['on each', function (r) { return r.on.map(function (c) { return rankName(c[1], c[4]) + ' ' + human(c[2]); }).join(', '); }],
      ['kind', 'kind'], ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']],
      some, function (r) { return r.stack; }) : el('p', {cls: 'muted', text: 'None: every leak site is on every rank.'}));
    out.push(sec);
    sec = el('section', {id: 'leak-sites'}, el('h2', {text: 'Leaks by site across the ranks'}));
    sec.appendChild(M.leak_sites.length ? table('leak-sites-table', [['bytes', 'bytes', true, exact],
      ['ranks', function (r) { return r.present; }, true, function (v) { return v + ' of ' + M.snapshots; }],
      ['smallest', 'min_bytes', true, function (v, r) { return human(v) + ' (' + rankName(r.min_rank, r.min_pid) + ')'; }],
      ['largest', 'max_bytes', true, function (v, r) { return human(v) + ' (' + rankName(r.max_rank, r.max_pid) + ')'; }],
      ['', function (r) { return r.min_bytes !== r.max_bytes ? 'uneven' : r.some_ranks ? 'some ranks' : ''; }, false, null, 'flag'],
      ['kind', 'kind'], ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']],
      M.leak_sites.slice(), function (r) { return r.stack; }) : el('p', {cls: 'muted', text: 'No leaks on any rank.'}));
    if (M.leak_sites.length < M.leak_sites_total)
      sec.appendChild(el('p', {cls: 'muted', text: 'The first ' + exact(M.leak_sites.length) + ' of ' + exact(M.leak_sites_total) + ' sites.'}));
    out.push(sec);
    sec = el('section', {id: 'live-some-ranks'}, el('h2', {text: 'Live memory on some ranks only'}));
    sec.appendChild(M.live_some_ranks.length ? table('live-some-ranks-table', [['bytes', 'bytes', true, exact],
      ['on ranks', onList], ['not on ranks', notOnList],
      ['kind', 'kind'], ['rule', 'rule', false, function (v) { return v || ''; }],
      ['allocated at', function (r) { return topFrame(r.stack); }, false, null, 'where']],
      M.live_some_ranks.slice(), function (r) { return r.stack; }) :
      el('p', {cls: 'muted', text: 'None: every stack with live memory is live on every rank.'}));
    out.push(sec);
    return out;
  }

  /* ---- the page ---- */
  var main = el('main');
  if (D.page === 'merge') {
    app.appendChild(mergeHeader());
    app.appendChild(main);
    [warnings()].concat(mergeSections()).forEach(function (s) { if (s) main.appendChild(s); });
  } else {
    app.appendChild(header());
    app.appendChild(main);
    [warnings, timeline, flames, torchSection, addrmap, tables].concat(D.growth ? [growth] : []).forEach(function (f) {
      var s = f();
      if (s) main.appendChild(s);
    });
  }
  var ms = performance.now() - T_START;
  app.appendChild(el('footer', {text: 'gpuleak-report · drawn in ' + ms.toFixed(0) + ' ms · this page is self-contained and loads nothing'}));
  document.body.setAttribute('data-render-ms', ms.toFixed(1));
  document.body.setAttribute('data-ready', '1');
})();
