# The live view (docs/live.md): a job under gpuleak keeps its live file and
# its metrics file current without writing a snapshot; `gpuleak top --once`
# prints exact figures and source lines; `gpuleak top` under tmux shows the
# stack that grows while it watches, quits on q and says when the process
# ends; the metrics file is in Prometheus' text format with exact values,
# its labels and the asked mode; the live directory is refused when it is
# not the user's alone; hostile live files get one line and status 2.
source "$ROOT/tests/lib.sh"
command -v tmux >/dev/null || fail "tmux is not installed (make deps installs it)"
SRC=$ROOT/tests/programs/live_job.c
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
STEADY="steady live_job.c:$(line_of 'LIVE-SITE: steady') <- main live_job.c:$(line_of 'void \*s = steady();')"
GROW="grow_step live_job.c:$(line_of 'LIVE-SITE: grow') <- main live_job.c:$(line_of 'grow_step();')"
OOM="refused live_job.c:$(line_of 'LIVE-SITE: oom') <- main live_job.c:$(line_of '            refused();')"
TOP=$BUILD/libexec/gpuleak/gpuleak-top
mkdir live && chmod 700 live
export GPULEAK_LIVE_DIR=$PWD/live
TMUX_SOCK=gpuleak-test-$$
cleanup() {
    tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
    [ -z "${job:-}" ] || kill "$job" 2>/dev/null || true
}
trap cleanup EXIT

# tmux without the job's pipe: a tmux server that inherited its write end
# would keep the job from ever seeing the end of its input.
tm() { tmux -L "$TMUX_SOCK" "$@" 3>&- 4>&-; }
pane() { tm capture-pane -p -t "$1" 2>/dev/null; }
pane_has() { pane "$1" | grep -qF -- "$2"; }

mkfifo job.in
RANK=5 GPULEAK_OOM_SNAPSHOT=0 GPULEAK_METRICS=$PWD/job.prom GPULEAK_METRICS_MODE=0640 LD_PRELOAD=$LIBGPULEAK LD_LIBRARY_PATH=$FAKECUDA \
    "$TPROG/live_job" <job.in >job.out 2>job.err &
job=$!
exec 3>job.in
wait_for "the job to start" has_line job.out ready
step() {  # step WORD: one step of the job, done
    local n; n=$(($(grep -c "^done" job.out || true) + 1))
    echo "$1" >&3
    wait_for "step $1" done_at_least "$n"
}
done_at_least() { [ "$(grep -c "^done" job.out || true)" -ge "$1" ]; }
step grow
step grow
step oom
wait_for "the live file" has_line "live/$job.live" "device 0 live_bytes 6291456 live_count 3 "
grep -q "failed_count 1$" "live/$job.live" || fail "live file: $(cat "live/$job.live")"
expect_eq "$(stat -c %a "live/$job.live")" 600 "live file mode"
ls *.snap 2>/dev/null && fail "a snapshot was written"

# One frame, exact (times normalized).
"$LAUNCHER" top --once "$job" >once.txt 2>once.err || fail "gpuleak top --once: $(cat once.err)"
sed -E 's/up [0-9.]+ s$/up T s/; s/^  at [0-9.]+ s /  at T s /' once.txt >once.norm
expect_eq "$(cat once.norm)" "gpuleak top: pid $job ($TPROG/live_job), up T s

device           live  allocations         peak     failed
0             6.0 MiB            3      6.0 MiB          1

largest live stacks
      live      count  device where
   4.0 MiB          1  0      $STEADY
   2.0 MiB          2  0      $GROW

out-of-memory errors: 1, the last:
  at T s  device 0  1.0 PiB  $OOM" "gpuleak top --once"

# The terminal view, under tmux: three more steps while it watches make
# grow_step the fastest-growing stack, by exactly the 3 MiB it grew.
tm new-session -d -s top -x 160 -y 40 \
    "GPULEAK_LIVE_DIR='$PWD/live' '$LAUNCHER' top --interval 0.3 $job; echo \$? >'$PWD/viewer.rc'; sleep 60"
wait_for "the view" pane_has top "fastest-growing stacks (last 10 s)"
step grow
step grow
step grow
row="  +3.0 MiB    5.0 MiB          5  0      $GROW"
wait_for "grow_step's growth in the view ($(pane top | sed -n '/fastest/,/^$/p'))" pane_has top "$row"
pane top >view.txt
expect_eq "$(grep -A3 'fastest-growing' view.txt)" "fastest-growing stacks (last 10 s)
    growth       live      count  device where
$row
      +0 B    4.0 MiB          1  0      $STEADY" "the view's stacks"
grep -qE '^0 +9\.0 MiB +6 +9\.0 MiB +1$' view.txt || fail "the view's device line: $(cat view.txt)"
tm send-keys -t top q
wait_for "q to quit" test -s viewer.rc
expect_eq "$(cat viewer.rc)" 0 "the view's status after q"

# The metrics file: the same figures, in the Prometheus text format the
# textfile collector reads (counters named and typed with _total), with
# the labels pid, rank, host and device; the mode asked for.
step free
L="device=\"0\",pid=\"$job\",rank=\"5\",host=\"$(hostname)\""
wait_for "the metrics after free" has_line job.prom "gpuleak_live_bytes{$L} 5242880"
expect_eq "$(stat -c %a job.prom)" 640 "metrics file mode"
expect_eq "$(cat job.prom)" "# HELP gpuleak_live_bytes Memory allocated through CUDA and not freed yet.
# TYPE gpuleak_live_bytes gauge
gpuleak_live_bytes{$L} 5242880
# HELP gpuleak_live_allocations Allocations not freed yet.
# TYPE gpuleak_live_allocations gauge
gpuleak_live_allocations{$L} 5
# HELP gpuleak_peak_bytes Highest gpuleak_live_bytes so far.
# TYPE gpuleak_peak_bytes gauge
gpuleak_peak_bytes{$L} 9437184
# HELP gpuleak_allocations_total Allocations made.
# TYPE gpuleak_allocations_total counter
gpuleak_allocations_total{$L} 6
# HELP gpuleak_frees_total Allocations freed.
# TYPE gpuleak_frees_total counter
gpuleak_frees_total{$L} 1
# HELP gpuleak_failed_allocations_total Allocations CUDA refused (out of memory).
# TYPE gpuleak_failed_allocations_total counter
gpuleak_failed_allocations_total{$L} 1" "metrics file"
python3 - job.prom <<'PY' || fail "metrics: not the Prometheus text format"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "must end with a newline"
help_, types = set(), {}
for l in lines[:-1]:
    m = re.fullmatch(r"# (TYPE|HELP) ([a-z_]+) (.+)", l)
    if m:
        (types.__setitem__(m.group(2), m.group(3)) if m.group(1) == "TYPE" else help_.add(m.group(2)))
        continue
    m = re.fullmatch(r'([a-z_]+)\{device="(\d+|host)",pid="\d+",rank="\d+",host="[^"\\]*"\} (\d+)', l)
    assert m, "bad sample line %r" % l
    name = m.group(1)
    assert name in types and name in help_, "sample before its HELP and TYPE: %r" % l
    assert types[name] in ("gauge", "counter"), l
    assert (types[name] == "counter") == name.endswith("_total"), l
    assert name.endswith(("_bytes", "_total", "_allocations")), l
PY

# The process ends while watched: the view says so; the live file is gone.
tm new-session -d -s end -x 160 -y 40 \
    "GPULEAK_LIVE_DIR='$PWD/live' '$TOP' --interval 0.3 $job; echo \$? >'$PWD/viewer2.rc'; sleep 60"
wait_for "the second view" pane_has end "fastest-growing stacks"
exec 3>&-
wait "$job"
expect_eq "$?" 0 "the job's status"
job=
wait_for "the end to be seen" pane_has end "gpuleak top: pid"
wait_for "the second view to exit" test -s viewer2.rc
expect_eq "$(pane end | grep -c 'has ended')" 1 "the view after the end"
expect_eq "$(cat viewer2.rc)" 0 "the view's status after the end"
expect_eq "$(ls live)" "" "live files after exit"
expect_eq "$(grep -vc '^gpuleak: ' job.err || true)" 0 "the job's stderr: $(cat job.err)"
expect_eq "$(grep -c 'live view off\|GPULEAK_METRICS' job.err || true)" 0 "warnings: $(cat job.err)"
set +e
"$LAUNCHER" top --once 999999999 >gone.out 2>gone.err; rc=$?
set -e
expect_eq "$rc" 2 "top of no process: status"
expect_eq "$(cat gone.err)" "gpuleak: top: no process 999999999 (or not allowed to signal it)" "top of no process"

# A live directory that is not the user's alone is refused, with one line;
# GPULEAK_LIVE=0 writes nothing.
live_case() {  # live_case NAME DIR [VAR=VALUE]: a short job with GPULEAK_LIVE_DIR=DIR
    local name=$1 dir=$2; shift 2
    mkfifo "$name.in"
    env "$@" GPULEAK_LIVE_DIR="$dir" LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
        "$TPROG/live_job" <"$name.in" >"$name.out" 2>"$name.err" &
    local pid=$!
    exec 4>"$name.in"
    wait_for "$name to start" has_line "$name.out" ready
    echo grow >&4
    wait_for "$name's step" has_line "$name.out" "done grow"
    sleep 1.2 # a tick of the writer
    ls "$dir"/*.live >"$name.files" 2>/dev/null || true
    exec 4>&-
    wait "$pid" || fail "$name: status $?"
}
mkdir open && chmod 755 open
live_case open "$PWD/open"
expect_eq "$(cat open.err)" "gpuleak: live view off: $PWD/open is not a directory of this user's alone (Operation not permitted)" "open directory: warning"
expect_eq "$(cat open.files)" "" "open directory: files"
mkdir real && chmod 700 real && ln -s real link
live_case link "$PWD/link"
expect_eq "$(cat link.err)" "gpuleak: live view off: $PWD/link is not a directory of this user's alone (Not a directory)" "symlinked directory: warning"
expect_eq "$(ls real)" "" "symlinked directory: files"
mkdir off && chmod 700 off
live_case off "$PWD/off" GPULEAK_LIVE=0
expect_eq "$(cat off.err)$(cat off.files)" "" "GPULEAK_LIVE=0"
live_case rel "relative/dir"
expect_eq "$(cat rel.err)" "gpuleak: ignoring GPULEAK_LIVE_DIR=relative/dir: not an absolute path under 512 bytes" "relative GPULEAK_LIVE_DIR"

# Hostile live files: one line, status 2, never a crash.
{ printf 'gpuleak-live 1\npid 1\n'; } >trunc.live
printf 'gpuleak-live 3\nend\n' >v3.live
printf 'gpuleak-live 1\nsite 1 0 x 1\nend\n' >badnum.live
printf 'gpuleak-live 1\nstack 1%s\nend\n' "$(for i in $(seq 300); do printf ' 1'; done)" >deep.live
printf 'gpuleak-live 1\nmodule 10 5 0 - /x\nend\n' >range.live
printf '\x7fELF\0\0' >binary.live
head -c 17000000 /dev/zero | tr '\0' 'a' >big.live
for f in trunc v3 badnum deep range binary big; do
    set +e
    "$TOP" --once "$PWD/$f.live" >"$f.out" 2>"$f.err"; rc=$?
    set -e
    expect_eq "$rc" 2 "$f.live: status"
    expect_eq "$(wc -l <"$f.err")" 1 "$f.live: one line: $(cat "$f.err")"
done
expect_eq "$(cat trunc.err)" "gpuleak-top: $PWD/trunc.live: truncated (no end line)" "truncated live file"
expect_eq "$(cat v3.err)" "gpuleak-top: $PWD/v3.live: live file version 3: this gpuleak-top reads versions 1 and 2" "version"
expect_eq "$(cat badnum.err)" "gpuleak-top: $PWD/badnum.live: malformed line 2" "bad number"
expect_eq "$(cat big.err)" "gpuleak-top: $PWD/big.live: larger than 16 MiB" "big file"
true
