/* Axis ticks for the HTML report's charts (timeline, growth), kept apart
 * from the page so that tests/html/ticks_test.js runs them in node.
 * Ticks sit on round values of their own axis, never at an offset from the
 * view's start (which gave 5.04 s, 10.04 s); every label of one axis has the
 * same unit and as many decimals as its step needs, so no two labels are
 * equal ("17 ms 17 ms 18 ms"); bytes are in binary units at power-of-two
 * steps, so no "1000.0 KiB". */
var GLTicks = (function () {
  'use strict';
  var BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

  /* x with the fewest decimals (at most 6) that show it exactly */
  function trim(x) {
    for (var d = 0; d < 6; d++) {
      var s = x.toFixed(d);
      if (Math.abs(Number(s) - x) <= Math.abs(x) * 1e-12) return s;
    }
    return x.toFixed(6);
  }

  /* Byte ticks from 0 to at most max: a power-of-two step giving at most n
   * intervals, each label in the largest binary unit not above the highest
   * tick ("0", "256 KiB", "512 KiB", "768 KiB"; "0", "0.5 GiB", "1 GiB").
   * Returns [{v: bytes, label}]. */
  function bytes(max, n) {
    n = n || 5;
    if (!(max > 0)) return [{v: 0, label: '0'}];
    var step = 1;
    while (max / step > n) step *= 2;
    var top = Math.floor(max / step) * step;
    var u = 0;
    while (u < BYTE_UNITS.length - 1 && Math.pow(1024, u + 1) <= top) u++;
    var div = Math.pow(1024, u), out = [];
    for (var k = 0; k * step <= max; k++) {
      var v = k * step;
      out.push({v: v, label: v === 0 ? '0' : trim(v / div) + ' ' + BYTE_UNITS[u]});
    }
    return out;
  }

  var TIME_UNITS = [[1, 'ns'], [1e3, 'µs'], [1e6, 'ms'], [1e9, 's']];

  /* Time ticks in [t0, t1] (nanoseconds, t0 <= t1): the 1-2-5 step giving
   * at most n intervals, at its multiples.  One unit for the axis, from the
   * largest magnitude shown; decimals from the step.  Returns
   * [{v: ns, label}]. */
  function time(t0, t1, n) {
    n = n || 6;
    var span = t1 - t0;
    if (!(span > 0)) return [{v: t0, label: timeLabel(t0, 1)}];
    /* the smallest 1-2-5 step (whole nanoseconds) that gives at most n
     * intervals */
    var raw = span / n, mag = Math.max(1, Math.pow(10, Math.floor(Math.log10(raw))));
    var step = [1, 2, 5, 10].map(function (m) { return m * mag; }).filter(function (x) { return x >= raw; })[0] || 10 * mag;
    var out = [], first = Math.ceil(t0 / step);
    var unit = unitFor(Math.max(Math.abs(t0), Math.abs(t1)));
    var d = decimals(step / unit[0]);
    for (var k = first; k * step <= t1; k++) {
      var v = k * step;
      out.push({v: v, label: (v === 0 ? '0' : (v / unit[0]).toFixed(d)) + ' ' + unit[1]});
    }
    return out;
  }
  function unitFor(ns) {
    var u = TIME_UNITS[0];
    for (var i = 0; i < TIME_UNITS.length; i++) if (ns >= TIME_UNITS[i][0]) u = TIME_UNITS[i];
    return u;
  }
  /* decimals that show every multiple of a 1-2-5 step exactly */
  function decimals(step) { return step >= 1 ? 0 : Math.min(9, Math.ceil(-Math.log10(step) - 1e-9)); }
  function timeLabel(ns, step) {
    var u = unitFor(Math.abs(ns));
    return (ns === 0 ? '0' : (ns / u[0]).toFixed(decimals(step / u[0]))) + ' ' + u[1];
  }

  /* Where to anchor a label centred at x so that it stays inside [lo, hi]
   * for a label about w wide: 'middle', or 'start'/'end' at the edges. */
  function anchor(x, w, lo, hi) {
    if (x + w / 2 > hi) return 'end';
    if (x - w / 2 < lo) return 'start';
    return 'middle';
  }

  return {bytes: bytes, time: time, anchor: anchor, trim: trim};
})();
if (typeof module !== 'undefined') module.exports = GLTicks;
