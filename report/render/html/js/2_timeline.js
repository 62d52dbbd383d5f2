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

