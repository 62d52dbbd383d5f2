# Frees of pointers with no live allocation (tests/programs/bad_free.c): a
# double free (twice, from one call site), a free of an interior pointer, a
# driver free of an address never allocated, a double cudaFreeHost and a
# double cudaFreeArray.  The report lists each site once -- exact count,
# API, device, whether CUDA refused it, the first bad address, function and
# line -- and counts them in the summary and in unknown_free_count; the
# real calls' results are untouched (the program checks them).  Then the
# reporter on a known snapshot (snapgen "badfree"): a free CUDA accepted is
# told apart from one it refused, and a hostile entry is refused with one
# line.
source "$ROOT/tests/lib.sh"
line() { site_line bad_free.c "BAD-FREE: $1"; }
traced "$TPROG/bad_free" >out || fail "run"
addr=$(awk '$1 == "double" {print $2}' out)
interior=$(awk '$1 == "interior" {print $2}' out)
snap=$(only_snapshot)
"$REPORT" --json "$snap" >r.json
"$REPORT" "$snap" >r.txt
check_json r.json <<PY
b = d["invalid_frees"]
eq([(s["count"], s["refused"], s["api"], s["device"], frame(s["frames"][0])) for s in b["sites"]],
   [(2, True, "cudaFree", 0, "double_free bad_free.c:$(line double_free)"),
    (1, True, "cudaFree", 0, "interior_free bad_free.c:$(line interior_free)"),
    (1, True, "cuMemFree_v2", 0, "bogus_driver_free bad_free.c:$(line bogus_driver_free)"),
    (1, True, "cudaFreeHost", 0, "host_double_free bad_free.c:$(line host_double_free)"),
    (1, True, "cudaFreeArray", 0, "array_double_free bad_free.c:$(line array_double_free)")],
   "invalid free sites")
eq((b["count"], b["refused_count"], b["double_count"], b["double_sites"]), (6, 6, 4, 3), "invalid free totals")
eq([s["kind"] for s in b["sites"]],
   ["double free", "not the start", "invalid free", "double free", "double free"], "kinds")
eq(hex(b["sites"][0]["first_ptr"]), "$addr", "the double free's address")
eq(b["sites"][2]["first_ptr"], 0x1234, "the bogus address")
eq(hex(b["sites"][1]["first_ptr"]), "$interior", "the interior pointer")
eq(sum(x["unknown_free_count"] for x in d["devices"]), 6, "unknown frees counted")
# The history says where each double-freed address was allocated and first
# freed; the interior and bogus pointers were never freed before.
prev = [s["previous_free"] for s in b["sites"]]
eq([(p["bytes"], frame(p["frames"][0])) if p else None for p in prev],
   [(1000, "double_free bad_free.c:$(site_line bad_free.c "ALLOC-SITE: double_free")"), None, None,
    (5000, "host_double_free bad_free.c:$(($(line host_double_free) - 2))"),
    (16384, "array_double_free bad_free.c:$(($(line array_double_free) - 2))")], "previous frees")
eq(all(p["alloc_seq"] < p["seq"] for p in prev if p), True, "allocated before it was freed")
eq(leaks, [], "no leaks")
# The interior pointer is 16 bytes inside the 4 KiB block interior_free
# allocated (still allocated then); a double free's address is no block's
# inside.
ib = [s["inside_block"] for s in b["sites"]]
eq([(k["offset"], k["bytes"], k["freed_time_ns"], frame(k["frames"][0]), k["frames"][-1]["function"]) if k else None for k in ib],
   [None, (16, 4096, None, "interior_free bad_free.c:$(site_line bad_free.c "ALLOC-SITE: interior_free")", "main"), None, None, None],
   "blocks the addresses are inside")
eq(hex(ib[1]["ptr"] + 16), "$interior", "the block's start")
PY
# Double frees are a kind of their own (the history holds the first free).
expect_eq "$(grep -E '^    (double|invalid) frees:' r.txt)" \
"    double frees:     4 frees from 3 stacks, each of an address freed before
    invalid frees:    2 frees from 2 stacks, 2 refused by CUDA" "summary lines"
grep -qx 'INVALID FREES' r.txt || fail "section"
grep -qx '2 frees (cudaFree) on device 0, refused by CUDA (double free: the address was freed before)' r.txt ||
    fail "double free line"
grep -qx "    first at [0-9.]* s, address $addr" r.txt || fail "first address"
grep -qx "    #0 double_free (bad_free.c:$(line double_free)) \[bad_free\]" r.txt || fail "double free stack"
grep -qx '    that address was freed before, at [0-9.]* s (seq [0-9]*): 1,000 bytes allocated at [0-9.]* s (seq [0-9]*) by' r.txt ||
    fail "previous free line"
grep -qx "        #0 double_free (bad_free.c:$(site_line bad_free.c "ALLOC-SITE: double_free")) \[bad_free\]" r.txt ||
    fail "previous free's allocation stack"
grep -qx '1 free (cuMemFree_v2) on device 0, refused by CUDA (double or invalid free)' r.txt || fail "driver line"
grep -A5 -x '1 free (cudaFree) on device 0, refused by CUDA (invalid free: not the start of an allocation)' r.txt >inside.txt ||
    fail "interior free line"
grep -qx "    16 bytes inside the 4.0 KiB block allocated at interior_free (bad_free.c:$(site_line bad_free.c "ALLOC-SITE: interior_free")), [0-9.]* s (seq [0-9]*), by" inside.txt ||
    fail "inside line: $(cat inside.txt)"
grep -qx "        #0 interior_free (bad_free.c:$(site_line bad_free.c "ALLOC-SITE: interior_free")) \[bad_free\]" inside.txt ||
    fail "the block's stack: $(cat inside.txt)"

# A known snapshot: one accepted site, one refused site (3 frees).
"$TPROG/snapgen" badfree s.snap
"$REPORT" --json s.snap >s.json
"$REPORT" s.snap >s.txt
check_json s.json <<'PY'
b = d["invalid_frees"]
eq([(s["count"], s["refused"], s["api"], s["first_ptr"], s["first_time_ns"]) for s in b["sites"]],
   [(3, True, "cudaFree", 0x9000, 7000000), (1, False, "cuMemFree_v2", 0x7000, 5000000)], "sites, most first")
eq((b["count"], b["refused_count"]), (4, 3), "totals")
PY
grep -qx '    invalid frees:    4 frees from 2 stacks, 3 refused by CUDA' s.txt || fail "synthetic summary"
grep -qx '1 free (cuMemFree_v2) on device 0, accepted by CUDA (allocated where gpuleak could not see it)' s.txt ||
    fail "accepted line"
grep -qx '    first at 0.01 s, address 0x7000' s.txt || fail "accepted first line"
# Frees of addresses inside blocks (snapgen "badinside"): 64 bytes into a
# live 8 MiB block, 16 bytes into a 4 KiB block the history shows freed
# before the bad free; said as valgrind says it, with where each was made.
"$TPROG/snapgen" badinside i.snap
"$REPORT" --json i.snap >i.json
"$REPORT" i.snap >i.txt
sgl() { grep -n "STK_CALL(s, \"$1\", fake_cuda_api" "$ROOT/tests/report/snapgen.c" | cut -d: -f1; }
check_json i.json <<PY
ib = [s["inside_block"] for s in d["invalid_frees"]["sites"]]
eq([(k["offset"], k["ptr"], k["bytes"], k["alloc_seq"], k["alloc_time_ns"], k["freed_time_ns"], frame(k["frames"][0]))
    for k in ib],
   [(16, 0x20000000, 4096, 2, 200000000, 300000000, "alloc_activations snapgen.c:$(sgl alloc_activations)"),
    (64, 0x10000000, 8 << 20, 1, 100000000, None, "alloc_weights snapgen.c:$(sgl alloc_weights)")], "blocks")
PY
grep -qx "    16 bytes inside the 4.0 KiB block freed at 0.30 s, allocated at alloc_activations (snapgen.c:$(sgl alloc_activations)), 0.20 s (seq 2), by" i.txt ||
    fail "inside a freed block: $(cat i.txt)"
grep -qx "    64 bytes inside the 8.0 MiB block allocated at alloc_weights (snapgen.c:$(sgl alloc_weights)), 0.10 s (seq 1), by" i.txt ||
    fail "inside a live block"
expect_eq "$(grep -c 'refused by CUDA (invalid free: not the start of an allocation)$' i.txt)" 2 "interior sites named"
"$REPORT" --html i.html i.snap
grep -q '"inside_offset":64' i.html && grep -q '"inside_bytes":8388608' i.html || fail "the page's data"

# No bad frees: the member is there, empty; the text has no section.
"$TPROG/snapgen" ipc n.snap
"$REPORT" --json n.snap >n.json
check_json n.json <<'PY'
eq(d["invalid_frees"], {"count": 0, "refused_count": 0, "double_count": 0, "double_sites": 0, "sites": []}, "none")
PY
"$REPORT" n.snap | grep -q 'INVALID FREES\|invalid frees' && fail "section without invalid frees"

# Hostile entries: a stack id no STACK record defines, a count of 0, more
# entries than a writer ever keeps.
# And a copy whose refused site is marked accepted.
snap_set s.snap bad_stack.snap BAD_FREES 0 stack_id 999999
snap_set s.snap bad_count.snap BAD_FREES 0 count 0
snap_set s.snap accepted.snap BAD_FREES 1 flags 0
snap_set s.snap bad_many.snap BAD_FREES -1 count 300   # the record header's
for f in bad_stack bad_count bad_many; do
    rc=0
    "$REPORT" "$f.snap" >/dev/null 2>"$f.err" || rc=$?
    [ "$rc" -ne 0 ] || fail "$f: accepted"
    expect_eq "$(wc -l <"$f.err")" 1 "$f: one error line"
done
grep -q 'bad-free entry 0 refers to undefined stack id 999999' bad_stack.err || fail "bad_stack message: $(cat bad_stack.err)"
grep -q 'bad-free entry with a count of 0' bad_count.err || fail "bad_count message: $(cat bad_count.err)"
grep -q 'more than 256 bad-free entries' bad_many.err || fail "bad_many message: $(cat bad_many.err)"

# --error-exitcode: a free CUDA refused is an error whatever the byte floor;
# one it accepted is not.
rc=0; "$REPORT" --error-exitcode 7 "$snap" >/dev/null || rc=$?
expect_eq "$rc" 7 "exit code with refused frees"
rc=0; "$REPORT" --error-exitcode 7 s.snap >/dev/null || rc=$?
expect_eq "$rc" 7 "exit code with a refused site"
rc=0; "$REPORT" --error-exitcode 7 accepted.snap >/dev/null || rc=$?
expect_eq "$rc" 0 "exit code with accepted frees only"

# diff of one process: a snapshot requested after the first double free,
# then the exit snapshot.  Counts are per site in each snapshot; the change
# is the invalid frees made in between.  --error-exitcode fires when a
# refused site's count grew, not for a snapshot compared with itself.
mkdir win && (cd win && GPULEAK_OUTPUT=final.snap traced "$TPROG/bad_free" before.snap >/dev/null) || fail "mid-run"
"$REPORT" --json diff win/before.snap win/final.snap >diff.json
"$REPORT" diff win/before.snap win/final.snap >diff.txt
check_multi_json diff.json <<PY
b = d["invalid_frees"]
eq((b["count"], b["refused_count"]), ([1, 6], [1, 6]), "totals per snapshot")
eq([(s["count"], s["change"], s["refused"], s["api"], frame(s["frames"][0])) for s in b["sites"]],
   [([1, 2], 1, True, "cudaFree", "double_free bad_free.c:$(line double_free)"),
    ([0, 1], 1, True, "cudaFree", "interior_free bad_free.c:$(line interior_free)"),
    ([0, 1], 1, True, "cuMemFree_v2", "bogus_driver_free bad_free.c:$(line bogus_driver_free)"),
    ([0, 1], 1, True, "cudaFreeHost", "host_double_free bad_free.c:$(line host_double_free)"),
    ([0, 1], 1, True, "cudaFreeArray", "array_double_free bad_free.c:$(line array_double_free)")],
   "sites: the double free first (most in all), then the site key")
eq([s["present"] for s in b["sites"]], [2, 1, 1, 1, 1], "present")
eq([s["double_free"] for s in b["sites"]], [True, False, False, True, True], "double frees")
PY
grep -qx 'frees: 1 -> 6, refused by CUDA: 1 -> 6' diff.txt || fail "diff totals line"
grep -A2 -x '+1 free (cudaFree) on device 0, refused by CUDA (double free: the address was freed before)' diff.txt |
    grep -qx '    frees: 1 -> 2' ||
    fail "diff double free row"
grep -A1 -x '    frees: 1 -> 2' diff.txt | grep -qx "    #0 double_free (bad_free.c:$(line double_free)) \[bad_free\]" ||
    fail "diff double free stack"
rc=0; "$REPORT" --error-exitcode 7 diff win/before.snap win/final.snap >/dev/null || rc=$?
expect_eq "$rc" 7 "diff exit code: new refused frees"
rc=0; "$REPORT" --error-exitcode 7 diff win/final.snap win/final.snap >same.txt || rc=$?
expect_eq "$rc" 0 "diff exit code: no new refused frees"
grep -qx 'No change between the snapshots.' same.txt || fail "diff without change"
grep -qx '(5 stacks with the same invalid frees in every snapshot)' same.txt || fail "unchanged stacks line"
# Two runs: no diff between them (issue 35 item 4: refused, status 2).
rc=0; "$REPORT" --json diff s.snap win/final.snap >two.json 2>two.err || rc=$?
expect_eq "$rc:$(wc -l <two.err)" "2:1" "diff across runs refused"
"$REPORT" diff n.snap n.snap | grep -q 'INVALID FREES' && fail "diff section without invalid frees"

# merge: a rank with invalid frees and a rank without.  BY RANK counts them,
# the section lists the sites with the ranks that have them, and
# --error-exitcode fires for a refused free on any rank.  The first run set
# no rank: it comes after rank 3 (merge's rank order), as "no rank (pid P)".
RANK=3 traced "$TPROG/churn" 1 10 >/dev/null || fail "churn run"
clean=$(ls -t gpuleak.*.snap | head -1)
"$REPORT" --json merge "$snap" "$clean" >merge.json
"$REPORT" merge "$snap" "$clean" >merge.txt
check_multi_json merge.json <<PY
b = d["invalid_frees"]
eq((b["count"], b["refused_count"]), ([0, 6], [0, 6]), "merge totals per snapshot")
eq([(s["total"], s["present"], s["count"], frame(s["frames"][0])) for s in b["sites"]][0],
   (2, 1, [0, 2], "double_free bad_free.c:$(line double_free)"), "merge: the double free first")
eq(len(b["sites"]), 5, "merge sites")
eq([(r["rank"], r["invalid_frees"], r["refused_frees"]) for r in d["ranks"]], [(3, 0, 0), (None, 6, 6)], "per rank")
PY
grep -qx '6 frees from 5 stacks on 1 of 2 ranks, 6 refused by CUDA' merge.txt || fail "merge total line"
grep -A1 -x '2 frees (cudaFree) on device 0, refused by CUDA (double free: the address was freed before)' merge.txt |
    grep -Eqx '    on 1 of 2 ranks: no rank \(pid [0-9]+\) \(2\)' || fail "merge site ranks"
grep -q '^no rank (pid .*, 6 invalid frees (6 refused)$' merge.txt || fail "BY RANK line"
grep -q '^rank 3 (.*invalid' merge.txt && fail "BY RANK line of the clean rank"
rc=0; "$REPORT" --error-exitcode 7 --min-bytes 1000000000 merge "$snap" "$clean" >/dev/null || rc=$?
expect_eq "$rc" 7 "merge exit code with a refused free"
rc=0; "$REPORT" --error-exitcode 7 --min-bytes 1000000000 merge "$clean" "$clean" >/dev/null || rc=$?
expect_eq "$rc" 0 "merge exit code without"

# Where the double-freed address was first freed: unrecorded by default
# (previous_free.free_stack null, one line saying how to record it); with
# GPULEAK_FREE_STACKS=1 each free is unwound and the report names the line of
# the first free (text, JSON, and the free entries of --torch-snapshot).
grep -qx '    (where it was freed is not recorded: GPULEAK_FREE_STACKS=1 records it)' r.txt || fail "hint line"
check_json r.json <<'PY'
eq([s["previous_free"]["free_stack"] for s in d["invalid_frees"]["sites"] if s["previous_free"]], [None] * 3,
   "no free stacks by default")
PY
mkdir fs && (cd fs && GPULEAK_FREE_STACKS=1 traced "$TPROG/bad_free" >/dev/null) || fail "free stacks run"
fsnap=$(ls fs/gpuleak.*.snap)
"$REPORT" --json "$fsnap" >fs.json
"$REPORT" "$fsnap" >fs.txt
first=$(site_line bad_free.c "FIRST-FREE: double_free")
check_json fs.json <<PY
p = d["invalid_frees"]["sites"][0]["previous_free"]
eq((frame(p["frames"][0]), frame(p["free_stack"]["frames"][0])),
   ("double_free bad_free.c:$(site_line bad_free.c "ALLOC-SITE: double_free")", "double_free bad_free.c:$first"),
   "allocated at, and first freed at")
PY
grep -A1 -x '    and freed by' fs.txt | grep -qx "        #0 double_free (bad_free.c:$first) \[bad_free\]" || fail "freed-by text"
# The bad frees' own stacks are the same either way (with free stacks on,
# the stack unwound for the free is the one kept for its site).
sites='[(s["api"], s["count"], s["refused"], [frame(f) for f in s["frames"]]) for s in d["invalid_frees"]["sites"]]'
expect_eq "$(json_assert fs.json "print($sites)" </dev/null)" "$(json_assert r.json "print($sites)" </dev/null)" "sites with free stacks"
grep -q 'where it was freed is not recorded' fs.txt && fail "hint with free stacks on"
"$REPORT" --torch-snapshot fs.pickle "$fsnap" || fail "torch snapshot"
python3 - fs.pickle "$first" <<'PY' || fail "torch snapshot free frames"
import pickle, sys
d = pickle.load(open(sys.argv[1], "rb"))
ev = [e for t in d["device_traces"] for e in t if e["action"] == "free_requested"]
lines = [(e["frames"][0]["name"], e["frames"][0]["line"]) for e in ev if e["frames"]]
assert ("double_free", int(sys.argv[2])) in lines, lines
PY
# A free event naming an undefined stack as its own: one line, refused.
snap_set "$fsnap" bad_free_stack.snap EVENTS 1 mem_free 999999   # the first free: its own stack
rc=0; "$REPORT" bad_free_stack.snap >/dev/null 2>bad_fs.err || rc=$?
expect_eq "$rc" 2 "undefined free stack refused"
expect_eq "$(wc -l <bad_fs.err)" 1 "one error line"
grep -q 'free event 1 refers to undefined stack id 999999' bad_fs.err || fail "message: $(cat bad_fs.err)"
