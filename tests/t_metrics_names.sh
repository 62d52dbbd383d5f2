# GPULEAK_METRICS takes GPULEAK_OUTPUT's conversions (issue 34): with %p each
# process of a job writes its own file; a relative name is resolved once,
# where tracking started, not after the program's chdir; processes that
# share one name without %p are told so, once each.
source "$ROOT/tests/lib.sh"
export FAKECUDA_RT=$FAKECUDA/libcudart.so.13 GPULEAK_LIVE=0
py=$ROOT/tests/programs/py_live.py
HOST=$(hostname)
sample() { echo "gpuleak_live_bytes{device=\"0\",pid=\"$1\",rank=\"0\",host=\"$HOST\"} $2"; }
jobs_=() bg=()
cleanup() { for j in "${jobs_[@]}"; do kill "$j" 2>/dev/null || true; done; }
wait_all() { for j in "${bg[@]}"; do wait "$j" || fail "$1: a job's status $?"; done; bg=(); }
trap cleanup EXIT
start() {  # start NAME METRICS FD: a holding job writing METRICS, its input on FD; its pid in $REPLY
    mkfifo "$1.in"
    GPULEAK_METRICS=$2 traced python3 "$py" hold <"$1.in" >"$1.out" 2>"$1.err" &
    jobs_+=("$!")
    bg+=("$!")
    eval "exec $3>$1.in"
    wait_for "$1 to start" has_line "$1.out" ready
    REPLY=$(cut -d' ' -f2 "$1.out") # python3 may be a shim that forks
    jobs_+=("$REPLY")
}

# %p: two processes, two files, each with its own pid.
mkdir m
start a "$PWD/m/job.%p.prom" 3; a=$REPLY
start b "$PWD/m/job.%p.prom" 4; b=$REPLY
wait_for "a's file" has_line "m/job.$a.prom" "$(sample "$a" 1048576)"
wait_for "b's file" has_line "m/job.$b.prom" "$(sample "$b" 1048576)"
expect_eq "$(ls m | sort)" "$(printf 'job.%s.prom\n' "$a" "$b" | sort)" "%p: the files"
expect_eq "$(grep -ho 'pid="[0-9]*"' "m/job.$a.prom" | sort -u)" "pid=\"$a\"" "%p: a's file holds a's pid only"
exec 3>&- 4>&-
wait_all "%p"
expect_eq "$(cat a.err b.err)" "" "%p: no warning"

# A relative name, then chdir: the file stays where tracking started and
# has the figures written after the chdir.  (An absolute GPULEAK_OUTPUT, as
# under check: the writer thread then keeps no directory of its own.)
mkdir elsewhere
GPULEAK_OUTPUT=$PWD/chdir.snap GPULEAK_METRICS=rel.prom traced python3 "$py" chdir elsewhere 2>chdir.err || fail "chdir: status"
expect_eq "$(ls elsewhere)" "" "chdir: nothing written in the new directory"
expect_eq "$(grep '^gpuleak_live_bytes' rel.prom | sed 's/pid="[0-9]*"/pid="P"/')" "$(sample P 2097152)" "chdir: the figures after chdir"
expect_eq "$(cat chdir.err)" "" "chdir: no warning"

# One name, no %p: the second process sees the first's pid in the file and
# says so, once.
start c "$PWD/shared.prom" 3; c=$REPLY
wait_for "c's file" has_line shared.prom "$(sample "$c" 1048576)"
start d "$PWD/shared.prom" 4; d=$REPLY
wait_for "d's file" has_line shared.prom "$(sample "$d" 1048576)"
exec 3>&- 4>&-
wait_all shared
expect_eq "$(cat d.err)" "gpuleak: GPULEAK_METRICS=$PWD/shared.prom: process $c writes this file too; put %p in the name for a file per process" \
    "shared: the warning"
