# numba.cuda as a real client: Debian's python3-numba drives the driver API
# through ctypes (dlsym on the library NUMBA_CUDA_DRIVER names), here
# fakecuda's libcuda.so.1.  Its device, pinned, mapped and managed arrays and
# its deferred deallocation are reported at the exact .py lines; numba's own
# driver-level tests give the same per-test outcomes with and without gpuleak.
source "$ROOT/tests/lib.sh"
py=/usr/bin/python3   # Debian's python: python3-numba is installed for it, not for a pyenv python on PATH
skip_if "! $py -c 'import numba.cuda' 2>/dev/null" "python3-numba is not installed (scripts/install-deps.sh)"
export NUMBA_CUDA_DRIVER=$FAKECUDA/libcuda.so.1
prog=$ROOT/tests/programs/numba_memory.py
line() { grep -n "$1" "$prog" | cut -d: -f1; }

GPULEAK_OUTPUT=mem.snap LD_PRELOAD=$LIBGPULEAK $py "$prog" >out.txt 2>err.txt || fail "numba program: $(cat err.txt)"
expect_eq "$(cat out.txt)" "numba ok 4" "program output"
"$REPORT" --json mem.snap >mem.json
check_json mem.json <<PY
import os
def site(frames):
    # the first frame in the program: numba's own frames come before it
    for f in frames:
        if os.path.basename(f["file"] or "") == "numba_memory.py":
            return "%s numba_memory.py:%s" % (f["function"], f["line"])
got = sorted((l["bytes"], l["count"], l["kind"], l["api"], site(l["frames"])) for l in leaks)
want = [
    (10000, 1, "device", "cuMemAlloc_v2", "leak numba_memory.py:$(line 'LEAK-LINE: device')"),
    (20000, 1, "host-pinned", "cuMemHostAlloc", "leak numba_memory.py:$(line 'LEAK-LINE: pinned')"),
    (30000, 1, "host-pinned", "cuMemHostAlloc", "leak numba_memory.py:$(line 'LEAK-LINE: mapped')"),
    (40000, 1, "managed", "cuMemAllocManaged", "leak numba_memory.py:$(line 'LEAK-LINE: managed')"),
]
eq(got, want, "numba leaks")
# Deferred deallocation: what numba freed when its queue was flushed.
calls = d["allocation_calls"]
eq((calls["calls"], calls["frees"]), (7, 3), "allocations and frees")
freed = sorted((s["bytes"], s["frees"], site(s["frames"])) for s in calls["sites"] if s["frees"])
eq(freed, [(800, 1, "main numba_memory.py:$(line 'to_device')"),
           (3000, 1, "freed numba_memory.py:$(line 'FREED-LINE: device')"),
           (5000, 1, "freed numba_memory.py:$(line 'FREED-LINE: pinned')")], "freed by numba")
eq(d["invalid_frees"]["count"], 0, "invalid frees")
PY

# numba's own tests, on fakecuda, without and with gpuleak: same outcomes.
$py "$ROOT/tests/programs/numba_cudadrv.py" >plain.txt 2>plain.err || fail "numba tests: $(tail -5 plain.err)"
GPULEAK_OUTPUT=suite.snap LD_PRELOAD=$LIBGPULEAK $py "$ROOT/tests/programs/numba_cudadrv.py" >traced.txt 2>traced.err ||
    fail "numba tests under gpuleak: $(tail -5 traced.err)"
diff plain.txt traced.txt >&2 || fail "numba's tests differ under gpuleak"
[ -s suite.snap ] || fail "no snapshot from numba's tests"
# What fakecuda cannot do either way, so a change in it is seen: kernels
# need libNVVM (not installed), two tests are skipped by numba itself.
# (Counts of Debian 12's numba 0.56.4; another numba ships other tests.)
expect_eq "$(grep -cv ' ok$' plain.txt)" 5 "tests not ok: $(grep -v ' ok$' plain.txt)"
expect_eq "$(grep -v ' ok$' plain.txt)" "test_context_stack.Test3rdPartyContext.test_cudajit_in_attached_primary_context error
test_managed_alloc.TestManagedAlloc.test_managed_alloc_driver_oversubscribe skip
test_managed_alloc.TestManagedAlloc.test_managed_array_attach_global error
test_managed_alloc.TestManagedAlloc.test_managed_array_attach_host error
test_streams.TestFailingStream.test_failed_stream skip" "tests not ok"
expect_eq "$(grep -c ' ok$' plain.txt)" 53 "tests ok"
