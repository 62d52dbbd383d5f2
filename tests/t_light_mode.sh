# GPULEAK_MODE=light (issue 36): stacks for a sample of the allocations,
# chosen by bytes; exact totals for all of them.  tests/programs/light_sites
# leaks 10,000 allocations of 4 KiB from small_site and 3 of 64 MiB from
# large_site, and makes and frees 5,000 of 8 KiB at churn_site.
# With GPULEAK_SAMPLE_BYTES=64K (R) an allocation of s bytes is sampled with
# probability p = 1 - exp(-s/R), independently of the others (the countdown
# is exponential, so memoryless):
#   - large_site: p = 1 - exp(-1024) = 1.0 in a double: all 3 sampled, exact
#     bytes, exact line;
#   - small_site: p = 1 - exp(-1/16) = 0.0606; the sampled count k is
#     Binomial(10000, p), the estimate k*s/p has a relative standard
#     deviation sqrt((1-p)/(N p)) = 3.94%: it must be within 16% (4 sigma)
#     of the 40,960,000 bytes leaked there.
# GPULEAK_SAMPLE_SEED=1 makes the samples the same every run: the counts
# are pinned.  The totals (leak summary, device counters) are exact.
source "$ROOT/tests/lib.sh"
light() {
    rm -f ./*.snap
    env "$@" GPULEAK_OUTPUT=light.snap LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
        "$TPROG/light_sites" >/dev/null || fail "light_sites with $*"
}
small=$(site_line light_sites.c "SITE: small")
large=$(site_line light_sites.c "SITE: large")
churn=$(site_line light_sites.c "SITE: churn")

light GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=64K GPULEAK_SAMPLE_SEED=1
"$REPORT" --json light.snap >r.json
"$REPORT" light.snap >r.txt
"$REPORT" --html light.html light.snap
check_json r.json <<PY
import math
eq(d["snapshot"]["sampling"], {"sampled": True, "mode": "bytes", "sample_bytes": 65536}, "sampling")
s = d["leak_summary"]
total = 10000 * 4096 + 3 * (64 << 20)
eq((s["bytes"], s["count"], s["leaked_bytes"], s["leaked_count"], s["sampled"]),
   (total, 10003, total, 10003, True), "exact totals")
dev = devices[0]
eq((dev["live_bytes"], dev["live_count"], dev["alloc_count"], dev["free_count"]),
   (total, 10003, 15003, 5000), "exact device counters")
by_line = {frame(g["frames"][0]): g for g in leaks}
eq(sorted(by_line), sorted(["large_site light_sites.c:$large", "small_site light_sites.c:$small"]), "sites")
g = by_line["large_site light_sites.c:$large"]
eq((g["bytes"], g["count"], g["estimated_bytes"], g["estimated_count"]),
   (3 * (64 << 20), 3, 3 * (64 << 20), 3), "the large site: always sampled, exact")
g = by_line["small_site light_sites.c:$small"]
p = 1 - math.exp(-4096 / 65536)
eq(g["count"], 597, "small site: sampled allocations with seed 1")
eq(g["bytes"], 597 * 4096, "small site: sampled bytes")
eq(g["estimated_count"], round(597 / p), "small site: estimated count = k / p")
eq(g["estimated_bytes"], round(597 * 4096 / p), "small site: estimated bytes = k s / p")
err = abs(g["estimated_bytes"] - 40960000) / 40960000
eq(err <= 0.16, True, "small site estimate within 4 sigma (%.1f%% off)" % (100 * err))
eq((s["unsampled_bytes"], s["unsampled_count"]), ((10000 - 597) * 4096, 10000 - 597), "not sampled")
eq(leaks[0]["frames"][0]["function"], "large_site", "ranked by estimate")
PY
grep -q '^sampled:  stacks of a sample of the allocations' r.txt || fail "text header does not say sampled"
grep -q "each stack's bytes are estimates; the total, 242,286,592 bytes (231.1 MiB) in 10,003 allocations" r.txt \
    || fail "leak section: exact total not said"
grep -q '^~40,[0-9,]* bytes (.*) in ~[0-9,]* allocations (estimated from 597 sampled allocations' r.txt \
    || fail "small site's estimate: $(grep -n estimated r.txt)"
grep -q '^(not sampled: 38,514,688 bytes (36.7 MiB) in 9,403 allocations' r.txt || fail "unsampled line"
grep -q 'stacks sampled (GPULEAK_MODE=light' light.html || fail "HTML does not say sampled"

# A hostile SAMPLING record: refused with one line, or (an absurd R) read
# with saturated estimates, never a crash.
snap_set light.snap bad_mode.snap SAMPLING 0 mode 7
! "$REPORT" bad_mode.snap >/dev/null 2>err || fail "SAMPLING mode 7 accepted"
grep -q 'SAMPLING record with unknown mode 7' err || fail "bad mode: $(cat err)"
snap_set light.snap bad_r.snap SAMPLING 0 sample_bytes 0
! "$REPORT" bad_r.snap >/dev/null 2>err || fail "SAMPLING sample_bytes 0 accepted"
grep -q 'SAMPLING record with sample_bytes 0' err || fail "bad R: $(cat err)"
snap_set light.snap huge_r.snap SAMPLING 0 sample_bytes 18446744073709551615
"$REPORT" --json huge_r.snap >huge.json || fail "huge R refused"
check_json huge.json <<'PY'
eq(max(g["estimated_bytes"] for g in leaks), 2**64 - 1, "estimates saturate")
PY

# The same seed, the same samples.
cp r.json r1.json
light GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=64K GPULEAK_SAMPLE_SEED=1
"$REPORT" --json light.snap >r.json
python3 - r1.json r.json <<'PY' || fail "seed 1 sampled differently"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
key = lambda d: [(g["count"], g["bytes"], g["stack_id"]) for g in d["leaks"]]
assert key(a) == key(b), (key(a), key(b))
PY
# Calls per stack: churn_site's sampled calls, pinned too.
check_json r.json <<PY
c = [s for s in d["allocation_calls"]["sites"] if s["frames"] and frame(s["frames"][0]) == "churn_site light_sites.c:$churn"]
eq([(s["calls"], s["frees"]) for s in c], [(564, 564)], "churn site's sampled calls")
PY

# The default sample size, 1 MiB: said in the snapshot.
light GPULEAK_MODE=light
"$REPORT" --json light.snap >r.json
check_json r.json <<'PY'
eq(d["snapshot"]["sampling"]["sample_bytes"], 1 << 20, "default R")
eq(d["leak_summary"]["bytes"], 10000 * 4096 + 3 * (64 << 20), "exact total")
PY

# Full mode (the default): no sampling, every allocation has its stack.
light
"$REPORT" --json light.snap >r.json
"$REPORT" light.snap >r.txt
check_json r.json <<PY
eq(d["snapshot"]["sampling"], None, "not sampled")
eq(d["leak_summary"]["sampled"], False, "summary: not sampled")
eq(sorted((frame(g["frames"][0]), g["count"]) for g in leaks),
   [("large_site light_sites.c:$large", 3), ("small_site light_sites.c:$small", 10000)], "every stack")
eq("estimated_bytes" in leaks[0], False, "no estimates")
PY
! grep -q 'sampled' r.txt || fail "a full report says sampled"

# gpuleak run --light: the same as GPULEAK_MODE=light, the same samples.
rm -f ./*.snap
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
GPULEAK_SAMPLE_BYTES=64K GPULEAK_SAMPLE_SEED=1 LD_LIBRARY_PATH=$FAKECUDA \
    "$LAUNCHER" run --light --quiet --output run-light.snap -- "$TPROG/light_sites" >/dev/null ||
    fail "gpuleak run --light"
"$REPORT" --json run-light.snap >r.json
check_json r.json <<PY
eq(d["snapshot"]["sampling"], {"sampled": True, "mode": "bytes", "sample_bytes": 65536}, "run --light: sampling")
eq(sorted((frame(g["frames"][0]), g["count"]) for g in leaks),
   [("large_site light_sites.c:$large", 3), ("small_site light_sites.c:$small", 597)], "run --light: the samples")
PY
