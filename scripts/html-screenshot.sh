#!/usr/bin/env bash
# A screenshot of the HTML report in headless Chromium, to look at the page
# without a browser (docs/html-report.md).  The default makes the picture in
# the README (docs/img/html-report.png) from snapgen's history scenario.
#   scripts/html-screenshot.sh [PAGE.html|SNAP] [OUT.png] [--full]
#   BUILD=build-x scripts/html-screenshot.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
in=${1:-} out=${2:-docs/img/html-report.png} full=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuleak-shot.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$PWD
case $in in
'')     (cd "$work" && "$root/$BUILD/tests/snapgen" history train.snap &&
         "$root/$BUILD/bin/gpuleak-report" --html page.html train.snap)
        page=$work/page.html ;;
*.html) page=$in ;;
*)      "$BUILD/bin/gpuleak-report" --html "$work/page.html" "$in"; page=$work/page.html ;;
esac
python3 tests/browser/check_html.py --screenshot-only "$page" "$out" ${full:+--full} --width 1100 --height 1000
