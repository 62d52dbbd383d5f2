# The stack cache (capture/stack_cache.c) is exact: a loop allocating from
# one place is answered from the cache after its first call; the same site
# with the same stack pointer but another return address (a function pointer
# swapped), or at another depth, gets its own, right stack; and the check
# mode (GPULEAK_STACK_CHECK), which walks every stack again with
# unw_backtrace and compares, finds no difference.  (With the validation
# broken on purpose, -DGL_STACK_CACHE_BREAK_VALIDATION, the same run reports
# mismatches and the stacks below come out wrong: docs/performance.md.)
source "$ROOT/tests/lib.sh"
GPULEAK_STACK_CHECK=$PWD/check.log traced "$TPROG/stack_cache" 1000
snap=$(only_snapshot)

# (1) and (3): 2 x 1000 loop pairs plus 5 leaks (2005 captures) from 8
# stacks.  A new thread's credit is 64 recording walks (stack_cache.c,
# INITIAL_CREDIT), so each stack is recorded at its first
# capture, no plain unw_backtrace walk is needed, and the other 1997 hit.
# Nothing differs from a full walk.
read -r hits misses plain mism < <(sed -nE 's/^stats .* hits=([0-9]+) misses=([0-9]+) uncached=0 plain=([0-9]+) fallbacks=0 .* mismatches=([0-9]+)$/\1 \2 \3 \4/p' check.log)
[ -n "${hits:-}" ] || fail "no stats line (or uncached/fallback walks) in the check log: $(cat check.log)"
grep -q '^mismatch' check.log && fail "check mode found mismatches: $(cat check.log)"
expect_eq "$mism" 0 "mismatches"
expect_eq "$hits $misses $plain" "1997 8 0" "hits, recorded misses, plain walks ($(cat check.log))"
expect_eq $((hits + misses + plain)) 2005 "captures"

# (2): each leak has the stack of its own path, exact names and lines.
"$REPORT" --json "$snap" >r.json
site=$(site_line stack_cache.c 'STACK-CACHE-SITE')
va=$(site_line stack_cache.c 'VIA-A'); vb=$(site_line stack_cache.c 'VIA-B')
call=$(site_line stack_cache.c 'DESCEND-CALL'); rec=$(site_line stack_cache.c 'DESCEND-RECURSE')
m=$(site_line stack_cache.c '/\* via_a, depth 2 \*/'); m2=$(site_line stack_cache.c '/\* via_b, depth 2 \*/')
m5=$(site_line stack_cache.c '/\* via_b, depth 5 \*/'); ma=$(site_line stack_cache.c '/\* via_a again, depth 2 \*/')
m0=$(site_line stack_cache.c '/\* via_a, depth 0 \*/')
check_json r.json <<PY
by = {l["bytes"]: [frame(f) for f in l["frames"]] for l in leaks}
def want(via, vline, depth, mline):
    return (["alloc_here stack_cache.c:$site", via + " stack_cache.c:" + str(vline), "descend stack_cache.c:$call"]
            + ["descend stack_cache.c:$rec"] * depth + ["main stack_cache.c:" + str(mline)])
eq(sorted(by), [1000, 2000, 3000, 4000, 5000], "leak sizes")
eq(by[1000][:6], want("via_a", $va, 2, $m), "via_a at depth 2")
eq(by[2000][:6], want("via_b", $vb, 2, $m2), "via_b at depth 2 (same sp, swapped return address)")
eq(by[3000][:9], want("via_b", $vb, 5, $m5), "via_b at depth 5")
eq(by[4000][:6], want("via_a", $va, 2, $ma), "via_a again")
eq(by[5000][:4], want("via_a", $va, 0, $m0), "via_a at depth 0")
PY

# GPULEAK_STACK_CACHE=off and =miss give the very same stacks.
for mode in off miss; do
    mkdir "$mode"
    (cd "$mode" && GPULEAK_STACK_CACHE=$mode GPULEAK_STACK_CHECK=$PWD/check.log traced "$TPROG/stack_cache" 50)
    "$REPORT" --json "$mode"/gpuleak.*.snap >"$mode.json"
    python3 - "$mode.json" r.json "$mode" <<'PY' || fail "GPULEAK_STACK_CACHE=$mode: other stacks"
import json, sys
def stacks(p):
    return {l["bytes"]: [(f.get("function"), f.get("line")) for f in l["frames"]] for l in json.load(open(p))["leaks"]}
sys.exit(0 if stacks(sys.argv[1]) == stacks(sys.argv[2]) else 1)
PY
done
grep -q ' hits=0 ' miss/check.log || fail "miss mode hit: $(cat miss/check.log)"
grep -q ' fallbacks=0 ' miss/check.log || fail "miss mode fell back: $(cat miss/check.log)"
[ ! -e off/check.log ] || grep -q ' hits=0 misses=0 uncached=0 plain=0 fallbacks=[1-9]' off/check.log || fail "off mode: $(cat off/check.log)"
