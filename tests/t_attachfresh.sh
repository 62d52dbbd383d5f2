# A second `gpuleak attach` starts afresh (docs/attach.md "Detach"): the
# detach drops what the first attach recorded.  Attached, the target
# allocates A (kept), is detached, frees A and allocates B while detached,
# is attached again, allocates C and frees the 2 MiB it made at start.
# The second attach's snapshot lists C alone live (not A, whose free was
# never seen, nor B), its device counts only the second attach's calls, and
# its "made before attach" row is the driver's used memory at the second
# attach less the 2 MiB seen freed since.
source "$ROOT/tests/lib.sh"
need_gdb_attach
export LD_LIBRARY_PATH=$FAKECUDA
SRC=$ROOT/tests/programs/attach_target.c
line_of() { grep -n "$1" "$SRC" | cut -d: -f1; }

mkdir snaps
target_start t 200 "$TPROG/attach_target"
"$LAUNCHER" attach --output snaps/ "$pid" 2>attach1.err || fail "attach: $(cat attach1.err)"
target_send t "keep 1000"
first=$("$LAUNCHER" detach "$pid" 2>detach1.err) || fail "detach: $(cat detach1.err)"
target_send t "free-kept" "rt 5000" "used"
used=$(sed -n 's/^used //p' t.out | tail -1)
"$LAUNCHER" attach --output snaps/ "$pid" 2>attach2.err || fail "second attach: $(cat attach2.err)"
target_send t "rt 6000" "free-pre"
snap=$("$LAUNCHER" snapshot "$pid") || fail "snapshot after the second attach"
last=$("$LAUNCHER" detach "$pid" 2>detach2.err) || fail "second detach: $(cat detach2.err)"
target_finish
expect_eq "$rc" 7 "the program's exit status"
expect_eq "$(grep -c ' 0$' t.out)" 5 "every CUDA call succeeded (keep, free-kept, rt, rt, free-pre)"

leaks() { "$REPORT" --json "$1" >"$1.json"; jget "$1.json" '" ".join("%d/%d:%s:%s:%d" % (l["bytes"], l["count"], l["api"], l["frames"][0]["function"], l["frames"][0]["line"]) for l in sorted(d["leaks"], key=lambda l: l["bytes"]))'; }
expect_eq "$(leaks "$first")" "1000/1:cudaMalloc:keep:$(line_of KEEP)" "the first attach's leak"
expect_eq "$(leaks "$snap")" "6000/1:cudaMalloc:leak_rt:$(line_of LEAK_RT)" "leaks after attaching again"
expect_eq "$(jget "$snap.json" '"%(live_bytes)d %(live_count)d %(alloc_count)d %(free_count)d %(unknown_free_count)d" % d["devices"][0]')" \
    "6000 1 1 0 0" "device 0 after attaching again: live bytes, live, allocs, frees, unknown frees"
expect_eq "$(jget "$snap.json" 'len(d.get("bad_frees") or [])')" 0 "bad frees"
expect_eq "$(jget "$snap.json" '"%(bytes)d %(used_at_attach_bytes)d %(freed_bytes)d %(frees)d" % d["ledger"][0]["before_attach"]')" \
    "$((used - 2097152)) $used 2097152 1" "the second attach's before-attach row"
expect_eq "$(leaks "$last")" "6000/1:cudaMalloc:leak_rt:$(line_of LEAK_RT)" "leaks in the second detach's snapshot"
expect_eq "$(jget "$last.json" 'd["snapshot"]["reason"]')" detach "the second detach snapshot's reason"
echo ok
