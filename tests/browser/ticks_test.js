// Unit test of the HTML report's axis ticks (report/render/html/ticks.js), run
// with node by tests/t_html_ticks.sh: exact values and labels.
'use strict';
var T = require(process.argv[2]);
var failed = 0;
function eq(got, want, what) {
  var g = JSON.stringify(got), w = JSON.stringify(want);
  if (g !== w) { console.log('FAIL: ' + what + ': got ' + g + ', expected ' + w); failed++; }
}
function labels(ticks) { return ticks.map(function (t) { return t.label; }); }
function values(ticks) { return ticks.map(function (t) { return t.v; }); }
var KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// bytes: power-of-two steps, at most n intervals, one binary unit per axis
eq(labels(T.bytes(1000 * KiB, 4)), ['0', '256 KiB', '512 KiB', '768 KiB'], '1000 KiB: no "1000.0 KiB"');
eq(values(T.bytes(1000 * KiB, 4)), [0, 256 * KiB, 512 * KiB, 768 * KiB], '1000 KiB values');
eq(labels(T.bytes(1080 * KiB, 4)), ['0', '0.5 MiB', '1 MiB'], 'just above 1 MiB');
eq(labels(T.bytes(3.5 * MiB, 4)), ['0', '1 MiB', '2 MiB', '3 MiB'], '3.5 MiB');
eq(labels(T.bytes(1.5 * GiB, 4)), ['0', '0.5 GiB', '1 GiB', '1.5 GiB'], '1.5 GiB');
eq(labels(T.bytes(28 * MiB, 4)), ['0', '8 MiB', '16 MiB', '24 MiB'], '28 MiB');
eq(labels(T.bytes(100, 4)), ['0', '32 B', '64 B', '96 B'], '100 bytes');
eq(labels(T.bytes(10 * GiB, 5)), ['0', '2 GiB', '4 GiB', '6 GiB', '8 GiB', '10 GiB'], '10 GiB, 5 intervals');
eq(labels(T.bytes(1, 4)), ['0', '1 B'], 'one byte');
eq(labels(T.bytes(0, 4)), ['0'], 'nothing');
eq(labels(T.bytes(Math.pow(2, 64), 4)), ['0', '4 EiB', '8 EiB', '12 EiB', '16 EiB'], '2^64 bytes');

// time: 1-2-5 steps at their multiples (never offset from the view's start),
// one unit per axis, as many decimals as the step needs: no repeated label
eq(labels(T.time(16.6e6, 18.4e6, 6)), ['17.0 ms', '17.5 ms', '18.0 ms'], '16.6-18.4 ms: no "17 ms 17 ms 18 ms"');
eq(values(T.time(16.6e6, 18.4e6, 6)), [17e6, 17.5e6, 18e6], '16.6-18.4 ms values');
eq(labels(T.time(0.04e9, 10.04e9, 6)), ['2 s', '4 s', '6 s', '8 s', '10 s'], 'a view from 0.04 s: no 5.04 s');
eq(labels(T.time(5.04e9, 10.5e9, 6)), ['6 s', '7 s', '8 s', '9 s', '10 s'], '5.04-10.5 s');
eq(labels(T.time(0, 4.24e9, 6)), ['0 s', '1 s', '2 s', '3 s', '4 s'], '0-4.24 s');
eq(labels(T.time(0, 850e3, 6)), ['0 µs', '200 µs', '400 µs', '600 µs', '800 µs'], 'microseconds');
eq(labels(T.time(100e9, 100.2e9, 6)), ['100.00 s', '100.05 s', '100.10 s', '100.15 s', '100.20 s'], 'a short view late');
eq(labels(T.time(0, 90, 6)), ['0 ns', '20 ns', '40 ns', '60 ns', '80 ns'], 'nanoseconds');
eq(labels(T.time(3, 3, 6)), ['3 ns'], 'an empty span');
// over many spans: labels distinct, values increasing, evenly spaced, inside
for (var e = 2; e < 12; e += 0.37) {
  var t0 = Math.pow(10, e) * 0.913, t1 = t0 + Math.pow(10, e) * 1.7;
  var tk = T.time(t0, t1, 6), ls = labels(tk), vs = values(tk);
  eq(new Set(ls).size, ls.length, 'distinct labels ' + t0 + '-' + t1 + ': ' + ls.join(' '));
  eq(vs.every(function (v, i) { return v >= t0 && v <= t1 && (i < 2 || Math.abs((v - vs[i - 1]) - (vs[1] - vs[0])) < 1e-6); }),
     true, 'inside and even ' + t0 + '-' + t1);
  eq(tk.length >= 2 && tk.length <= 7, true, 'count ' + t0 + '-' + t1 + ': ' + tk.length);
}

// anchors keep a label inside [lo, hi]
eq(T.anchor(995, 40, 0, 1000), 'end', 'at the right edge');
eq(T.anchor(500, 40, 0, 1000), 'middle', 'in the middle');
eq(T.anchor(5, 40, 0, 1000), 'start', 'at the left edge');

if (failed) { console.log(failed + ' failed'); process.exit(1); }
console.log('ok');
