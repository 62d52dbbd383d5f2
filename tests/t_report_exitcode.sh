# --error-exitcode N (valgrind's option, for CI): the report is written as
# always, and the status is N when it found leaks -- after suppressions and
# allocator caches, of at least --min-bytes; in diff, a stack that grew; in
# merge, a snapshot with leaks.  Bad input keeps its status 2.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=leak.snap traced "$TPROG/scenarios" leak-runtime
GPULEAK_OUTPUT=clean.snap traced "$TPROG/scenarios" balanced
GPULEAK_OUTPUT=cached.snap traced "$TPROG/fake_torch_stripped" native
status() { set +e; "$REPORT" "$@" >out.txt 2>err.txt; echo $?; set -e; }

expect_eq "$(status --error-exitcode 3 leak.snap)" 3 "leaks"
grep -q '^LEAKS' out.txt || fail "the report is still written: $(head -3 out.txt)"
[ ! -s err.txt ] || fail "stderr: $(cat err.txt)"
expect_eq "$(status --error-exitcode 3 --json leak.snap)" 3 "leaks, JSON"
expect_eq "$(status --error-exitcode 3 --folded leaks leak.snap)" 3 "leaks, folded"
expect_eq "$(status leak.snap)" 0 "leaks without the option"
# The group is 2 x 1 MiB from one stack: 2 MiB counts, more does not.
expect_eq "$(status --error-exitcode 3 --min-bytes 2097152 leak.snap)" 3 "a group of exactly --min-bytes"
expect_eq "$(status --error-exitcode 3 --min-bytes 2097153 leak.snap)" 0 "groups under --min-bytes"
expect_eq "$(status --error-exitcode 3 clean.snap)" 0 "no leaks"
expect_eq "$(status --error-exitcode 3 cached.snap)" 0 "an allocator cache is not a leak"
expect_eq "$(status --error-exitcode 3 --no-default-suppressions cached.snap)" 3 "without the built-in rules"
printf '{\n   mine\n   ...\n   fun:leak_runtime\n}\n' >mine.supp
expect_eq "$(status --error-exitcode 3 --suppressions mine.supp leak.snap)" 0 "suppressed"

# diff measures growth within one process: leak.snap made a later
# snapshot of clean.snap's process (its pid, start time and index 1).
"$REPORT" --json clean.snap >clean.json
read -r pid start <<<"$(python3 -c 'import json; s = json.load(open("clean.json"))["snapshot"]; print(s["pid"], s["start_unix_ns"])')"
snap_set leak.snap l1.snap PROCESS 0 pid "$pid" && snap_set l1.snap l2.snap PROCESS 0 start_unix_ns "$start" &&
    snap_set l2.snap later.snap PROCESS 0 index 1 && snap_set clean.snap clean1.snap PROCESS 0 index 2 ||
    fail "snap_set"
expect_eq "$(status --error-exitcode 4 diff clean.snap later.snap)" 4 "diff: a stack grew"
expect_eq "$(status --error-exitcode 4 diff later.snap clean1.snap)" 0 "diff: stacks only shrank"
expect_eq "$(status --error-exitcode 4 diff leak.snap leak.snap)" 0 "diff: nothing changed"
expect_eq "$(status --error-exitcode 4 diff clean.snap leak.snap)" 2 "diff: two processes are refused"
expect_eq "$(status --error-exitcode 5 merge clean.snap leak.snap)" 5 "merge: one snapshot with leaks"
expect_eq "$(status --error-exitcode 5 merge clean.snap cached.snap)" 0 "merge: none"

head -c 100 leak.snap >cut.snap
expect_eq "$(status --error-exitcode 3 cut.snap)" 2 "an invalid snapshot keeps status 2"
for bad in 0 256 x; do
    expect_eq "$(status --error-exitcode $bad leak.snap)" 2 "--error-exitcode $bad"
    expect_eq "$(wc -l <err.txt)" 1 "one line for --error-exitcode $bad"
done
