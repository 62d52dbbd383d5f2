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

