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

