# The HTML report's axis ticks (report/render/html/ticks.js) in node: byte axes in
# binary units at power-of-two steps (no "1000.0 KiB"), time axes at round
# multiples of a 1-2-5 step with one unit and enough decimals (no "17 ms 17
# ms 18 ms", no 5.04 s), labels kept inside the chart
# (tests/browser/ticks_test.js).  The page in a browser: t_html_browser.
source "$ROOT/tests/lib.sh"
skip_if '! command -v node >/dev/null' "node is not installed"
node "$ROOT/tests/browser/ticks_test.js" "$ROOT/report/render/html/ticks.js" || fail "ticks"
