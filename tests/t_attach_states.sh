# gpuleak attach and detach name the real cause, at once, and change
# nothing in the process (issue 48, items 6, 8, 9 and 10):
# - a stopped process (SIGSTOP): refused in one line, and once continued
#   it has no gpuleak thread (before: the attach waited 60 s, said it
#   failed, and took effect when the process was continued);
# - a zombie: "has ended" (before: "the library could not start its
#   attach thread", from gdb's garbage answer);
# - a process that dies while the attach runs: "ended during the attach"
#   (before: the same thread message);
# - a process another tracer holds: that tracer named;
# - gdb that prints no error: "cannot load ... into it", status 2 (before:
#   status 1 and no message);
# - a newline in --output: refused (before: the line after it became a
#   setting of its own; GPULEAK_SIGNAL=none took effect);
# - libgpuleak preloaded under another file name: refused as preloaded,
#   by the launcher (an absolute LD_PRELOAD path) and by the library (a
#   bare name the launcher cannot resolve); detach likewise (before: the
#   attach went ahead -- the process crashed or was attached twice -- and
#   every detach said "another attach or detach is running").
source "$ROOT/tests/lib.sh"
skip_under_san "gdb calls into the process; the sanitizers' runtimes are not made for that"
command -v gdb >/dev/null || skip_if true "no gdb"
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_target

# refused WHAT EXPECTED-LINE CMD...: status 2, exactly that line on stderr;
# a limit of 30 s (the old stopped-process wait was 60).
refused() {
    local what=$1 line=$2 rc=0
    shift 2
    timeout -k 5 30 "$@" >out.txt 2>err.txt || rc=$?
    expect_eq "$rc" 2 "$what: status ($(cat err.txt))"
    expect_eq "$(cat err.txt)" "$line" "$what: message"
    expect_eq "$(cat out.txt)" "" "$what: stdout"
}
# threads PID: the names of its threads, sorted, on one line.
threads() { cat /proc/"$1"/task/*/comm 2>/dev/null | sort | tr '\n' ' '; }
# start_target NAME: attach_target reading NAME.cmd, on fd 3; its pid in $pid.
start_target() {
    mkfifo "$1.cmd"
    LD_PRELOAD=${preload:-} "$T" <"$1.cmd" >"$1.out" 2>&1 &
    pid=$!
    exec 3>"$1.cmd"
    wait_for "$1: the target's ready" grep -q '^ready$' "$1.out"
}
stop_target() {
    echo quit >&3
    exec 3>&-
    local rc=0
    wait "$pid" || rc=$?
    expect_eq "$rc" 7 "$1: the target's exit status"
}
mkdir snaps

# --- stopped ---------------------------------------------------------------
start_target stopped
before=$(threads "$pid")
kill -STOP "$pid"
wait_for "the target stopped" grep -q '^State:.T' "/proc/$pid/status"
refused "stopped" "gpuleak: attach: process $pid is stopped; continue it first (kill -CONT $pid); nothing was changed" \
    "$LAUNCHER" attach --output "$PWD/snaps/" "$pid"
kill -CONT "$pid"
sleep 0.5
expect_eq "$(threads "$pid")" "$before" "stopped: the threads once continued"
expect_eq "$(ls snaps)" "" "stopped: snapshots"
# Attached, then stopped: the detach is refused alike, and works once continued.
"$LAUNCHER" attach --output "$PWD/snaps/" "$pid" 2>attach.err || fail "attach: $(cat attach.err)"
kill -STOP "$pid"
wait_for "the target stopped" grep -q '^State:.T' "/proc/$pid/status"
refused "stopped, detach" "gpuleak: detach: process $pid is stopped; continue it first (kill -CONT $pid); nothing was changed" \
    "$LAUNCHER" detach "$pid"
kill -CONT "$pid"
"$LAUNCHER" detach "$pid" >detach.out 2>detach.err || fail "detach once continued: $(cat detach.err)"
expect_eq "$(cat detach.out)" "$(ls "$PWD"/snaps/*.snap)" "the detach snapshot"
rm -f snaps/*

# --- another tracer ----------------------------------------------------------
gdb -nx -batch -q -p "$pid" -ex 'shell sleep 20' >tracer.out 2>&1 &
tracer=$!
wait_for "gdb to trace the target" grep -q "^TracerPid:.$tracer\$" "/proc/$pid/status"
refused "traced" "gpuleak: attach: process $pid is traced by process $tracer (gdb), and a process has one tracer at a time" \
    "$LAUNCHER" attach --output "$PWD/snaps/" "$pid"
kill "$tracer"
wait "$tracer" 2>/dev/null || true
wait_for "gdb to let the target go" grep -q '^TracerPid:.0$' "/proc/$pid/status"

# --- a newline in --output -----------------------------------------------------
refused "newline" "gpuleak: attach: --output has a control character (newline, tab...); refused" \
    "$LAUNCHER" attach --output "$PWD/snaps/x"$'\n'"GPULEAK_SIGNAL=none" "$pid"
expect_eq "$(threads "$pid")" "$before" "newline: the threads"
stop_target stopped

# --- a zombie ------------------------------------------------------------------
python3 -c '
import os, time
child = os.fork()
if child == 0:
    os._exit(0)
print(child, flush=True)
time.sleep(600)' >zombie.pid 2>/dev/null &
parent=$!
wait_for "the zombie's pid" test -s zombie.pid
zpid=$(cat zombie.pid)
wait_for "the child to be a zombie" grep -q '^State:.Z' "/proc/$zpid/status"
refused "zombie" "gpuleak: attach: process $zpid has ended (a zombie, not yet reaped by its parent)" \
    "$LAUNCHER" attach "$zpid"
kill "$parent"
wait "$parent" 2>/dev/null || true

# --- killed while the attach runs: gdb is started just after it died ------------
cat >killing-gdb <<'EOF'
#!/bin/bash
# gdb ... -p PID ...: the process is killed first, then gdb runs.
prev=""
for a in "$@"; do [ "$prev" = -p ] && kill -9 "$a"; prev=$a; done
sleep 0.3
exec gdb "$@"
EOF
chmod +x killing-gdb
sleep 600 &
victim=$!
rc=0
GPULEAK_GDB=$PWD/killing-gdb timeout -k 5 30 "$LAUNCHER" attach --output "$PWD/snaps/" "$victim" >out.txt 2>err.txt || rc=$?
wait "$victim" 2>/dev/null || true
expect_eq "$rc" 2 "killed: status"
expect_eq "$(cat err.txt)" "gpuleak: attach: process $victim ended during the attach" "killed: message"

# --- gdb says nothing but a null handle: one line, status 2 -----------------
# (before the fix, the launcher looked for gdb's last word with a grep
# that found none, and under pipefail ended with status 1 and no message:
# seen in t_attach_busy when the process exited during its attach.)
printf '#!/bin/sh\necho "GPULEAK_DLOPEN=0x0"\n' >mute-gdb
chmod +x mute-gdb
sleep 600 &
mute=$!
refused "gdb says nothing" "gpuleak: attach: process $mute: cannot load $(readlink -f "$LIBGPULEAK_SO") into it" \
    env GPULEAK_GDB=$PWD/mute-gdb "$LAUNCHER" attach --output "$PWD/snaps/" "$mute"
kill "$mute"
wait "$mute" 2>/dev/null || true

# --- preloaded under another file name -------------------------------------------
cp "$LIBGPULEAK_SO" libother.so
ln -s "$LIBGPULEAK_SO" liblink.so
for as in "$PWD/libother.so" "$PWD/liblink.so"; do
    LD_PRELOAD=$as sleep 600 &
    p=$!
    # the maps name the file a link points to
    loaded=$(readlink -f "$as")
    wait_for "${loaded##*/} in the process's maps" grep -q "$loaded" "/proc/$p/maps"
    refused "preloaded as ${as##*/}" "gpuleak: attach: process $p has libgpuleak preloaded as $as (started under gpuleak run): use 'gpuleak snapshot $p'" \
        "$LAUNCHER" attach --output "$PWD/snaps/" "$p"
    kill "$p"
    wait "$p" 2>/dev/null || true
done
# Tracked already (its CUDA calls started gpuleak's writer): the detach
# says why it cannot be done.
preload=$PWD/libother.so start_target renamed
refused "detach, preloaded as libother.so" "gpuleak: detach: process $pid has libgpuleak preloaded as $PWD/libother.so (started under gpuleak run): it cannot be detached" \
    "$LAUNCHER" detach "$pid"
stop_target renamed
# A bare name, found on the library path: the launcher cannot tell; the
# library, loaded, finds the other copy by its entry point and refuses.
mkdir bare && cp "$LIBGPULEAK_SO" bare/libbare.so
LD_LIBRARY_PATH=$PWD/bare:$FAKECUDA LD_PRELOAD=libbare.so sleep 600 &
p=$!
wait_for "libbare.so in the process's maps" grep -q libbare "/proc/$p/maps"
refused "preloaded, bare name" "gpuleak: attach: process $p has libgpuleak preloaded (started under gpuleak run): use 'gpuleak snapshot $p'" \
    "$LAUNCHER" attach --output "$PWD/snaps/" "$p"
kill -0 "$p" || fail "the bare-name process died"
expect_eq "$(ls snaps)" "" "preloaded: snapshots"
kill "$p"
wait "$p" 2>/dev/null || true
echo ok
