# What a context teardown does not take with it (CUDA's cuCtxDestroy and
# cudaDeviceReset documentation): stream-ordered and cuMemCreate memory
# belong to no context, and cudaDeviceReset with the program's own context
# current destroys only runtime state.  The program frees what survived
# (fakecuda confirms each free with 0); gpuleak must agree: those records
# stay live until the frees, so no invalid free, no leak, and only the one
# allocation lost with its context is "freed only by a context teardown".
# The static runtime's cudaDeviceReset, seen only as the driver's
# cuDevicePrimaryCtxReset, keeps the same stream-ordered leak as the
# shared runtime's.
source "$ROOT/tests/lib.sh"
lost=$(site_line ctx_teardown.c 'LOST-SITE')
# scenario NAME MODE OBS WHAT: ctx_teardown MODE traced, its snapshot
# NAME.snap; its output, lines joined by spaces, is OBS (what it observed:
# the driver's results, the context's state); its JSON report in NAME.json.
scenario() {
    GPULEAK_OUTPUT=$1.snap traced "$TPROG/ctx_teardown" "$2" >"$1.out"
    expect_eq "$(tr '\n' ' ' <"$1.out")" "$3" "$4"
    "$REPORT" --json "$1.snap" >"$1.json"
}

scenario reset primary-reset "OBS pool-free 0 OBS vmm-unmap 0 OBS vmm-release 0 OBS va-free 0 " \
    "driver results"
check_json reset.json <<PY
eq(leaks, [], "no leaks: the pool and VMM memory survived the reset and were freed")
eq(d["invalid_frees"]["count"], 0, "their frees were valid")
eq([(g["bytes"], g["kind"], g["api"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(6000, "device", "cuMemAlloc_v2", "cuDevicePrimaryCtxReset_v2", "lost_with_context ctx_teardown.c:$lost")],
   "only the context's own memory went with it")
PY

scenario destroy ctx-destroy "OBS pool-free 0 " "pool allocation after cuCtxDestroy"
check_json destroy.json <<PY
eq(leaks, [], "no leaks")
eq(d["invalid_frees"]["count"], 0, "the pool free was valid")
eq([(g["bytes"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(5000, "cuCtxDestroy_v2", "lost_with_context ctx_teardown.c:$lost")], "cuCtxDestroy's group")
PY

scenario own own-ctx-reset "OBS reset 0 OBS rt-free 0 " \
    "runtime memory after a reset with an own context current"
check_json own.json <<'PY'
eq((leaks, d["invalid_frees"]["count"], d["teardown_leaks"]["groups"]), ([], 0, []), "the reset destroyed nothing")
PY

# The primary context's last cuDevicePrimaryCtxRelease resets it; the one
# before (two references) does not: what was made before it is still freed.
scenario release primary-release "OBS kept-free 0 OBS pool-free 0 " "driver results around the releases"
check_json release.json <<PY
eq((leaks, d["invalid_frees"]["count"]), ([], 0), "no leaks, no invalid frees")
eq([(g["bytes"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(3000, "cuDevicePrimaryCtxRelease_v2", "lost_with_context ctx_teardown.c:$lost")], "the last release's group")
PY
"$REPORT" release.snap >release.txt
grep -qx 'No leaks: all 3 allocations were freed (1 only by a context teardown, below).' release.txt ||
    fail "no-leak line: $(grep -A1 '^LEAKS' release.txt)"

# NVIDIA's CUDA 13 runtime fetches the release at version 7000, the v1 ABI
# (tools/fakecuda/real_runtime_requests.txt), and cuCtxDetach at 2000.
scenario v1 v1-release "OBS kept-free 0 " "driver result before the last v1 release"
check_json v1.json <<PY
eq((leaks, d["invalid_frees"]["count"]), ([], 0), "no leaks after the last v1 release")
eq([(g["bytes"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(3000, "cuDevicePrimaryCtxRelease", "lost_with_context ctx_teardown.c:$lost")], "the last v1 release's group")
PY
scenario detach ctx-detach "OBS kept-free 0 " "driver result after the first cuCtxDetach"
check_json detach.json <<PY
eq((leaks, d["invalid_frees"]["count"]), ([], 0), "no leaks after the last cuCtxDetach")
eq([(g["bytes"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(2000, "cuCtxDetach", "lost_with_context ctx_teardown.c:$lost")], "cuCtxDetach's group")
PY

# cuCtxDestroy by its bare name, as ctypes finds it (dlsym), and as
# cuGetProcAddress hands it out below version 4000: the pre-4.0 ABI (same
# argument, same effect).  Each context takes its allocation with it.
cat >v1_destroy.py <<'PY'
import ctypes, sys
cu = ctypes.CDLL("libcuda.so.1")
def ok(rc, what):
    if rc != 0:
        sys.exit(f"{what}: {rc}")
ok(cu.cuInit(0), "cuInit")
dev = ctypes.c_int()
ok(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
def context_with(nbytes):
    ctx, p = ctypes.c_void_p(), ctypes.c_uint64()
    ok(cu.cuCtxCreate_v2(ctypes.byref(ctx), 0, dev), "cuCtxCreate_v2")
    ok(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(nbytes)), "cuMemAlloc_v2")
    return ctx
ok(cu.cuCtxDestroy(context_with(1500)), "cuCtxDestroy")
fn = ctypes.c_void_p()
ok(cu.cuGetProcAddress(b"cuCtxDestroy", ctypes.byref(fn), 3020, ctypes.c_uint64(0)), "cuGetProcAddress")
ok(ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(fn.value)(context_with(2500)), "cuCtxDestroy@3020")
print("OBS destroyed")
PY
traced_script v1_destroy "OBS destroyed" "both contexts destroyed"
check_json v1_destroy.json <<'PY'
eq(leaks, [], "no leaks: each allocation went with its context")
eq(sorted((g["bytes"], g["kind"], g["api"], g["teardown"]) for g in d["teardown_leaks"]["groups"]),
   [(1500, "device", "cuMemAlloc_v2", "cuCtxDestroy"), (2500, "device", "cuMemAlloc_v2", "cuCtxDestroy")],
   "the v1 destroys' groups")
PY

# nvcc's default: the static runtime, whose cudaDeviceReset is the driver's
# v1 cuDevicePrimaryCtxReset.  A program that frees nothing by hand and
# ends with it leaks nothing (8 allocations balanced first, 2 left to the reset).
GPULEAK_OUTPUT=static_only.snap traced "$TPROG/runtime_kinds_static" reset-only
"$REPORT" static_only.snap >static_only.txt
grep -qx 'No leaks: all 10 allocations were freed (2 only by a context teardown, below).' static_only.txt ||
    fail "static reset-only: $(grep -A2 '^LEAKS' static_only.txt)"

GPULEAK_OUTPUT=static.snap traced "$TPROG/runtime_kinds_static" reset
"$REPORT" --json static.snap >static.json
check_json static.json <<'PY'
eq([(l["kind"], l["bytes"], l["api"], l["frames"][0]["function"]) for l in leaks],
   [("pool", 300000, "cuMemAllocAsync", "leak_async")], "static runtime: the stream-ordered leak survives the reset")
eq([(g["kind"], g["bytes"], g["teardown"], g["frames"][0]["function"]) for g in d["teardown_leaks"]["groups"]],
   [("managed", 200000, "cuDevicePrimaryCtxReset", "leak_managed"),
    ("device", 100000, "cuDevicePrimaryCtxReset", "leak_device")], "static runtime: what the reset released")
PY

# Green contexts (cuda.h: cuGreenCtxCreate retains the primary context,
# cuGreenCtxDestroy releases it, and the CUcontext of cuCtxFromGreenCtx is
# the primary context with the green context's SMs).  (a) the green
# context holds the last reference: its destruction resets the primary
# context, taking the allocations made in both handles.
green=$(site_line ctx_teardown.c 'GREEN-SITE')
prim=$(site_line ctx_teardown.c 'PRIMARY-SITE')
scenario green_last green-last "OBS active 1 OBS active 0 " "primary context state around cuGreenCtxDestroy"
check_json green_last.json <<PY
eq((leaks, d["invalid_frees"]["count"]), ([], 0), "no leaks after the last reference went with the green context")
eq([(g["bytes"], g["api"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(3145728, "cuMemAlloc_v2", "cuGreenCtxDestroy", "green_alloc ctx_teardown.c:$green"),
    (1048576, "cuMemAlloc_v2", "cuGreenCtxDestroy", "primary_alloc ctx_teardown.c:$prim")],
   "cuGreenCtxDestroy's groups: the green context's allocation is the primary context's")
PY
"$REPORT" green_last.snap >green_last.txt
grep -qx 'No leaks: all 2 allocations were freed (2 only by a context teardown, below).' green_last.txt ||
    fail "green-last no-leak line: $(grep -A1 '^LEAKS' green_last.txt)"

# (b) destroyed while the program holds the primary context: nothing is
# dropped, the green allocation is freed normally afterwards, and the
# program's last release is the teardown.
GPULEAK_OUTPUT=green_held.snap traced "$TPROG/ctx_teardown" green-held >green_held.out
expect_eq "$(grep '^OBS' green_held.out | tr '\n' ' ')" "OBS active 1 OBS green-free 0 " "driver results after cuGreenCtxDestroy"
# the driver's free memory: unchanged by the destruction, 4 MiB back with
# the free (3 MiB in 2 MiB granules)
info() { awk -v k="$1" '$1 == "INFO" && $2 == k { print $3 }' green_held.out; }
expect_eq "$(( $(info free-after-destroy) - $(info free-before-destroy) ))" 0 "free memory across cuGreenCtxDestroy"
expect_eq "$(( $(info free-after-free) - $(info free-after-destroy) ))" 4194304 "free memory given back by the free"
"$REPORT" --json green_held.snap >green_held.json
check_json green_held.json <<PY
eq((leaks, d["invalid_frees"]["count"]), ([], 0), "no leaks, and the free after cuGreenCtxDestroy was valid")
eq([(g["bytes"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(3000, "cuDevicePrimaryCtxRelease_v2", "lost_with_context ctx_teardown.c:$lost")], "only the last release's group")
PY

# (c) a real leak in a green context, the process exiting with the primary
# context retained.
GPULEAK_OUTPUT=green_leak.snap traced "$TPROG/ctx_teardown" green-leak
"$REPORT" --json green_leak.snap >green_leak.json
check_json green_leak.json <<PY
eq([(l["kind"], l["bytes"], l["api"], frame(l["frames"][0])) for l in leaks],
   [("device", 2097152, "cuMemAlloc_v2", "green_alloc ctx_teardown.c:$green")], "the green context's leak")
eq(d["teardown_leaks"]["groups"], [], "no teardown")
PY
