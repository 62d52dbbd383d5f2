#!/usr/bin/env bash
# A double free is headlined "double free", never "invalid free: not the
# start of an allocation" (issue 35): tests/programs/double_free.c frees an
# address twice that lies inside an earlier, larger block (first fit reused
# its range).  The report names the first free (its allocation's stack, and
# the free's own with GPULEAK_FREE_STACKS=1, else says it is not recorded),
# counts double frees as their own kind in SUMMARY, the JSON report, check's
# verdict line and its ERROR SUMMARY, and `check --json`.
source "$ROOT/tests/lib.sh"
line() { site_line double_free.c "$1"; }
traced "$TPROG/double_free" >out || fail "run"
addr=$(awk '$1 == "double" {print $2}' out)
snap=$(only_snapshot)
"$REPORT" "$snap" >r.txt
"$REPORT" --json "$snap" >r.json
# The summary: a kind of its own; no other invalid frees.
grep -E '^    (double|invalid) frees:' r.txt >summary.txt
expect_eq "$(cat summary.txt)" "    double frees:     1 free from 1 stack, each of an address freed before" "summary"
# The section: the headline, the bad free's stack, the first free; nothing
# "inside" a block.
sed -n '/^1 free (cudaFree)/,/^$/{/^$/!p}' r.txt | sed 's/[0-9.]* s/T s/g; s/seq [0-9]*/seq N/g' >section.txt
cat >want.txt <<EOT
1 free (cudaFree) on device 0, refused by CUDA (double free: the address was freed before)
    first at T s, address $addr
    #0 release_again (double_free.c:$(line "BAD-FREE: release_again")) [double_free]
    #1 main (double_free.c:$(($(line "release_again(p);")))) [double_free]
    that address was freed before, at T s (seq N): 1,000 bytes allocated at T s (seq N) by
        #0 main (double_free.c:$(line "ALLOC-SITE: p")) [double_free]
    (where it was freed is not recorded: GPULEAK_FREE_STACKS=1 records it)
EOT
diff want.txt section.txt || fail "the double free's section"
check_json r.json <<PY
b = d["invalid_frees"]
eq((b["count"], b["refused_count"], b["double_count"], b["double_sites"]), (1, 1, 1, 1), "totals")
s = b["sites"][0]
eq((s["kind"], hex(s["first_ptr"]), s["inside_block"], s["previous_free"]["bytes"]),
   ("double free", "$addr", None, 1000), "the site")
PY

# With the free's own stack recorded, the first free is named.
rm -f gpuleak.*.snap
GPULEAK_FREE_STACKS=1 traced "$TPROG/double_free" >/dev/null || fail "run with free stacks"
"$REPORT" "$(only_snapshot)" >f.txt
grep -A3 '^    that address was freed before' f.txt | tail -2 >first.txt
cat >want.txt <<EOT
    and freed by
        #0 release (double_free.c:$(line "FIRST-FREE: release")) [double_free]
EOT
diff want.txt first.txt || fail "the first free's stack"

# gpuleak check: the verdict line, the ERROR SUMMARY and --json count it.
rc=0; fc "$LAUNCHER" check --error-exitcode 7 --json=c.json -- "$TPROG/double_free" >/dev/null 2>err.txt || rc=$?
expect_eq "$rc" 7 "check's status"
grep '^gpuleak: process' err.txt | sed 's/process [0-9]*/process P/; s/ \[.*//' >verdict.txt
expect_eq "$(cat verdict.txt)" \
    "gpuleak: process P: ERRORS: leaked: 0 bytes in 0 allocations from 0 stacks; double frees: 1 free from 1 stack, each of an address freed before" \
    "verdict line"
expect_eq "$(tail -1 err.txt)" \
    "gpuleak: ERROR SUMMARY: 1 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases); double frees: 1" \
    "ERROR SUMMARY"
expect_eq "$(jget c.json '(d["job"]["double_frees"], d["processes"][0]["double_frees"], d["processes"][0]["refused_frees"])')" \
    "(1, 1, 1)" "check --json"
echo ok
