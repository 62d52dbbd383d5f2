# gpuleak attach to numba.cuda started without gpuleak (docs/attach.md,
# "What is reached"): numba keeps each driver function as a ctypes object in
# heap memory, looked up with dlsym at its first use.  A function first used
# after the attach is the hook (dlsym's import slot is reached): its pinned
# array is found at its line.  One looked up before the attach is not
# reached: its device array is not seen.  Output and exit status are those
# of a run without the attach.
source "$ROOT/tests/lib.sh"
need_gdb_attach
py=/usr/bin/python3
skip_if "! $py -c 'import numba.cuda' 2>/dev/null" "python3-numba is not installed (scripts/install-deps.sh)"
export NUMBA_CUDA_DRIVER=$FAKECUDA/libcuda.so.1 PYTHONPATH=$ROOT/tests/programs
prog=$ROOT/tests/programs/numba_attach.py
line() { grep -n "$1" "$prog" | cut -d: -f1; }

start() { target_start "$1" 600 $py "$prog"; }
send() { target_send "$@"; }
finish() { target_finish; }

start plain
send plain dev pinned
finish
plain_rc=$rc
mkdir snaps
start attached
"$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "attach: $(cat attach.err)"
send attached dev pinned
snap=$("$LAUNCHER" detach "$pid" 2>detach.err) || fail "detach: $(cat detach.err)"
finish
expect_eq "$rc" "$plain_rc" "exit status"
expect_eq "$rc" 6 "the program's own exit status"
cmp -s plain.out attached.out || fail "output differs: $(diff plain.out attached.out)"
"$REPORT" --json "$snap" >snap.json
check_json snap.json <<PY
import os
def site(frames):
    for f in frames:
        if os.path.basename(f["file"] or "") == "numba_attach.py":
            return "%s numba_attach.py:%s" % (f["function"], f["line"])
got = sorted((l["bytes"], l["count"], l["kind"], l["api"], site(l["frames"])) for l in leaks)
want = [(20000, 1, "host-pinned", "cuMemHostAlloc", "pinned numba_attach.py:$(line 'LEAK-LINE: pinned')")]
eq(got, want, "numba leaks while attached (the device array's cuMemAlloc_v2 was looked up before)")
PY
echo ok
