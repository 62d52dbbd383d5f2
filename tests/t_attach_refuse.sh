# gpuleak attach refuses in one line, with status 2, and leaves the process
# as it was: no such process, another user's process (as a user without
# CAP_SYS_PTRACE, via setpriv), Yama's ptrace_scope 1, 2 and 3, no gdb, a
# process started under gpuleak run, one attached already; detach of a
# process not attached, a process with GPULEAK_DISABLE=1.  (docs/attach.md,
# "Permissions".)
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_target

# refused WHAT EXPECTED-LINE CMD...: status 2, exactly that line on stderr.
refused() {
    local what=$1 line=$2 rc=0
    shift 2
    "$@" >out.txt 2>err.txt || rc=$?
    expect_eq "$rc" 2 "$what: status"
    expect_eq "$(cat err.txt)" "$line" "$what: message"
    expect_eq "$(cat out.txt)" "" "$what: stdout"
}

# A pid that no process has.
nopid=999999
while [ -d "/proc/$nopid" ]; do nopid=$((nopid - 1)); done
refused "no process" "gpuleak: attach: no process $nopid" "$LAUNCHER" attach "$nopid"
refused "not a pid" "gpuleak: attach: 'abc' is not a process id" "$LAUNCHER" attach abc

mkfifo cmd
"$T" <cmd >target.out 2>&1 &
pid=$!
exec 3>cmd
wait_for -t 10 "the target to be ready" grep -q '^ready$' target.out

# Yama, read from a file in its place (GPULEAK_YAMA_SCOPE_FILE), as a user
# without CAP_SYS_PTRACE.
echo 1 >scope
refused "ptrace_scope 1" "gpuleak: attach: Yama ptrace_scope is 1: only a process's ancestors may trace it (run as root, give gdb CAP_SYS_PTRACE, or set /proc/sys/kernel/yama/ptrace_scope to 0)" \
    env GPULEAK_YAMA_SCOPE_FILE=scope "$LAUNCHER" attach "$pid"
echo 2 >scope
refused "ptrace_scope 2" "gpuleak: attach: Yama ptrace_scope is 2: only CAP_SYS_PTRACE may trace (run as root)" \
    env GPULEAK_YAMA_SCOPE_FILE=scope "$LAUNCHER" attach "$pid"
echo 3 >scope
refused "ptrace_scope 3" "gpuleak: attach: Yama ptrace_scope is 3: no process may be traced on this machine" \
    env GPULEAK_YAMA_SCOPE_FILE=scope "$LAUNCHER" attach "$pid"

refused "no gdb" "gpuleak: attach: gdb is not installed (apt install gdb); it loads gpuleak into the running process" \
    env GPULEAK_GDB=/nonexistent/gdb "$LAUNCHER" attach "$pid"

# Another user's process: the launcher run as nobody, the target ours.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] && [ -x "$LAUNCHER" ] &&
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all true 2>/dev/null; then
    refused "another user" "gpuleak: attach: process $pid belongs to another user (uid 0); attaching needs that user or CAP_SYS_PTRACE" \
        env HOME=/ XDG_RUNTIME_DIR=/tmp setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
        --bounding-set=-all "$LAUNCHER" attach "$pid"
else
    echo "(another user: not tested here, needs root and setpriv)"
fi

refused "detach, not attached" "gpuleak: detach: process $pid is not attached" "$LAUNCHER" detach "$pid"

# Attached once: a second attach is refused, the first goes on.
command -v gdb >/dev/null || { echo "SKIP: no gdb for the rest"; exit 77; }
mkdir snaps
"$LAUNCHER" attach --output snaps/ "$pid" 2>/dev/null || fail "attach"
refused "attached already" "gpuleak: attach: process $pid is tracked already (gpuleak attach, or started under gpuleak run)" \
    "$LAUNCHER" attach "$pid"
"$LAUNCHER" detach "$pid" >/dev/null 2>&1 || fail "detach"
echo quit >&3
exec 3>&-
rc=0; wait "$pid" || rc=$?
expect_eq "$rc" 7 "the target's exit status"

# GPULEAK_DISABLE=1 in the process's environment: the library, loaded,
# says so, and changes nothing.
mkfifo cmd2
GPULEAK_DISABLE=1 "$T" <cmd2 >disabled.out 2>&1 &
pid=$!
exec 3>cmd2
wait_for -t 10 "the disabled target to be ready" grep -q '^ready$' disabled.out
refused "disabled" "gpuleak: attach: process $pid has GPULEAK_DISABLE set in its environment" "$LAUNCHER" attach "$pid"
refused "detach, disabled" "gpuleak: detach: process $pid is not attached" "$LAUNCHER" detach "$pid"
echo quit >&3
exec 3>&-
rc=0; wait "$pid" || rc=$?
expect_eq "$rc" 7 "the disabled target's exit status"

# Started under gpuleak run: preloaded; gpuleak snapshot is the way.
"$LAUNCHER" run --quiet -- sleep 30 &
pid=$!
wait_for -t 5 "libgpuleak in the preloaded target" grep -qs libgpuleak "/proc/$pid/maps"
refused "preloaded" "gpuleak: attach: process $pid has libgpuleak preloaded (started under gpuleak run): use 'gpuleak snapshot $pid'" \
    "$LAUNCHER" attach "$pid"
kill "$pid"
wait "$pid" 2>/dev/null || true
echo ok
