#!/usr/bin/env bash
# The demo: a small CUDA "training job" with two planted leaks runs under
# gpuleak on fakecuda (the CPU stand-in for the CUDA libraries), then the
# report shows each leak with its function, file:line and exact bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
out=$BUILD/demo
rm -rf "$out" && mkdir -p "$out"

# Each command is shown exactly as it is run, quoted for the shell, so that
# it can be pasted as printed (from this directory, the repository root).
show() { printf '$'; printf ' %q' "$@"; printf '\n'; }
fc_path=$BUILD/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

echo "== running tests/programs/demo_train.c under gpuleak (on fakecuda) =="
show env LD_LIBRARY_PATH="$fc_path" "$BUILD/bin/gpuleak" run --output "$out/" -- "$BUILD/tests/demo_train"
env LD_LIBRARY_PATH="$fc_path" "$BUILD/bin/gpuleak" run --output "$out/" -- "$BUILD/tests/demo_train"
snap=$(ls "$out"/gpuleak.*.snap)
echo
echo "== report =="
show "$BUILD/bin/gpuleak" report "$snap"
"$BUILD/bin/gpuleak" report "$snap"

echo
echo "== in short: the leaks gpuleak found (from gpuleak-report --json) =="
show "$BUILD/bin/gpuleak-report" --json "$snap"
"$BUILD/bin/gpuleak-report" --json "$snap" | python3 -c '
import json, os, sys
for l in json.load(sys.stdin)["leaks"]:
    f = l["frames"][0] if l["frames"] else {}
    print("%s (%s:%s): %s bytes in %d allocation%s via %s" % (
        f.get("function"), os.path.basename(f.get("file") or "?"), f.get("line"),
        format(l["bytes"], ","), l["count"], "" if l["count"] == 1 else "s", l["api"]))'
