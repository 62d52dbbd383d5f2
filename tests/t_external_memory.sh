# External memory (tests/programs/external_mem.c): another API's memory
# imported into CUDA and mapped.  The program leaks one imported object, one
# buffer mapped from it and one mipmapped array mapped from a second object
# (which it destroys: the array stays), and releases everything else.  Its
# report names the three -- exact bytes, count, kind external, API, function
# and line -- in the mapped section, not among the leaks; the device's peak
# and counters are its own 2,000,000 bytes only; a snapshot taken mid-run has
# the live object and buffer too.  The same through the runtime (shared and
# static: the static runtime is caught at the driver, with the runtime
# function named) and the driver (linked, dlsym, cuGetProcAddress), each
# allocation counted once.
source "$ROOT/tests/lib.sh"
l_import=$(site_line external_mem.c "LEAK-SITE: leak_import")
l_buffer=$(site_line external_mem.c "LEAK-SITE: leak_buffer")
l_array=$(site_line external_mem.c "LEAK-SITE: leak_array")
for how in runtime static direct dlsym procaddr; do
    prog=$TPROG/external_mem mode=$how
    [ "$how" = static ] && prog=$TPROG/external_mem_static mode=runtime
    mkdir "$how" && (cd "$how" && traced "$prog" "$mode" >out) || fail "$how: run"
    final=$(cd "$how" && ls gpuleak.*.snap)
    "$REPORT" --json "$how/$final" >"$how/r.json"
    "$REPORT" "$how/$final" >"$how/r.txt"
    "$REPORT" --json "$how/mid.snap" >"$how/mid.json"
    "$REPORT" "$how/mid.snap" >"$how/mid.txt"
    case $how in
    runtime) api=cuda pre=rt via=None ;;
    static) api=cu pre=rt via=cuda ;;
    *) api=cu pre=cu via=None ;;
    esac
    check_json "$how/r.json" <<PY
how, api, pre, via = "$how", "$api", "$pre", "$via"
def name(rt, drv):
    return rt if api == "cuda" else drv
def via_name(rt):
    return rt if via == "cuda" else None
eq(leaks, [], how + ": no leaks of its own")
eq((d["allocator_caches"]["groups"], d["suppressed"]["groups"]), ([], []), how + ": nothing cached or suppressed")
m = d["mapped"]
eq([(g["bytes"], g["count"], g["kind"], g["device"], g["api"], g["via_static_runtime"],
     g["frames"][0]["function"], frame(g["frames"][1])) for g in m["groups"]],
   [(8388608, 1, "external", 0, name("cudaImportExternalMemory", "cuImportExternalMemory"),
     via_name("cudaImportExternalMemory"), pre + "_import", "leak_import external_mem.c:$l_import"),
    (3000000, 1, "external", 0, name("cudaExternalMemoryGetMappedBuffer", "cuExternalMemoryGetMappedBuffer"),
     via_name("cudaExternalMemoryGetMappedBuffer"), pre + "_buffer", "leak_buffer external_mem.c:$l_buffer"),
    (1310720, 1, "external", 0,
     name("cudaExternalMemoryGetMappedMipmappedArray", "cuExternalMemoryGetMappedMipmappedArray"),
     via_name("cudaExternalMemoryGetMappedMipmappedArray"), pre + "_array", "leak_array external_mem.c:$l_array")],
   how + ": the object never destroyed, the buffer and the array never freed")
eq((m["bytes"], m["count"], m["groups_total"]), (12699328, 3, 3), how + ": mapped totals")
ls = d["leak_summary"]
eq((ls["leaked_bytes"], ls["mapped_bytes"], ls["mapped_count"]), (0, 12699328, 3), how + ": summary")
eq([(k["kind"], k["bytes"]) for k in ls["by_kind"]], [("external", 12699328)], how + ": by kind")
# The device is this process's own memory: 2,000,000 bytes allocated and
# freed while 15.1 MiB of external memory was imported and mapped.  The
# external level was highest with the second object and its array live.
dv = device0_own_memory(how, 2000000, 1, 1, "own_memory")
# Three imports, three buffers, one array, one allocation of its own; freed:
# two buffers, two objects, the allocation -- each once, whichever layer
# the call went through.
t = d["timeline"]
eq((t["allocs"], t["frees"]), (8, 5), how + ": history events")
eq(t["devices"][0]["max_bytes"], 2000000, how + ": usage timeline")
eq([(k["kind"], k["peak_bytes"]) for k in dv["peak_history"]["by_kind"]],
   [("device", 2000000), ("external", 8388608 + 3000000 + 4194304 + 1310720)],
   how + ": highest by kind")
PY
    check_json "$how/mid.json" <<PY
eq(d["snapshot"]["reason"], "request", "$how: mid-run snapshot")
eq(sorted((g["bytes"], g["count"], g["kind"], g["frames"][1]["function"]) for g in d["mapped"]["groups"]),
   [(1048576, 1, "external", "balanced"), (1310720, 1, "external", "leak_array"),
    (2097152, 1, "external", "balanced"), (3000000, 1, "external", "leak_buffer"),
    (8388608, 1, "external", "leak_import")], "$how: mapped mid-run")
eq([(x["device"], x["live_bytes"], x["peak_bytes"]) for x in d["devices"]], [], "$how: nothing of its own yet")
eq(leaks, [], "$how: no leaks mid-run")
PY
    if [ "$how" = runtime ]; then
        grep -qx '    never released:   12,699,328 bytes (12.1 MiB) in 3 mappings from 3 stacks' "$how/r.txt" ||
            fail "$how: summary line"
        grep -qx 'MAPPED FROM OTHER PROCESSES OR APIS' "$how/r.txt" || fail "$how: section"
        grep -qx '8,388,608 bytes (8.0 MiB) in 1 import: external memory on device 0 (cudaImportExternalMemory), never destroyed at exit' \
            "$how/r.txt" || fail "$how: import line"
        grep -qx '3,000,000 bytes (2.9 MiB) in 1 mapping: external memory on device 0 (cudaExternalMemoryGetMappedBuffer), never freed at exit' \
            "$how/r.txt" || fail "$how: buffer line"
        grep -qx '1,310,720 bytes (1.2 MiB) in 1 mapping: external memory on device 0 (cudaExternalMemoryGetMappedMipmappedArray), never freed at exit' \
            "$how/r.txt" || fail "$how: array line"
        grep -qx "    #1 leak_import (external_mem.c:$l_import) \[external_mem\]" "$how/r.txt" || fail "$how: stack"
        grep -qx '    of which mapped from other processes or APIs: 12,699,328 bytes (12.1 MiB) in 3 mappings' \
            "$how/r.txt" || fail "$how: leak summary line"
        grep -qx 'No leaks: nothing this process allocated is live; it still maps memory' "$how/r.txt" ||
            fail "$how: no-leak wording"
        grep -q 'in 1 import: external memory on device 0 (cudaImportExternalMemory), imported at the snapshot (on request)$' \
            "$how/mid.txt" || fail "$how: mid-run import line"
        grep -q 'in 1 mapping: external memory on device 0 (cudaExternalMemoryGetMappedBuffer), mapped at the snapshot (on request)$' \
            "$how/mid.txt" || fail "$how: mid-run buffer line"
    fi
done
