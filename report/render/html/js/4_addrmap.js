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

