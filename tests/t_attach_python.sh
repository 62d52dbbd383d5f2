# gpuleak attach to a Python program started without gpuleak
# (docs/attach.md): a C extension's cudaMalloc (its import slot) and a
# ctypes lookup made after the attach (dlsym) are found at their Python
# lines; a ctypes function object made before the attach is held in heap
# memory, which the attach does not reach, but the runtime's table of
# driver functions is: its allocation is seen as cuMemAlloc_v2.  The
# free of memory made before is no bad free; the program's output and exit
# status are those of a run without the attach.
source "$ROOT/tests/lib.sh"
need_gdb_attach
[ -d "$TPROG/python" ] || { echo "SKIP: no Python headers, no test extension"; exit 77; }
export LD_LIBRARY_PATH=$FAKECUDA FAKECUDA_RT=$FAKECUDA/libcudart.so.13 PYTHONPATH=$TPROG/python
py=$ROOT/tests/programs/py_attach.py
line() { grep -n "LEAK-LINE: $1" "$py" | cut -d: -f1; }

start() { target_start "$1" 200 python3 "$py"; }
send() { target_send "$@"; }
finish() { target_finish; }

start plain
send plain "ext 1000" "ctypes 2000" "early 3000" "free-pre" "ext 5000"
finish
plain_rc=$rc

mkdir snaps
start attached
"$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "attach: $(cat attach.err)"
send attached "ext 1000" "ctypes 2000" "early 3000" "free-pre"
snap=$("$LAUNCHER" detach "$pid" 2>detach.err) || fail "detach: $(cat detach.err)"
send attached "ext 5000"
finish
expect_eq "$rc" "$plain_rc" "exit status"
expect_eq "$rc" 5 "the program's own exit status"
cmp -s plain.out attached.out || fail "output differs: $(diff plain.out attached.out)"
cmp -s plain.err attached.err || fail "stderr differs: $(diff plain.err attached.err)"

"$REPORT" --json "$snap" >snap.json
check_json snap.json <<PY
got = sorted((l["bytes"], l["count"], l["api"], frame(l["frames"][0])) for l in leaks)
want = [
    (1000, 1, "cudaMalloc", "via_extension py_attach.py:$(line ext)"),
    (2000, 1, "cudaMalloc", "via_ctypes py_attach.py:$(line ctypes)"),
    (3000, 1, "cuMemAlloc_v2", "via_early py_attach.py:$(line early)"),
]
eq(got, want, "leaks while attached (5000 was made after the detach)")
eq(devices[0]["unknown_free_count"], 0, "frees of unknown pointers")
b = d["ledger"][0]["before_attach"]
eq((b["freed_bytes"], b["frees"]), (2097152, 1), "the free of the 2 MiB made before the attach")
PY
echo ok
