# Cache growth is a leak signal (issue 23): a training loop whose caching
# allocator keeps one more segment at every step (tests/programs/
# cache_growth.cc, c10's native allocator's namespace, so the built-in
# pytorch-caching-allocator rule holds its memory) is flagged by diff as a
# suspected leak, at the line that kept it, and fails --error-exitcode; the
# cache's workspace, which grew and shrank, and the weights, which did not
# change, are not.  A --suppressions rule's memory never is.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=final.snap traced "$TPROG/cache_growth" || fail "exit $?"
snaps="step0.snap step1.snap step2.snap step3.snap"
"$REPORT" --json diff $snaps >d.json || fail "diff exit $?"
check_multi_json d.json <<PY
MiB = 1 << 20
rows = [(frame(s["frames"][1]).split("(")[0] + " " + frame(s["frames"][1]).split(" ")[-1], s["bytes"], s["suspected_leak"], s["cache_growth"], s["rule"]) for s in d["stacks"]]
eq(rows, [("keep_activations cache_growth.cc:$(site_line cache_growth.cc KEPT-SITE)", [2 * MiB, 4 * MiB, 6 * MiB, 8 * MiB],
           True, True, "pytorch-caching-allocator"),
          ("workspace cache_growth.cc:$(site_line cache_growth.cc WORK-SITE)", [MiB, 3 * MiB, 2 * MiB, MiB],
           False, False, "pytorch-caching-allocator")],
   "the kept segments flagged, the workspace not, the weights unchanged")
PY
"$REPORT" diff $snaps >d.txt
grep -qx '+6,291,456 bytes (6.0 MiB): device memory on device 0, held by pytorch-caching-allocator, suspected leak (the allocator cache grew at every step)' d.txt ||
    fail "text: $(sed -n '/^CHANGES BY STACK/,+3p' d.txt)"
rc=0; "$REPORT" --error-exitcode 9 diff $snaps >/dev/null || rc=$?
expect_eq "$rc" 9 "--error-exitcode on a cache that grew at every step"
# Two snapshots are no series: growth, but not at "every step" of three.
rc=0; "$REPORT" --error-exitcode 9 diff step1.snap step3.snap >/dev/null || rc=$?
expect_eq "$rc" 0 "two snapshots: no monotonic growth to flag"
# A user rule over the same stack: suppressed memory is never a suspect.
printf '{\n   kept\n   ...\n   fun:keep_activations*\n}\n' >user.supp
"$REPORT" --json --no-default-suppressions --suppressions user.supp diff $snaps >u.json || fail "diff exit $?"
check_multi_json u.json <<'PY'
s = [x for x in d["stacks"] if x["frames"][1]["function"].startswith("keep_activations")]
eq([(x["rule"], x["suspected_leak"], x["cache_growth"]) for x in s], [("kept", False, False)], "user rule")
PY
