# Shared helpers for tests/t_*.sh.  Sourced; $ROOT and $BUILD are set by
# tests/run.sh, and the current directory is a fresh scratch directory.
set -euo pipefail

FAKECUDA=$BUILD/fakecuda
LIBGPULEAK=$BUILD/lib/libgpuleak.so
REPORT=$BUILD/bin/gpuleak-report
LAUNCHER=$BUILD/bin/gpuleak
TPROG=$BUILD/tests

# Sanitizer builds (make SAN=asan|tsan writes $BUILD/.san): the sanitizer
# runtime must come first in LD_PRELOAD when the instrumented libgpuleak is
# preloaded into a program that was not built with it (sh, python3, coreutils),
# so LIBGPULEAK becomes a preload list; it is only ever used as an LD_PRELOAD
# value.  LIBGPULEAK_SO is the file itself.
LIBGPULEAK_SO=$LIBGPULEAK
GL_SAN=${GL_SAN:-$(cat "$BUILD/.san" 2>/dev/null || true)}
case $GL_SAN in
asan)
    export SAN=asan  # a make run from a test (t_install) keeps building this tree alike
    LIBGPULEAK="$(${CC:-cc} -print-file-name=libasan.so):$LIBGPULEAK"
    # Leak checking stays on for instrumented programs (gpuleak-report, test
    # programs); see docs/reliability.md for why each option is set.
    # handle_*=0: fatal signals reach the program and gpuleak exactly as in
    # production (t_exit_paths crashes on purpose); memory errors are still
    # caught by the instrumentation.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-verify_asan_link_order=0:exitcode=86:detect_leaks=1:handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1:suppressions=$ROOT/tests/sanitizer/asan.supp}
    export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/tests/sanitizer/lsan.supp:print_suppressions=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87:suppressions=$ROOT/tests/sanitizer/ubsan.supp}
    ;;
tsan)
    export SAN=tsan
    LIBGPULEAK="$(${CC:-cc} -print-file-name=libtsan.so):$LIBGPULEAK"
    # die_after_fork=0: a tracked process has gpuleak's writer thread, and its
    # forked children start threads; TSan cannot judge those children, but
    # they must run.
    export TSAN_OPTIONS=${TSAN_OPTIONS:-exitcode=88:halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1:suppressions=$ROOT/tests/sanitizer/tsan.supp}
    ;;
esac

# skip_if COND WHY: ends this test as skipped (exit 77, counted by run.sh)
# when COND (a shell command) succeeds, e.g. skip_if '[ "$GL_SAN" = tsan ]'.
skip_if() { if eval "$1"; then echo "SKIP: $2"; exit 77; fi; }
# skip_under_san WHY: skipped in sanitizer builds (the reason is printed).
skip_under_san() { skip_if '[ -n "$GL_SAN" ]' "under $GL_SAN: $1"; }
# The attach tests need gdb, and skip under a sanitizer: gdb injects the
# uninstrumented libgpuleak.so into a program built without it.
need_gdb_attach() {
    skip_under_san "gdb injects the uninstrumented library into a program built without the sanitizer"
    command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
}

# Run a command with fakecuda's libraries first on the search path.
fc() { LD_LIBRARY_PATH=$FAKECUDA${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }
# Run a command under the interposer on fakecuda.
traced() { LD_PRELOAD=$LIBGPULEAK fc "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }

# Waiting, on the clock of tests/machine.sh: limits are reference seconds,
# longer on the wall clock while the machine is slower (tests/run.sh's
# header says how).  A fixed sleep is only the pause between two looks.
source "$ROOT/tests/machine.sh"
# wait_until [-t SECONDS] CMD...: returns once CMD succeeds, looking every
# 50 ms; 1 after SECONDS reference seconds (default 30) without success,
# REPLY then saying how long it waited.  CMD may wait itself (target_send
# does): each depth of nesting has a clock of its own.
_wait_depth=0
wait_until() {
    local limit=30 budget wall clock=wait_until$((++_wait_depth)) rc=0
    if [ "$1" = -t ]; then limit=$2; shift 2; fi
    to_milli "$limit"
    budget=$((REPLY * 1000))
    now_us
    wall=$REPLY
    clock_start "$clock"
    until "$@"; do
        clock_tick "$clock"
        clock_spent "$clock"
        if [ "$REPLY" -ge "$budget" ]; then
            now_us
            REPLY="$limit reference seconds, $(((REPLY - wall) / 1000000)) s on the clock"
            rc=1
            break
        fi
        sleep 0.05
    done
    _wait_depth=$((_wait_depth - 1))
    return $rc
}
# wait_for [-t SECONDS] WHAT CMD...: wait_until, failing the test with
# "timed out waiting for WHAT" and the time waited.
wait_for() {
    local -a opt=()
    if [ "$1" = -t ]; then opt=(-t "$2"); shift 2; fi
    local what=$1
    shift
    wait_until "${opt[@]}" "$@" || fail "timed out waiting for $what ($REPLY)"
}
# has_line FILE TEXT: FILE exists and has TEXT in a line.
has_line() { grep -qF -- "$2" "$1" 2>/dev/null; }
# expect_eq ACTUAL EXPECTED WHAT
expect_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"; }

# run_unit_family PREFIX MIN [DIR]: runs the program of every
# tests/unit/PREFIX_*.c (tests/rules.mk builds each by its name's prefix;
# none is listed), given DIR/NAME when DIR is set.  One that was not built
# fails, and so do fewer than MIN of them.
run_unit_family() {
    local src t n=0
    for src in "$ROOT"/tests/unit/"$1"_*.c; do
        t=$(basename "$src" .c)
        [ -x "$TPROG/unit/$t" ] || fail "$t was not built from $src"
        "$TPROG/unit/$t" ${3:+"$3/$t"} || fail "$t"
        n=$((n + 1))
    done
    [ "$n" -ge "$2" ] || fail "only $n $1 unit tests, expected $2 or more"
}

# A growth rate as the text report writes it: per_hour_text BYTES_PER_HOUR
# prints "+12.0 MiB/hour" (report/util/fmt.c's fmt_human: "512 B" below
# 1 KiB).  rate_of GROWTH ELAPSED_NS: the bytes per hour the reporter gives
# (report/util/rate.c: growth x 1 hour / elapsed, rounded down).
per_hour_text() { python3 - "$1" <<'PY'
import sys
v = int(sys.argv[1])
units, x, u = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"], v / 1024.0, 0
while x >= 1023.95 and u + 1 < len(units):
    x, u = x / 1024.0, u + 1
print("+%s/hour" % ("%.1f %s" % (x, units[u]) if v >= 1024 else "%d B" % v))
PY
}
rate_of() { python3 -c "import sys; print(int(sys.argv[1]) * 3600 * 10**9 // int(sys.argv[2]))" "$1" "$2"; }

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

# snap_set IN OUT RECORD ENTRY FIELD VALUE: a copy of snapshot IN with FIELD
# (its name in common/snapshot_fields.h) of entry ENTRY (0 for a record that
# is no array) of the first RECORD record (ALLOCS, EVENTS, ...) set to VALUE;
# ENTRY -1: a field of that record's header (count, length) -- a hostile or
# altered input.  Offsets come from the field lists (tests/report/snapfields.c).
snap_set() { "$TPROG/snapfields" set "$@"; }

# lifetimes_snapshots SNAP: from SNAP, a snapshot of `churn 1 3` (one
# thread's 3 pairs of 4096 bytes, then a leak of 1000; its history alloc,
# free, alloc, free, alloc, free, alloc), every time set, in the current
# directory: set.snap, the pairs living 5 us, 50 ms and 20 s and the leak
# an hour old at the snapshot; older.snap, the same with the first pair's
# allocation out of the history (its free is of an allocation made before
# it).  The ALLOCATION LIFETIMES tests' snapshots (t_report_lifetimes,
# t_html_report, t_html_browser).
lifetimes_snapshots() {
    cp "$1" lt0.snap
    local i=0 t
    for t in 1000000000 1000005000 2000000000 2050000000 3000000000 23000000000 24000000000 3624000000000; do
        snap_set "lt$i.snap" "lt$((i + 1)).snap" EVENTS "$i" time_ns "$t" || fail "snap_set EVENTS $i"
        i=$((i + 1))
    done
    snap_set lt8.snap lt9.snap ALLOCS 0 time_ns 24000000000 || fail "snap_set ALLOCS"
    snap_set lt9.snap set.snap PROCESS 0 snapshot_mono_ns 3624000000000 || fail "snap_set PROCESS"
    snap_set set.snap older0.snap EVENTS 0 type 5 || fail "snap_set type"
    snap_set older0.snap older.snap EVENTS 1 ptr $((0x7fffffffffff0000)) || fail "snap_set ptr"
}

# snap_layout: "RECORD FIELD OFFSET FORMAT" per field (FORMAT as Python's
# struct), for scripts that read a field of a snapshot by name.
snap_layout() { "$TPROG/snapfields" layout; }

# A table of a document generated by a script from the one definition
# (scripts/format-doc.py, lock-doc.py): doc_table_check SCRIPT TOOL DOC
# OLD-ROW NEW-ROW fails while DOC differs from what SCRIPT makes of TOOL's
# output, and checks that SCRIPT notices a stale table: DOC with the row
# starting OLD-ROW changed to start NEW-ROW (a basic regular expression and
# its replacement, as sed's s; NEW-ROW also a fixed string, as the diff
# shows it).
doc_table_check() {
    local script=$ROOT/scripts/$1 tool=$2 doc=$ROOT/$3 rc=0
    python3 "$script" --check --tool "$tool" || fail "$3 is out of date: run scripts/$1"
    sed "s/^$4/$5/" "$doc" >stale.md
    ! cmp -s stale.md "$doc" || fail "$3 has no row '$4'"
    python3 "$script" --check --tool "$tool" --doc stale.md >diff.txt 2>&1 || rc=$?
    expect_eq "$rc" 1 "a stale table"
    awk -v row="-$5" 'index($0, row) == 1 { found = 1 } END { exit !found }' diff.txt ||
        fail "the diff names the stale row: $(cat diff.txt)"
}

# The gate as its tests read it: check_run ARG... runs `gpuleak check
# ARG...`, its output in out.txt and err.txt; check_verdicts prints err.txt's
# "gpuleak: " lines with each pid as P and the run's random part as T;
# check_summary COUNT [NOTE] is the ERROR SUMMARY line for COUNT ("1 of 2")
# with NOTE ("; no final snapshot") inside its parentheses.
check_run() { "$LAUNCHER" check "$@" >out.txt 2>err.txt; }
check_verdicts() { grep '^gpuleak: ' err.txt | sed 's/process [0-9]*/process P/; s/gpuleak\.run-[A-Za-z0-9]\{6\}\.[0-9]*\./gpuleak.run-T.P./'; }
check_summary() { echo "gpuleak: ERROR SUMMARY: $1 processes with errors (leaks, memory still mapped, refused frees, teardown releases${2:-})"; }

# traced_script NAME OBS WHAT: NAME.py, a script the test wrote (ctypes on
# libcuda), run traced by python3 into NAME.snap; it must exit 0 and print
# OBS alone (its output in NAME.out; WHAT names OBS on failure), and its
# JSON report is written to NAME.json.
traced_script() {
    GPULEAK_OUTPUT=$1.snap traced python3 "$1.py" >"$1.out" || fail "$1.py: $(cat "$1.out")"
    expect_eq "$(cat "$1.out")" "$2" "$3"
    "$REPORT" --json "$1.snap" >"$1.json"
}

# Line number of the marker "MARK" in a test program source.
site_line() { grep -n "$2" "$ROOT/tests/programs/$1" | head -1 | cut -d: -f1; }

# Runs python3 assertions against a JSON report: check_json FILE <<'PY' ... PY
# The script sees `d` (the document), `leaks`, `devices`, and helpers:
# frame(f) -> "function file:line" with the file's basename; eq(got, want, what);
# device0_own_memory(how, peak, allocs, frees, fn) -> device 0's entry, checked
# to be the only device and to hold the process's own memory alone, all of
# it freed: PEAK bytes at the peak, from one stack whose top function is FN,
# ALLOCS allocations, FREES frees, none of memory it did not know (the
# processes that map memory of others'; its failures name HOW).
# check_multi_json is the same for diff and merge JSON, which have no leaks or
# devices members.
json_assert() { # FILE PRELUDE (python run before the script on stdin)
    python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
def frame(f):
    return "%s %s:%s" % (f["function"], os.path.basename(f["file"] or "?"), f["line"])
def eq(got, want, what):
    if got != want:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, got, want))
def device0_own_memory(how, peak, allocs, frees, fn):
    dv = devices[0]
    eq(sorted(devices), [0], how + ": devices")
    eq((dv["peak_bytes"], dv["live_bytes"], dv["live_count"], dv["alloc_count"], dv["free_count"],
        dv["unknown_free_count"]), (peak, 0, 0, allocs, frees, 0), how + ": device 0 counters")
    eq([(c["bytes"], c["frames"][0]["function"]) for c in dv["peak_composition"]],
       [(peak, fn)], how + ": peak composition")
    return dv
exec(sys.argv[2])
exec(sys.stdin.read())
' "$1" "$2"
}
check_json() { json_assert "$1" 'leaks = d["leaks"]; devices = {x["device"]: x for x in d["devices"]}'; }
check_multi_json() { json_assert "$1" ''; }

# The stand-in torch (tests/programs/torch_standin) on fakecuda's runtime
# 13, with gpuleak_memory on Python's path.  The stand-in loads a
# libc10_cuda.so, as `import torch` does: gpuleak's sign that PyTorch is
# there (fake_torch_stripped's, which has no constructors).
torch_standin_setup() {
    export FAKECUDA_RT=$FAKECUDA/libcudart.so.13 GPULEAK_PYTHON_DIR=$ROOT/tools
    export PYTHONPATH=$ROOT/tests/programs/torch_standin
    export TORCH_STANDIN_C10_CUDA=$TPROG/stripped/libc10_cuda.so
}

# Real PyTorch on fakecuda (issue 33): skips under the sanitizers (torch's
# libraries are not sanitized; the launcher preloads libgpuleak.so alone)
# and, counted, where scripts/torch-env.sh cannot make the venv; sets PY to
# its python, puts the toolkit's cuDNN, cuFFT, ... on the library path and
# gpuleak_memory on Python's.
# torch_real_env is that setup but for gpuleak's settings: the skips, PY and
# the library path alone.
torch_real_env() {
    skip_under_san "the launcher preloads libgpuleak.so alone, and torch's libraries are not sanitized"
    PY=$("$ROOT/scripts/torch-env.sh") || skip_if true "$PY"
    export LD_LIBRARY_PATH=${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
torch_real_setup() {
    torch_real_env
    export GPULEAK_PYTHON_DIR=$ROOT/tools
    # Every tensor's line, as these tests assert them; the default (the
    # recorder turned on at the first request) is t_torch_real_lines's.
    export GPULEAK_TORCH_LINES=start
}

# torch_real_default_lines: GPULEAK_TORCH_LINES back to its default (no
# setting), for the tests of the step sampler.  Growth after a pause counts
# as a request for lines (GPULEAK_TORCH_SETTLE, 10 s): on a loaded machine
# two allocations that far apart turned the recorder on for good before the
# sampler's first step, so the pause is an hour here.
torch_real_default_lines() {
    unset GPULEAK_TORCH_LINES
    export GPULEAK_TORCH_SETTLE=1h
}

# html_data PAGE: the JSON document an HTML report embeds (its gl-data
# script element), as the page's script reads it.
html_data() {
    python3 -c '
import html.parser, sys
class P(html.parser.HTMLParser):
    on = False; text = ""
    def handle_starttag(self, tag, a): self.on = ("id", "gl-data") in a
    def handle_endtag(self, tag): self.on = False
    def handle_data(self, d): self.text += d if self.on else ""
p = P(); p.feed(open(sys.argv[1]).read()); print(p.text)' "$1"
}

# torch_real_run SCRIPT [ARG...]: SCRIPT under the launcher on fakecuda's
# runtime (one device), here, its output in out.txt and err.txt; fails on
# a nonzero exit or on anything torch called that fakecuda lacks (a stub
# says "fakecuda: ...").
torch_real_run() {
    "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$@" >out.txt 2>err.txt ||
        fail "run exited $?: $(tail -3 err.txt)"
    if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
}

# A `gpuleak plan --keep runs --json plan.json` of a script that trains 2
# steps itself and prints "peaks ALLOCATED RESERVED" (tests/programs/
# plan_gpt.py, plan_resnet.py): plan_expect_pinned NAME VALUE KEY checks
# the run NAME=VALUE: the script's own peaks are KEY's bytes in
# tests/programs/plan_models.peaks, and the plan's JSON says the same
# peaks, gpuleak's device peak = the reserved peak, fits, 2 steps.
plan_expect_pinned() {
    local printed alloc reserved got
    printed=$(awk '$1 == "peaks" { print $2, $3 }' "runs/$1=$2/stdout")
    expect_eq "$printed" "$(sed -n "s/^$3 : //p" "$ROOT/tests/programs/plan_models.peaks")" \
        "$1=$2: torch's peaks against the pinned bytes"
    read -r alloc reserved <<<"$printed"
    got=$(jget plan.json "[[r['peak_allocated'], r['peak_reserved'], r['device_peak'], r['fits'], r['steps']]
        for r in d['runs'] if str(r['values']['$1']) == '$2'][0]")
    expect_eq "$got" "[$alloc, $reserved, $reserved, true, 2]" "$1=$2: the plan's peaks, device peak, fits, steps"
}

# plan_gpt_variants VARIANT...: `gpuleak plan` sweeps tests/programs/
# plan_gpt.py's --variant over VARIANTs (batch 4, 2 steps; plan.json,
# runs/, table.txt, progress.txt), and each run's peaks are its pinned ones
# (plan_expect_pinned).
plan_gpt_variants() {
    local v sweep
    sweep=$(IFS=,; echo "$*")
    "$LAUNCHER" plan --gpu h100-sxm-80gb --steps 0 --keep runs --json plan.json --sweep "variant=$sweep" \
        -- "$PY" "$ROOT/tests/programs/plan_gpt.py" --batch 4 --steps 2 --variant '{variant}' >table.txt 2>progress.txt ||
        fail "plan exited $?: $(tail -3 progress.txt)"
    for v in "$@"; do
        plan_expect_pinned variant "$v" "gpt --batch 4 --steps 2 --variant $v"
    done
}

# live_python_job BYTES SCRIPT [ARG...]: python3 SCRIPT ARG... traced, its
# live file in ./live (GPULEAK_LIVE_DIR, exported) and its input a FIFO
# kept open until it has printed "ready PID" and its live file says device
# 0 holds BYTES live; that file is then copied to job.live, the input
# closed (the script's cue to exit), and the job must exit 0.
live_python_job() {
    local bytes=$1 pid
    shift
    mkdir live && chmod 700 live
    export GPULEAK_LIVE_DIR=$PWD/live
    mkfifo job.in
    GPULEAK_OOM_SNAPSHOT=0 traced python3 "$@" <job.in >job.out 2>job.err &
    live_job_pid=$!
    trap 'kill "$live_job_pid" 2>/dev/null || true' EXIT
    exec 3>job.in
    wait_for "the job" has_line job.out ready
    pid=$(cut -d' ' -f2 job.out)
    wait_for "the live file" has_line "live/$pid.live" "device 0 live_bytes $bytes "
    cp "live/$pid.live" job.live
    exec 3>&-
    wait "$live_job_pid" || fail "the job's status $?"
}

# A long-running target driven one command a line through a FIFO (the
# attach tests): target_start NAME TRIES CMD... runs CMD reading NAME.cmd
# (kept open on fd 3), output in NAME.out and NAME.err, sets pid, and waits
# up to TRIES x 50 ms (reference time) for its "ready" line; target_send
# NAME CMD... sends each command and waits up to 10 s for its "ok WORD";
# target_finish sends "quit" and sets rc to the target's exit status.
target_start() {
    local name=$1 ms=$(($2 * 50))
    shift 2
    rm -f "$name.cmd"
    mkfifo "$name.cmd"
    "$@" <"$name.cmd" >"$name.out" 2>"$name.err" &
    pid=$!
    exec 3>"$name.cmd"
    wait_until -t "$((ms / 1000)).$(printf %03d $((ms % 1000)))" grep -q '^ready$' "$name.out" ||
        fail "$name: not ready ($REPLY): $(tail -3 "$name.err")"
}
# target_answered NAME WORD N: NAME.out has more than N lines "ok WORD".
target_answered() { [ "$(grep -c "^ok $2\$" "$1.out" || true)" -gt "$3" ]; }
target_send() {
    local name=$1 c n
    shift
    for c in "$@"; do
        n=$(grep -c "^ok ${c%% *}\$" "$name.out" || true)
        echo "$c" >&3
        wait_until -t 10 target_answered "$name" "${c%% *}" "$n" || fail "$name: no answer to '$c' ($REPLY)"
    done
}
target_finish() { echo quit >&3; exec 3>&-; rc=0; wait "$pid" || rc=$?; }
