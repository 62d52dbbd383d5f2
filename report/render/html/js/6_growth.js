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

