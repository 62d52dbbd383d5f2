# shellcheck shell=bash
# How much slower than the reference machine this one runs now, and the
# clock that test timeouts are measured on (sourced by tests/run.sh and
# tests/lib.sh).  A test judges the behaviour, never the machine: every
# limit a test sets on time is given in reference seconds (seconds on the
# reference machine, the project's 2-core CI machine with nothing else
# running), and a wall-clock interval counts as that interval divided by
# the slowdown during it.  The slowdown is
#   GPULEAK_TEST_SLOWDOWN x max(1, load average / CPUs)
# - GPULEAK_TEST_SLOWDOWN: how much slower this machine is than the
#   reference one when idle (a decimal >= 1).  tests/run.sh measures it
#   once (calibrate_slowdown) unless it is set; set it by hand for an
#   emulator or valgrind.
# - the load factor: the 1-minute load average over the CPUs this process
#   may use, read again each time the clock ticks, so that a limit grows
#   while the machine is busy (another `make check` beside this one) and not
#   when it is idle.  It counts runnable tasks of the whole machine: a
#   generous estimate (a CPU-bound thread at load 12 on 2 cores ran 3-4
#   times slower, not 6; a test's own busy threads count too), which only
#   lengthens limits.
# Bash only; the functions leave their answer in REPLY, and the clock's
# fork nothing (guard's watcher forks a sleep every half second), so that
# it costs nothing measurable.

MACHINE_NCPU=${MACHINE_NCPU:-$(nproc 2>/dev/null || echo 1)}
# Where the load average is read (a file of that format: t_test_clock.sh).
MACHINE_LOADAVG=${MACHINE_LOADAVG:-/proc/loadavg}
# The wall-clock cap of a guarded command, in multiples of its limit times
# GPULEAK_TEST_SLOWDOWN: what ends a command even if the load average
# stayed absurdly high (a container that sees a large host's load).
GUARD_CAP=${GUARD_CAP:-10}

# to_milli DECIMAL: REPLY = DECIMAL x 1000, an integer ("12.96" -> 12960);
# anything that is not a decimal number gives 0.
to_milli() {
    local int frac
    [[ $1 =~ ^([0-9]*)(\.([0-9]*))?$ ]] || { REPLY=0; return; }
    int=${BASH_REMATCH[1]} frac=${BASH_REMATCH[3]}000
    REPLY=$((10#${int:-0} * 1000 + 10#${frac:0:3}))
}

# milli_str MILLI: REPLY = MILLI / 1000 as a decimal with one digit ("6.5").
milli_str() { REPLY="$(($1 / 1000)).$(($1 % 1000 / 100))"; }

# machine_slowdown: REPLY = the slowdown now, in thousandths (1000: as fast
# as the reference machine, idle).
machine_slowdown() {
    local load rest base
    load=0
    { read -r load rest <"$MACHINE_LOADAVG"; } 2>/dev/null || true
    to_milli "$load"
    load=$((REPLY / MACHINE_NCPU))
    [ "$load" -ge 1000 ] || load=1000
    to_milli "${GPULEAK_TEST_SLOWDOWN:-1}"
    base=$REPLY
    [ "$base" -ge 1000 ] || base=1000
    REPLY=$((base * load / 1000))
}

# now_us: REPLY = the wall clock in microseconds (EPOCHREALTIME without its
# decimal point, which is the locale's).
now_us() { REPLY=${EPOCHREALTIME//[!0-9]/}; }

# The scaled clock: clock_start NAME starts clock NAME; clock_tick NAME adds
# the wall time since the last tick, divided by the slowdown now, to it;
# clock_spent NAME: REPLY = its reference time so far, in microseconds.
# Clocks are global variables (_clock_NAME_spent, _clock_NAME_last), so
# that any number can run in one shell.
clock_start() {
    now_us
    printf -v "_clock_$1_last" %s "$REPLY"
    printf -v "_clock_$1_spent" %s 0
}
clock_tick() {
    local -n last=_clock_$1_last spent=_clock_$1_spent
    local now
    now_us
    now=$REPLY
    machine_slowdown
    spent=$((spent + (now - last) * 1000 / REPLY))
    last=$now
}
clock_spent() { local -n spent=_clock_$1_spent; REPLY=$spent; }

# calibrate_slowdown: REPLY = GPULEAK_TEST_SLOWDOWN for this machine, the
# CPU time (not the wall time, which the load would stretch) of a fixed
# shell loop over its time on the reference machine (0.0625 s), the lower
# of two runs, at least 1.  About 0.15 s of CPU.
calibrate_slowdown() {
    local TIMEFORMAT='%3U %3S' best=0 u s
    for _ in 1 2; do
        read -r u s < <({ time (for ((i = 0; i < 50000; i++)); do :; done); } 2>&1)
        to_milli "$u"; u=$REPLY
        to_milli "$s"; s=$REPLY
        if [ "$best" = 0 ] || [ $((u + s)) -lt "$best" ]; then best=$((u + s)); fi
    done
    best=$((best * 1000 / 62))
    [ "$best" -ge 1000 ] || best=1000
    milli_str "$best"
}

# guard LIMIT CMD...: runs CMD (a program, not a shell function) and ends it
# once it has run LIMIT reference seconds (a decimal): SIGALRM to the
# timeout(1) that runs it, which then does what it does when its own time
# is up (SIGTERM to CMD's process group, SIGKILL 5 s later, status 124),
# and a line on stderr says so.  timeout's own limit is the wall-clock cap,
# LIMIT x GPULEAK_TEST_SLOWDOWN x GUARD_CAP.  The watcher looks every half
# second; it is ended as soon as CMD ends, so that it holds no pipe open.
# A SIGTERM to the shell running guard (a test's cleanup killing a guard
# started with &, run.sh ending the test) is passed on to timeout, which
# passes it on to CMD's process group, as when timeout ran in its place.
guard() {
    local limit=$1 cap tpid wpid rc wall saved
    shift
    to_milli "$limit"
    cap=$REPLY
    to_milli "${GPULEAK_TEST_SLOWDOWN:-1}"
    [ "$REPLY" -ge 1000 ] || REPLY=1000
    cap=$((cap * REPLY / 1000 * GUARD_CAP / 1000 + 1))
    now_us
    wall=$REPLY
    # <&0: a command started with & would otherwise read /dev/null.
    timeout -k 5 "$cap" "$@" <&0 &
    tpid=$!
    saved=$(trap -p TERM)
    # shellcheck disable=SC2064 # tpid is this call's
    trap "kill -TERM $tpid 2>/dev/null" TERM
    guard_watch "$limit" "$tpid" </dev/null >/dev/null 2>&1 &
    wpid=$!
    rc=0
    wait "$tpid" || rc=$?
    # A trapped signal ends wait early: wait again until timeout has ended.
    while kill -0 "$tpid" 2>/dev/null; do
        rc=0
        wait "$tpid" || rc=$?
    done
    if [ -n "$saved" ]; then eval "$saved"; else trap - TERM; fi
    if [ "$rc" = 124 ]; then
        # The watcher's status says whether it ended CMD (3) or CMD's own
        # status was 124; once CMD is gone it leaves within half a second.
        if wait "$wpid"; then :; elif [ $? = 3 ]; then
            now_us
            echo "guard: '$*' ran $limit reference seconds ($(((REPLY - wall) / 1000000)) s on the clock): ended" >&2
        fi
    else
        kill "$wpid" 2>/dev/null || true
        wait "$wpid" 2>/dev/null || true
    fi
    return "$rc"
}
# guard_watch LIMIT PID: guard's watcher of timeout(1) process PID; status
# 3 when it ended it.
guard_watch() {
    local limit pid=$2
    to_milli "$1"
    limit=$((REPLY * 1000))
    clock_start guard
    while kill -0 "$pid" 2>/dev/null; do
        sleep 0.5
        clock_tick guard
        clock_spent guard
        [ "$REPLY" -lt "$limit" ] && continue
        kill -ALRM "$pid" 2>/dev/null && return 3
        return 0
    done
    return 0
}
