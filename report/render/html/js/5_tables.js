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

