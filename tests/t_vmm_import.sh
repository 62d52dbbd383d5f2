# VMM memory another process exported and this one maps (tests/programs/
# vmm_import.c): the exporter shares one cuMemCreate handle as a file
# descriptor; the importer imports it, leaks one mapping, unmaps another,
# maps it ten more times and unmaps those (with a mapping of its own handle)
# in one cuMemUnmap, allocates memory of its own, imports it twice more and
# releases those handles (one unmapped, one mapped, then unmapped), imports
# it once more and never releases that handle, and exits.  Its report
# names the mapping never unmapped -- exact bytes, count, kind ipc, API
# cuMemMap, function and line -- and the handle never released (no bytes:
# the import does not say its size; API cuMemImportFromShareableHandle) in
# their own section, not among the leaks;
# its device peak and counters are its own memory only; the result is the
# same whether the importer reaches the driver linked, through dlsym or
# through cuGetProcAddress.  The exporter's report is its own memory only.
source "$ROOT/tests/lib.sh"
line=$(site_line vmm_import.c "LEAK-SITE: leak_imported_mapping")
hline=$(site_line vmm_import.c "LEAK-SITE: leak_imported_handle")
for how in direct dlsym procaddr; do
    mkdir "$how" && (cd "$how" && traced "$TPROG/vmm_import" "$how" >pids) || fail "$how: run"
    exp=$(awk '$1 == "exporter" {print $2}' "$how/pids")
    imp=$(awk '$1 == "importer" {print $2}' "$how/pids")
    final=$how/gpuleak.$imp.1.snap # .0 is mapped.snap, requested mid-run
    "$REPORT" --json "$final" >"$how/imp.json"
    "$REPORT" "$final" >"$how/imp.txt"
    "$REPORT" --json "$how/gpuleak.$exp.0.snap" >"$how/exp.json"
    check_json "$how/imp.json" <<PY
how = "$how"
eq(leaks, [], how + ": no leaks of its own")
eq((d["allocator_caches"]["groups"], d["suppressed"]["groups"]), ([], []), how + ": nothing cached or suppressed")
m = d["mapped"]
eq([(g["bytes"], g["count"], g["kind"], g["device"], g["api"], frame(g["frames"][0])) for g in m["groups"]],
   [(4194304, 1, "ipc", 0, "cuMemMap", "leak_imported_mapping vmm_import.c:$line"),
    (0, 1, "ipc", 0, "cuMemImportFromShareableHandle", "leak_imported_handle vmm_import.c:$hline")],
   how + ": the mapping never unmapped, the handle never released")
eq((m["bytes"], m["count"], m["groups_total"]), (4194304, 2, 2), how + ": mapped totals")
ls = d["leak_summary"]
eq((ls["bytes"], ls["count"], ls["leaked_bytes"], ls["mapped_bytes"], ls["mapped_count"]),
   (4194304, 2, 0, 4194304, 2), how + ": summary")
eq([(k["kind"], k["bytes"]) for k in ls["by_kind"]], [("ipc", 4194304)], how + ": by kind")
# The device is this process's memory: 3,000,000 bytes allocated and freed
# while 24 MiB of imported mappings were live, and one 2 MiB handle of its
# own, created, mapped among them, unmapped with them and released.
dv = device0_own_memory(how, 3000000, 2, 2, "own_memory")
# Thirteen imported mappings (leaked, unmapped, ten, one of a second
# import), four imported handles and two of its own; all but the leaked
# mapping and handle gone, the ten with one unmap.  Releasing imported
# handles frees nothing of this process's (unknown_free_count 0).
t = d["timeline"]
eq((t["allocs"], t["frees"]), (19, 17), how + ": history events")
eq(t["devices"][0]["max_bytes"], 3000000, how + ": usage timeline")
eq([(k["kind"], k["peak_bytes"]) for k in dv["peak_history"]["by_kind"]],
   [("device", 3000000), ("virtual", 2097152), ("ipc", 4194304 + 10 * 2097152)], how + ": highest by kind")
PY
    # Mid-run: the leaked mapping and the ten live, one record each, under
    # cuMemMap, and the first imported handle; the own handle is the only
    # memory of its own.
    "$REPORT" --json "$how/mapped.snap" >"$how/mid.json"
    check_json "$how/mid.json" <<PY
eq(d["snapshot"]["reason"], "request", "$how: mid-run snapshot")
eq(sorted((g["bytes"], g["count"], g["kind"], g["api"], g["frames"][0]["function"]) for g in d["mapped"]["groups"]),
   [(0, 1, "ipc", "cuMemImportFromShareableHandle", "importer"),
    (4194304, 1, "ipc", "cuMemMap", "leak_imported_mapping"), (10 * 2097152, 10, "ipc", "cuMemMap", "map_many")],
   "$how: mapped mid-run")
eq([(l["kind"], l["api"], l["bytes"], l["count"]) for l in leaks], [("virtual", "cuMemCreate", 2097152, 1)],
   "$how: its own handle")
eq((devices[0]["live_bytes"], devices[0]["peak_bytes"]), (2097152, 3000000), "$how: device 0 mid-run")
PY
    check_json "$how/exp.json" <<PY
eq((leaks, d["mapped"]["groups"]), ([], []), "$how: exporter released everything")
eq((devices[0]["peak_bytes"], devices[0]["alloc_count"], devices[0]["free_count"], devices[0]["unknown_free_count"]),
   (4 * 2097152, 1, 1, 0), "$how: exporter's peak is its handle")
PY
    grep -qx '    never released:   4,194,304 bytes (4.0 MiB) in 2 mappings from 2 stacks' "$how/imp.txt" ||
        fail "$how: summary line"
    grep -qx 'MAPPED FROM OTHER PROCESSES OR APIS' "$how/imp.txt" || fail "$how: section"
    grep -qx '4,194,304 bytes (4.0 MiB) in 1 mapping: ipc memory on device 0 (cuMemMap), never unmapped at exit' \
        "$how/imp.txt" || fail "$how: group line"
    grep -qx "    #0 leak_imported_mapping (vmm_import.c:$line) \[vmm_import\]" "$how/imp.txt" || fail "$how: stack"
    grep -A2 -x '1 imported handle (size known only to the exporter): ipc memory on device 0 (cuMemImportFromShareableHandle), never released at exit' \
        "$how/imp.txt" | grep -qx "    #0 leak_imported_handle (vmm_import.c:$hline) \[vmm_import\]" || fail "$how: handle group"
    grep -qx '    of which mapped from other processes or APIs: 4,194,304 bytes (4.0 MiB) in 2 mappings' "$how/imp.txt" ||
        fail "$how: leak summary line"
    grep -q ', mapped at the snapshot (on request)$' <("$REPORT" "$how/mapped.snap") || fail "$how: mid-run text"
done

# --error-exitcode: a handle never released counts although it has no bytes.
# The mapping is suppressed, so the handle alone decides.
cat >map.supp <<'EOF2'
{
   the-leaked-mapping
   ...
   fun:leak_imported_mapping
}
EOF2
final=$(ls direct/gpuleak.*.1.snap)
rc=0; "$REPORT" --suppressions map.supp --error-exitcode 6 "$final" >handle.txt || rc=$?
expect_eq "$rc" 6 "exit code with a handle never released"
grep -q '^1 imported handle' handle.txt || fail "the handle is still reported"
rc=0; "$REPORT" --suppressions map.supp --error-exitcode 6 --min-bytes 1 "$final" >/dev/null || rc=$?
expect_eq "$rc" 0 "--min-bytes hides a handle of unknown size"

# A driver that hands out the same handle for every import of the same
# memory (FAKECUDA_IMPORT_REUSE=1): each import is one more reference of one
# handle, so one record, from the first import, which is still referenced at
# exit (four imports, three releases); the mapping never unmapped as before.
mkdir reuse && (cd reuse && FAKECUDA_IMPORT_REUSE=1 traced "$TPROG/vmm_import" direct >pids) || fail "reuse: run"
imp=$(awk '$1 == "importer" {print $2}' reuse/pids)
"$REPORT" --json "reuse/gpuleak.$imp.1.snap" >reuse.json
first=$(site_line vmm_import.c "IMPORT-SITE: first")
check_json reuse.json <<PY
eq([(g["bytes"], g["count"], g["api"], frame(g["frames"][0])) for g in d["mapped"]["groups"]],
   [(4194304, 1, "cuMemMap", "leak_imported_mapping vmm_import.c:$line"),
    (0, 1, "cuMemImportFromShareableHandle", "importer vmm_import.c:$first")], "reuse: mapped")
eq((d["timeline"]["allocs"], d["timeline"]["frees"]), (16, 14), "reuse: one import record, never freed")
eq(leaks, [], "reuse: no leaks of its own")
PY
