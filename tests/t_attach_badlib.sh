# gpuleak attach with a library that cannot be loaded into the process
# (GPULEAK_LIB naming no file, or a library without gpuleak's entry
# point) refuses in one line, status 2, with the loader's words, and
# leaves the process running: gdb's call is made only when dlopen and
# dlsym both gave something.
# Before, the process was made to call a null pointer and died (SIGSEGV),
# and the launcher said "ended during the attach".  (docs/attach.md)
source "$ROOT/tests/lib.sh"
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_target

mkfifo cmd
"$T" <cmd >target.out 2>&1 &
pid=$!
exec 3>cmd
wait_for -t 10 "the target to be ready" grep -q '^ready$' target.out

# attach_with LIB EXPECTED-LINE: refused with that line; the process lives.
attach_with() {
    local rc=0
    GPULEAK_LIB=$1 "$LAUNCHER" attach --output "$PWD/" "$pid" >out.txt 2>err.txt || rc=$?
    expect_eq "$rc" 2 "$1: status"
    expect_eq "$(cat err.txt)" "$2" "$1: message"
    expect_eq "$(cat out.txt)" "" "$1: stdout"
    [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" || fail "$1: the process died"
}
attach_with "$PWD/no-such-lib.so" \
    "gpuleak: attach: process $pid: cannot load $PWD/no-such-lib.so into it: $PWD/no-such-lib.so: cannot open shared object file: No such file or directory"
# A library that loads but is not gpuleak's: fakecuda's runtime, the file
# the target loaded (the loader's message names it so).
other=$FAKECUDA/libcudart.so.13
[ -f "$other" ] || fail "no $other"
attach_with "$other" "gpuleak: attach: process $pid: cannot load $other into it: $other: undefined symbol: gpuleak_attach_start"

# The process was left as it was: it answers and ends with its own status.
echo quit >&3
exec 3>&-
rc=0; wait "$pid" || rc=$?
expect_eq "$rc" 7 "the target's exit status"
echo ok
