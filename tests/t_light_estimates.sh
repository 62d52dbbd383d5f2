# GPULEAK_MODE=light (issue 36): every output of gpuleak-report scales a
# sampled snapshot's figures by stack as the leak groups do, or says that
# it does not.  Each sampled allocation of s bytes stands for 1/p
# allocations and s/p bytes, p = 1 - exp(-s/R); the records that keep only
# sums per stack (PEAK, CALLS) are scaled by their average size, as Go's
# runtime/pprof scales heap profiles (scaleHeapSample).
# tests/programs/light_sites with R = 64 KiB and seed 1 (as t_light_mode):
# small_site leaks 10,000 x 4 KiB, 597 sampled (p = 1 - e^-1/16): they
# stand for 597 / p = 9,854 allocations and 40,360,383 bytes; large_site
# leaks 3 x 64 MiB, always sampled (exact); churn_site makes and frees
# 5,000 x 8 KiB, 564 sampled (p = 1 - e^-1/8): 564 / p = 4,800 calls and
# frees, 39,320,563 bytes.  At the peak (seq 10004) 9,404 allocations,
# 38,522,880 bytes, were not sampled.
source "$ROOT/tests/lib.sh"
run_sites() {  # run_sites OUT ENV...: light_sites writing OUT, and mid.snap halfway
    env "${@:2}" GPULEAK_OUTPUT="$1" LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
        "$TPROG/light_sites" 10000 mid.snap >/dev/null || fail "light_sites with ${*:2}"
}
run_sites light.snap GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=64K GPULEAK_SAMPLE_SEED=1
small=$(site_line light_sites.c "SITE: small")
churn=$(site_line light_sites.c "SITE: churn")

# The peak's composition and the calls per stack, in JSON: estimated.
"$REPORT" --json light.snap >r.json || fail "json"
check_json r.json <<PY
dev = devices[0]
comp = [(frame(c["frames"][0]).split()[0], c["bytes"], c["count"], c["estimated_bytes"], c["estimated_count"])
        for c in dev["peak_composition"]]
eq(comp, [("large_site", 201326592, 3, 201326592, 3), ("small_site", 597 * 4096, 597, 40360383, 9854)],
   "peak composition: estimated, ranked by estimate")
eq((dev["peak_unsampled_bytes"], dev["peak_unsampled_count"]), (38522880, 9404), "peak: not sampled")
c = d["allocation_calls"]
eq((c["calls"], c["frees"], c["sampled"]), (15003, 5000, True), "calls: exact totals")
sites = [(frame(x["frames"][0]) if x["frames"] else None, x["calls"], x["estimated_calls"], x["estimated_frees"],
          x["estimated_bytes"]) for x in c["sites"]]
eq(sites, [("small_site light_sites.c:$small", 597, 9854, 0, 40360383),
           ("churn_site light_sites.c:$churn", 564, 4800, 4800, 39320563),
           (sites[2][0], 3, 3, 0, 201326592), (None, 13839, 0, 0, 0)], "calls: estimated, most first")
PY

# The text report says the same, and counts the allocations not sampled as
# no stack of their own (the summary said "from 3 stacks" for 2 sites).
"$REPORT" light.snap >r.txt || fail "text"
grep -q '^    leaked: .* in 10,003 allocations from 2 stacks, 9,403 of them not sampled$' r.txt ||
    fail "summary: $(grep 'leaked:' r.txt)"
grep -q '^    ~40,360,383 bytes (38.5 MiB) in ~9,854 allocations (estimated from 597 sampled allocations of 2,445,312 bytes (2.3 MiB)) from:$' r.txt ||
    fail "peak's small site: $(grep -A1 'at the peak' r.txt)"
grep -q '^    (not sampled: 38,522,880 bytes (36.7 MiB) in 9,404 allocations, in the estimates above)$' r.txt ||
    fail "peak: not sampled line"
grep -q '^~4,800 calls (cudaMalloc, device), ~4,800 freed, ~39,320,563 bytes (37.5 MiB) in all (estimated from 564 sampled calls, 564 freed, 4,620,288 bytes (4.4 MiB))$' r.txt ||
    fail "calls: churn site: $(grep 'calls (cudaMalloc' r.txt)"
grep -q '^                 0                          of them, held by allocator caches (built-in rules; estimated, sampled)$' r.txt ||
    fail "ledger: $(grep 'allocator caches' r.txt)"
grep -q '^13,839 calls (cudaMalloc, device), 4,436 freed, 74,854,400 bytes (71.4 MiB) in all, not sampled: in the estimates above$' r.txt ||
    fail "calls: not sampled line"

# The gate: 2 leak stacks, not 3 (the allocations not sampled are none).
rc=0
"$REPORT" --error-exitcode 9 --verdict v.json light.snap >/dev/null || rc=$?
expect_eq "$rc" 9 "exit status"
check_multi_json v.json <<'PY'
eq((d["errors"], d["leaked_stacks"], d["leaked_bytes"]), (2, 2, 242286592), "verdict")
PY
rc=0
"$REPORT" --error-exitcode 9 --min-bytes 41000000 --verdict v.json light.snap >min.txt || rc=$?
expect_eq "$rc" 9 "exit status, --min-bytes 41000000"
check_multi_json v.json <<'PY'
eq(d["errors"], 1, "small_site's estimate, 40,360,383, is below 41,000,000")
PY
grep -q 'from 2 stacks, 9,403 of them not sampled, 1 stack below --min-bytes 41,000,000$' min.txt ||
    fail "min-bytes: $(grep 'leaked:' min.txt)"

# Flame graphs: folded stacks and the page's trees weigh the estimates.
expect_eq "$("$REPORT" --folded leaks light.snap)" \
    "$(printf '%s\n' 'device_0:device;main;large_site 201326592' 'device_0:device;main;small_site 40360383')" "folded leaks"
expect_eq "$("$REPORT" --folded peak light.snap)" \
    "$(printf '%s\n' 'device_0;main;large_site 201326592' 'device_0;main;small_site 40360383')" "folded peak"
"$REPORT" --html l.html light.snap || fail "html"
python3 - l.html <<'PY' || fail "page"
import json, re, sys
page = open(sys.argv[1]).read()
def has(s):
    assert s in page, s
has('"flame":{"leaks":[0,241686975,')
has('"peak":[6,241686975,')
has('"calls":597,"frees":0,"bytes":2445312,"est_calls":9854,"est_frees":0,"est_bytes":40360383,')
has('"calls":564,"frees":564,"bytes":4620288,"est_calls":4800,"est_frees":4800,"est_bytes":39320563,')
has('"bytes":2445312,"count":597,"est_bytes":40360383,"est_count":9854,"device_peak":242294784,')
has('held by allocator caches (built-in rules; estimated, sampled)')
PY

# pprof: values scaled and the period R, as Go writes sampled heap profiles.
if command -v go >/dev/null; then
    export PPROF_TMPDIR=$PWD HOME=$PWD
    "$REPORT" --pprof l.pb.gz light.snap || fail "pprof"
    top() {  # "FUNCTION VALUE" per function with a value of its own
        go tool pprof -top -nodefraction=0 "$@" 2>/dev/null |
            awk 'f && $1 != "0" { print $6, $1 } /^ *flat  flat%/ { f = 1 }' | sort
    }
    expect_eq "$(top -unit=B -sample_index=inuse_space l.pb.gz)" \
        "$(printf '%s\n' 'large_site 201326592B' 'small_site 40360383B')" "pprof inuse_space"
    expect_eq "$(top -sample_index=inuse_objects l.pb.gz)" \
        "$(printf '%s\n' 'large_site 3' 'small_site 9854')" "pprof inuse_objects"
    expect_eq "$(top -unit=B -sample_index=alloc_space l.pb.gz)" \
        "$(printf '%s\n' 'churn_site 39320563B' 'large_site 201326592B' 'small_site 40360383B')" "pprof alloc_space"
    expect_eq "$(top -sample_index=alloc_objects l.pb.gz)" \
        "$(printf '%s\n' 'churn_site 4800' 'large_site 3' 'small_site 9854')" "pprof alloc_objects"
    go tool pprof -raw l.pb.gz 2>/dev/null >raw.txt
    grep -qx 'Period: 65536' raw.txt || fail "pprof period: $(grep Period raw.txt)"
    grep -q '^Comment: sampled (GPULEAK_MODE=light)' raw.txt || fail "pprof comment"
fi

# diff of the light process's two snapshots: rows by stack are estimates
# (by average size; 292 of the first 5,000 small ones sampled), the row of
# the allocations not sampled stays exact, and a warning says so.
"$REPORT" --json diff mid.snap light.snap >d.json || fail "diff"
check_multi_json d.json <<'PY'
import math
w = 1 / (1 - math.exp(-4096 / 65536))
rows = {(r["frames"][0]["function"] if r["frames"] else None): (r["bytes"], r["count"], r["growth"]) for r in d["stacks"]}
eq(rows, {"large_site": ([2 * (64 << 20), 3 * (64 << 20)], [2, 3], 64 << 20),
          "small_site": ([round(292 * 4096 * w), round(597 * 4096 * w)], [round(292 * w), round(597 * w)],
                         round(597 * 4096 * w) - round(292 * 4096 * w)),
          None: ([4708 * 4096, 9403 * 4096], [4708, 9403], 4695 * 4096)}, "diff rows: estimates, not sampled exact")
new = {(g["frames"][0]["function"] if g["frames"] else None): (g["bytes"], g["count"]) for g in d["new_since_first"]["groups"]}
eq(new[None], (4695 * 4096, 4695), "new since the first, not sampled")
eq(new["small_site"], (round(305 * 4096 * w), round(305 * w)), "new since the first: estimated")
eq((d["new_since_first"]["bytes"], d["new_since_first"]["count"]), (87588864, 5001), "new since the first: exact total")
eq(d["warnings"], ["2 of the 2 snapshots were sampled (GPULEAK_MODE=light, one stack per 65536 bytes allocated on "
    "average): their live bytes and counts by stack are estimates from the sampled allocations; the allocations "
    "not sampled are the row with no stack, exact and also in the estimates; totals and devices are exact"], "warning")
PY

"$REPORT" diff mid.snap light.snap >d.txt || fail "diff text"
expect_eq "$(grep -E '^[-+]' d.txt)" "$(printf '%s\n' '+~67,108,864 bytes (64.0 MiB): device memory on device 0' \
    '+~20,619,626 bytes (19.7 MiB): device memory on device 0' '+19,230,720 bytes (18.3 MiB): device memory on device 0')" \
    "diff text: estimates marked, the row not sampled exact"

# merge of a sampled and a full snapshot: said, never silently compared.
rm mid.snap && run_sites full.snap
"$REPORT" --json merge full.snap light.snap >m.json || fail "merge"
check_multi_json m.json <<'PY'
eq(d["warnings"], [
    "1 of the 2 snapshots was sampled (GPULEAK_MODE=light, one stack per 65536 bytes allocated on average): "
    "their live bytes and counts by stack are estimates from the sampled allocations; the allocations not sampled "
    "are the row with no stack, exact and also in the estimates; totals and devices are exact",
    "the snapshots were not sampled alike (%s): a stack's figures compare estimates with exact ones, or estimates "
    "of another precision, so a change may be the estimates' error; the totals and devices are exact" % ", ".join(
        "[%d] %s" % (i + 1, "every stack" if s["path"] == "full.snap" else "one per 65536 bytes")
        for i, s in enumerate(d["snapshots"]))], "warnings")
PY
"$REPORT" --json merge full.snap full.snap >m2.json || fail "merge full"
check_multi_json m2.json <<'PY'
eq(d["warnings"], [], "two full snapshots: no warning")
PY

# gpuleak top: the live file says the process is sampled ("sampling R ID",
# docs/live.md), and top shows each stack's estimate (by the weight of its
# average size) and the allocations not sampled apart.  A live file made
# here: 10 sampled allocations of 4 KiB at R = 64 KiB stand for
# 10 x 16.505 = 165 allocations, 676,053 bytes (660.2 KiB).
printf '%s\n' 'gpuleak-live 2' 'pid 4242' 'time_ns 1' 'uptime_ns 2000000000' 'sampling 65536 2' \
    'device 0 live_bytes 1040960 live_count 210 peak_bytes 1040960 peak_time_ns 1 alloc_count 210 free_count 0 failed_count 0' \
    'site 5 0 40960 10' 'site 2 0 1000000 200' 'oom_total 0' 'stack 5 1234' 'stack 2 1' end >s.live
"$BUILD/libexec/gpuleak/gpuleak-top" --once s.live >top.txt || fail "top: $(cat top.txt)"
grep -qx 'sampled (GPULEAK_MODE=light, a stack per 64.0 KiB on average): live and count by stack' top.txt &&
    grep -qx 'are estimates; not sampled: 976.6 KiB in 200 allocations, in the estimates' top.txt || fail "top: $(cat top.txt)"
expect_eq "$(sed -n '/^ *live *count/,/^$/p' top.txt | sed '1d;/^$/d' | awk '{print $1, $2, $3, $4}')" "660.2 KiB 165 0" "top's rows"
# ... as libgpuleak writes it
mkdir live && chmod 700 live && mkfifo job.in
GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=64K GPULEAK_LIVE_DIR=$PWD/live LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
    "$TPROG/live_job" <job.in >job.out 2>&1 &
job=$!
exec 3>job.in
found=0  # the writer rewrites it once a second
wait_until grep -qs '^sampling 65536 [1-9]' "live/$job.live" && found=1
exec 3>&-  # the end of its input: live_job exits
wait "$job" || fail "live_job: $(cat job.out)"
expect_eq "$found" 1 "the live file's sampling line"

# Phases are not scaled: the text and JSON say their stacks hold sampled
# allocations only (tests/programs/phases, as t_report_phases runs it).
mkdir ph && (cd ph && GPULEAK_MODE=light traced "$TPROG/phases" >/dev/null) || fail "phases"
"$REPORT" ph/gpuleak.*.snap >ph.txt && "$REPORT" --json ph/gpuleak.*.snap >ph.json || fail "phases report"
grep -A1 -x 'PHASES' ph.txt | grep -qx 'Sampled (GPULEAK_MODE=light): the levels and counts are exact; the stacks and' ||
    fail "phases: $(grep -A2 '^PHASES' ph.txt)"
check_multi_json ph.json <<'PY'
eq(d["phases"]["stacks_sampled_only"], True, "phases: sampled only")
PY

# The gate's teardown leaks count sampled stacks too: a group of memory a
# context teardown released whose allocations were not sampled (stack 0,
# set here) is no stack of its own; its bytes stay in the exact total.
GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=1K GPULEAK_OUTPUT=td.snap traced "$TPROG/ctx_teardown" primary-reset >/dev/null ||
    fail "ctx_teardown"
snap_set td.snap td0.snap TEARDOWN 0 stack_id 0
"$REPORT" --error-exitcode 3 --verdict td.json td0.snap >/dev/null || fail "teardown not sampled: exit $?"
check_multi_json td.json <<'PY'
eq((d["errors"], d["teardown_leaked_bytes"]), (0, 6000), "teardown not sampled: no stack, exact bytes")
PY
