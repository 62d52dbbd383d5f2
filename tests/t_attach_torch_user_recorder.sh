# The program's own recorder survives gpuleak's detach (issue 45, item 4:
# "restores every setting it changed").  Real PyTorch on fakecuda, started
# without gpuleak, its recorder off; attached, a snapshot request turns
# gpuleak's recorder on (enabled="state", stacks="python"); then the program
# turns PyTorch's recorder on itself with PyTorch's defaults (a trace of
# every event, stacks="all") and makes a tensor.  The detach, which turns
# gpuleak's own recorder off again (t_attach_torch.sh), leaves the
# program's on: its trace keeps growing, with C++ frames.
source "$ROOT/tests/lib.sh"
torch_real_setup
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
prog=$ROOT/tests/programs/torch_real_attach.py

mkdir -p snaps
NO_HISTORY=1 target_start own 1200 "$FAKECUDA/fakecuda-run" --devices 1 -- "$PY" "$prog"
"$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "attach: $(cat attach.err)"
"$LAUNCHER" snapshot "$pid" >/dev/null || fail "snapshot"
target_send own "leak 3000000"
# the recorder is switched on at the main thread's next bytecode
recorder_on() { target_send own history; [ "$(grep '^history ' own.out | tail -1)" = "history True" ]; }
wait_for "gpuleak's recorder, on after the request" recorder_on
target_send own own "leak 1000" "leak 2000"
"$LAUNCHER" detach "$pid" >/dev/null 2>detach.err || fail "detach: $(cat detach.err)"
# the detach's pending call runs at the main thread's next bytecode
target_send own "leak 3000" history
sleep 0.5
target_send own "leak 4000" history trace
expect_eq "$(grep '^history ' own.out | tail -1)" "history True" "the program's recorder, on after the detach"
got=$(grep '^trace ' own.out | tail -1)
case $got in
"trace "[1-9]*" cxx True") ;;
*) fail "the program's trace after the detach: $got" ;;
esac
target_finish
expect_eq "$rc" 4 "the program's own exit status"
echo ok
