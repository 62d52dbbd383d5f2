# gpuleak attach to real PyTorch on fakecuda, started without gpuleak
# (docs/attach.md), with its native caching allocator and with expandable
# segments: the segment made after the attach is found at the Python line
# whose tensor asked for it (cudaMalloc through libc10_cuda's import slot;
# cuMemCreate through PyTorch's DriverAPI table, fetched before the attach
# and found by the attach's scan), held by the caching allocator; the
# attach asks PyTorch for its view (docs/attach.md): with the native
# allocator, the first snapshot, taken while Python's main thread waits in C
# (it cannot answer), carries that view, the segment made before the attach
# named so, its tensor at the line PyTorch recorded (the program records
# history itself from its start); with expandable segments the attach is
# made while the main thread waits in C, and PyTorch's part is "not known"
# until the main thread answers; the ledger's "made before attach" row is
# exact (the 2 MiB segment made before, freed by empty_cache, is
# subtracted) and split by what PyTorch said: its 2 MiB segment, the rest
# (fakecuda's 4 MiB context); torch's own output and the exit status are
# those of a run without the attach.  PyTorch's recorder, turned on by a
# request while attached, is off again after the detach.
source "$ROOT/tests/lib.sh"
torch_real_setup
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
prog=$ROOT/tests/programs/torch_real_attach.py
line=$(site_line torch_real_attach.py LEAK-LINE)
pre_line=$(site_line torch_real_attach.py PRE-LINE)

start() { target_start "$1" 1200 "$FAKECUDA/fakecuda-run" --devices 1 -- "$PY" "$prog"; }
send() { target_send "$@"; }
finish() { target_finish; }

cache() { sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" "$1"; }
pytorch_part() {
    jget "$1" '"%(answered)s %(bytes)d %(at_attach_bytes)d %(segments)d %(freed_bytes)d %(frees)d %(tensor_bytes)d %(tensors)d" % d["ledger"][0]["before_attach"]["pytorch"]'
}
# The late answer's follow-up snapshot is written before the next is asked for.
two_snapshots() { [ "$(ls snaps | wc -l)" -ge 2 ]; }
followup() { wait_until -t 10 two_snapshots || true; }

# Attached while the main thread runs bytecode, the attach has PyTorch's
# answer; the first snapshot, taken while the main thread waits in C, cannot
# ask (2 s, no answer) and carries the attach's view, exactly.
attach_then_block() {
    "$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "$name: attach: $(cat attach.err)"
    send attached block
    first=$("$LAUNCHER" snapshot "$pid") || fail "$name: first snapshot"
    send attached unblock
    followup
    "$REPORT" "$first" >first.txt || fail "$name: report of the first snapshot"
    grep -q "^PyTorch's view from [0-9.]* s before this snapshot, the last one it gave" first.txt ||
        fail "$name: the first snapshot does not carry the attach's view: $(cache first.txt)"
    grep -qx "segment 0x[0-9a-f]*: 2,097,152 bytes (2.0 MiB) on device 0, reserved by PyTorch before the attach (gpuleak attach)" first.txt ||
        fail "$name: the segment made before the attach: $(cache first.txt)"
    grep -qx "    allocated: 1,048,576 bytes (1.0 MiB) in 1 tensor" first.txt || fail "$name: PyTorch's tensors: $(cache first.txt)"
    grep -qx "        1,048,576 bytes (1.0 MiB) in 1 tensor: <module> (torch_real_attach.py:$pre_line)" first.txt ||
        fail "$name: the tensor made before the attach, at its line: $(cache first.txt)"
    "$REPORT" --json "$first" >first.json
    b=$(jget first.json '"%(bytes)d %(used_at_attach_bytes)d %(freed_bytes)d %(rest_bytes)d" % d["ledger"][0]["before_attach"]')
    expect_eq "$b" "6291456 6291456 0 4194304" "$name: the first snapshot's before-attach row"
    expect_eq "$(pytorch_part first.json)" "True 2097152 2097152 1 0 0 1048576 1" "$name: the first snapshot's PyTorch part"
}

# Attached while the main thread waits in C: the attach goes on without
# PyTorch's answer (2 s), and a snapshot then says it is not known; the
# answer PyTorch gives when the main thread returns serves the attach.
block_then_attach() {
    send attached block
    "$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "$name: attach: $(cat attach.err)"
    first=$("$LAUNCHER" snapshot "$pid") || fail "$name: first snapshot"
    send attached unblock
    followup
    "$REPORT" "$first" >first.txt || fail "$name: report of the first snapshot"
    grep -qx "PyTorch was not asked in time: Python's main thread ran no bytecode within 2 s" first.txt ||
        fail "$name: the first snapshot: $(cache first.txt)"
    grep -q "  of them, PyTorch's segments: not known, PyTorch has not answered the attach yet\$" first.txt ||
        fail "$name: the first snapshot's ledger: $(sed -n '/^LEDGER/,$p' first.txt)"
    "$REPORT" --json "$first" >first.json
    expect_eq "$(pytorch_part first.json)" "False 0 0 0 0 0 0 0" "$name: the first snapshot's PyTorch part"
}

# scenario NAME KIND API HOW: one allocator configuration (PYTORCH_CUDA_ALLOC_CONF
# set by the caller); KIND and API: how its segments are recorded; HOW:
# attach_then_block or block_then_attach.
scenario() {
    local name=$1 kind=$2 api=$3 how=$4
    mkdir "$name"
    cd "$name"
    start plain
    send plain block unblock "leak 3000000" "free-pre" "leak 30000000"
    finish
    local plain_rc=$rc
    mkdir snaps
    start attached
    "$how"
    send attached "leak 3000000"
    # PyTorch's own view, asked by the snapshot: the segment made before the
    # attach and its tensor are known too.
    second=$("$LAUNCHER" snapshot "$pid") || fail "$name: snapshot"
    "$REPORT" "$second" >second.txt || fail "$name: report of the second snapshot"
    grep -qx "segment 0x[0-9a-f]*: 2,097,152 bytes (2.0 MiB) on device 0, reserved by PyTorch before the attach (gpuleak attach)" second.txt ||
        fail "$name: the segment made before the attach: $(cache second.txt)"
    grep -q "^    allocated: 4,048,896 bytes (3.9 MiB) in 2 tensors\$" second.txt ||
        fail "$name: PyTorch's tensors: $(cache second.txt)"
    "$REPORT" --json "$second" >second.json
    expect_eq "$(pytorch_part second.json)" "True 2097152 2097152 1 0 0 1048576 1" "$name: the second snapshot's PyTorch part"
    send attached "free-pre"
    snap=$("$LAUNCHER" detach "$pid" 2>detach.err) || fail "$name: detach: $(cat detach.err)"
    send attached "leak 30000000"
    finish
    expect_eq "$rc" "$plain_rc" "$name: exit status"
    expect_eq "$rc" 4 "$name: the program's own exit status"
    cmp -s plain.out attached.out || fail "$name: output differs: $(diff plain.out attached.out)"
    "$REPORT" "$snap" >report.txt || fail "$name: report"
    grep -qx "20,971,520 bytes (20.0 MiB) in 1 allocation: $kind on device 0 ($api), held by pytorch-caching-allocator" report.txt ||
        fail "$name: the segment made after the attach: $(sed -n '/^HELD BY/,/^LEAK SUMMARY/p' report.txt)"
    grep -A3 "^20,971,520 bytes (20.0 MiB) in 1 allocation: $kind" report.txt | grep -qx "    #0 leak (torch_real_attach.py:$line) \[python\]" ||
        fail "$name: its line: $(grep -A3 "^20,971,520 bytes (20.0 MiB) in 1 allocation: $kind" report.txt)"
    "$REPORT" --json "$snap" >snap.json
    expect_eq "$(jget snap.json 'd["devices"][0]["unknown_free_count"]')" 0 "$name: unknown frees"
    cd ..
}

# before_attach PART: the detach snapshot's before-attach row, and its
# PyTorch part: the 2 MiB segment made before is gone (empty_cache), named
# as PyTorch's; the rest is fakecuda's 4 MiB context.
before_attach() {
    jget "$1/snap.json" '"%(bytes)d %(used_at_attach_bytes)d %(freed_bytes)d %(frees)d %(rest_bytes)d" % d["ledger"][0]["before_attach"]'
    jget "$1/snap.json" '"%(bytes)d %(at_attach_bytes)d %(segments)d %(freed_bytes)d %(frees)d" % d["ledger"][0]["before_attach"]["pytorch"]'
}
scenario native "device memory" cudaMalloc attach_then_block
# fakecuda's context is 4 MiB, the segment made before 2 MiB.
expect_eq "$(before_attach native)" "4194304 6291456 2097152 1 4194304
0 2097152 1 2097152 1" "native: the ledger's before-attach row"
expect_eq "$(jget native/snap.json 'd["ledger"][0]["unexplained_bytes"]')" 0 "native: unexplained"

PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True scenario expandable "virtual memory" cuMemCreate block_then_attach
# The expandable segment made before the attach is released through the VMM
# API: its unmap is counted by the bytes unmapped (before, not at all, and
# the ledger's remainder went 2 MiB below 0).
expect_eq "$(before_attach expandable)" "4194304 6291456 2097152 1 4194304
0 2097152 1 2097152 1" "expandable: the ledger's before-attach row"
expect_eq "$(jget expandable/snap.json 'd["ledger"][0]["unexplained_bytes"]')" 0 "expandable: unexplained"

# PyTorch's recorder, off when the program started: a snapshot request
# while attached turns it on at the next allocation (whose tensor has its
# line), and
# the detach turns it off again, so that the job runs as fast as before the
# attach (before: it stayed on, ~1.5 us a tensor, for the rest of the job).
mkdir -p recorder/snaps && cd recorder
NO_HISTORY=1 start recorder
recorder_says() { send recorder history; [ "$(grep '^history ' recorder.out | tail -1)" = "history $1" ]; }
recorder_is() {
    wait_until -t 4 recorder_says "$1" || fail "recorder: $2 ($REPLY): $(grep '^history ' recorder.out | tail -1), not $1"
}
recorder_is False "at start"
"$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "recorder: attach: $(cat attach.err)"
"$LAUNCHER" snapshot "$pid" >/dev/null || fail "recorder: snapshot"
send recorder "leak 3000000"
recorder_is True "after a snapshot request while attached"
"$LAUNCHER" detach "$pid" >/dev/null 2>detach.err || fail "recorder: detach: $(cat detach.err)"
recorder_is False "after the detach"
finish
expect_eq "$rc" 4 "recorder: the program's own exit status"
cd ..
echo ok
