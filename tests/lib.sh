# Shared helpers for tests/t_*.sh.  Sourced; $ROOT and $BUILD are set by
# tests/run.sh, and the current directory is a fresh scratch directory.
set -euo pipefail

FAKECUDA=$BUILD/fakecuda
LIBGPULEAK=$BUILD/lib/libgpuleak.so
REPORT=$BUILD/bin/gpuleak-report
LAUNCHER=$BUILD/bin/gpuleak
TPROG=$BUILD/tests

# Run a command with fakecuda's libraries first on the search path.
fc() { LD_LIBRARY_PATH=$FAKECUDA${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }
# Run a command under the interposer on fakecuda.
traced() { LD_PRELOAD=$LIBGPULEAK fc "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_eq ACTUAL EXPECTED WHAT
expect_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"; }

# jq-like queries on a report's JSON with python3: jget FILE EXPR, where EXPR
# is a Python expression over `d` (the parsed document).
jget() { python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"d": d, "len": len, "sum": sum, "sorted": sorted})
print(json.dumps(v) if isinstance(v, (dict, list)) else v)
PY
}

# The single snapshot file in the current directory (fails unless exactly one).
only_snapshot() {
    local files=(gpuleak.*.snap)
    [ -e "${files[0]}" ] || fail "no snapshot written"
    [ ${#files[@]} -eq 1 ] || fail "expected one snapshot, found: ${files[*]}"
    echo "${files[0]}"
}

# Line number of the marker "MARK" in a test program source.
site_line() { grep -n "$2" "$ROOT/tests/programs/$1" | head -1 | cut -d: -f1; }

# Runs python3 assertions against a JSON report: check_json FILE <<'PY' ... PY
# The script sees `d` (the document), `leaks`, `devices`, and helpers:
# frame(f) -> "function file:line" with the file's basename.
check_json() {
    local file=$1
    python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
leaks = d["leaks"]; devices = {x["device"]: x for x in d["devices"]}
def frame(f):
    return "%s %s:%s" % (f["function"], os.path.basename(f["file"] or "?"), f["line"])
def eq(got, want, what):
    if got != want:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, got, want))
exec(sys.stdin.read())
' "$file"
}
