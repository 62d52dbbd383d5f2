# Module and library loading: each load still loaded at exit is reported
# under LOADED MODULES (JSON `cuda_modules`) at the line that loaded it, with the
# device memory the driver's free memory dropped by across the load
# (fakecuda: the image's size rounded up to 2 MiB); a runtime library load
# (cudaLibraryLoadData) is the one record of its driver load; loads that were
# unloaded, or unloaded by their context's end, are neither leaks, nor
# invalid frees, nor teardown leaks; none of it counts as a leak.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=final.snap traced "$TPROG/module_load" >out.txt
expect_eq "$(cat out.txt)" "loaded: 7340032 bytes" "the driver's own figure (3 loads of 2 MiB and 1 MiB allocated)"
"$REPORT" --json final.snap >final.json
check_json final.json <<PY
mods = sorted((g["kind"], g["api"], g["bytes"], g["count"], g["device"], frame(g["frames"][0])) for g in d["cuda_modules"]["groups"])
eq(mods, sorted([
    ("module", "cuModuleLoadData", 2 << 20, 1, 0, "load_ptx module_load.c:$(site_line module_load.c MOD-SITE)"),
    ("module", "cuModuleLoad", 2 << 20, 1, 0, "load_file module_load.c:$(site_line module_load.c FILE-SITE)"),
    ("module", "cuLibraryLoadData", 2 << 20, 1, 0, "load_library module_load.c:$(site_line module_load.c LIB-SITE)")]),
   "the loads still loaded, measured, at their lines")
eq((d["cuda_modules"]["bytes"], d["cuda_modules"]["count"], d["cuda_modules"]["groups_total"]), (6 << 20, 3, 3), "modules totals")
eq([(l["kind"], l["bytes"], frame(l["frames"][0])) for l in leaks],
   [("device", 1 << 20, "leak module_load.c:$(site_line module_load.c LEAK-SITE)")], "the one leak")
ls = d["leak_summary"]
eq((ls["leaked_bytes"], ls["cuda_modules_bytes"], ls["cuda_modules_count"]), (1 << 20, 6 << 20, 3), "leak summary")
eq(d["invalid_frees"]["count"], 0, "every unload matched its load")
eq((d["teardown_leaks"]["count"], d["teardown_leaks"]["groups"]), (0, []), "a context's modules are no teardown leak")
# 7 loads and allocations: 2 MiB PTX, 4 MiB fatbin (unloaded), 2 MiB file, 2 MiB
# library, 2 MiB library (unloaded), 2 MiB in the program's own context (gone
# with it), 1 MiB cudaMalloc; the device's peak was the four 2 MiB loads.
eq([(x["device"], x["alloc_count"], x["free_count"], x["live_bytes"], x["peak_bytes"]) for x in d["devices"]],
   [(0, 7, 3, 7 << 20, 8 << 20)], "device counters")
PY
"$REPORT" final.snap >final.txt
for want in \
    "    loaded modules:   6,291,456 bytes (6.0 MiB) in 3 modules from 3 stacks" \
    "2,097,152 bytes (2.0 MiB) in 1 module: module memory on device 0 (cuLibraryLoadData), still loaded at exit" \
    "    of which loaded modules: 6,291,456 bytes (6.0 MiB) in 3 modules"; do
    grep -qxF -- "$want" final.txt || fail "text report lacks '$want': $(sed -n '/^SUMMARY/,/^LEAK SUMMARY/p' final.txt)"
done
grep -q "FREED ONLY BY A CONTEXT TEARDOWN" final.txt && fail "a context's modules reported as a teardown leak"
exit 0
