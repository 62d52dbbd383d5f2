# gpuleak check's short report and its snapshots (issue 35, frictions):
# the summary and the leaks, not ALLOCATION CALLS (the reporter's own
# section "calls", chosen with --sections); and no gpuleak-check.*
# directory in the working directory -- its snapshots go to $TMPDIR, kept
# (and named) only when a process has errors.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
check() { "$LAUNCHER" check "$@" >out.txt 2>err.txt; }
mkdir tmp work && export TMPDIR=$PWD/tmp && cd work

rc=0; check --error-exitcode 9 -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 9 "leak"
expect_eq "$(grep -x '[A-Z][A-Z ]*' err.txt | paste -sd, -)" "SUMMARY,LEAKS,LEAK SUMMARY" "the short report's sections"
expect_eq "$(ls -A)" "err.txt
out.txt" "what check left in the working directory"
dir=$(sed -n 's/^gpuleak: snapshots in //p' err.txt)
expect_eq "${dir%.*}" "$TMPDIR/gpuleak-check" "the snapshots' directory"
expect_eq "$(ls "$dir" | wc -l)" 1 "the leak's snapshot kept"
rm -r "$dir"
rc=0; check -- "$TPROG/scenarios" balanced || rc=$?
expect_eq "$rc" 0 "balanced"
expect_eq "$(ls -A . "$TMPDIR" | paste -sd' ' -)" ".: err.txt out.txt  $TMPDIR:" "nothing left when no process has errors"
grep -q '^gpuleak: snapshots in' err.txt && fail "a removed directory named: $(tail -2 err.txt)"

# The verdict line is the findings, not a device's peak (the host's was
# read as one when the launcher parsed SUMMARY).
rc=0; check --output bf -- "$TPROG/bad_free" || rc=$?
grep -q '^gpuleak: process [0-9]*: ERRORS: leaked: 0 bytes in 0 allocations from 0 stacks; double frees: 4 frees from 3 stacks, each of an address freed before; invalid frees: 2 frees from 2 stacks, 2 refused by CUDA \[bf/gpuleak\.run-[A-Za-z0-9]\{6\}\.[0-9]*\.0\.snap\]$' err.txt ||
    fail "bad_free verdict: $(grep '^gpuleak: process' err.txt)"

# The reporter's section: ALLOCATION CALLS with calls, alone or added.
rc=0; check --sections leaks,calls --output o -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$(grep -x '[A-Z][A-Z ]*' err.txt | paste -sd, -)" "SUMMARY,LEAKS,LEAK SUMMARY,ALLOCATION CALLS" "--sections leaks,calls"
"$REPORT" --sections calls o/gpuleak.*.snap >calls.txt
expect_eq "$(grep -x '[A-Z][A-Z ]*' calls.txt | paste -sd, -)" "SUMMARY,ALLOCATION CALLS" "gpuleak-report --sections calls"
"$REPORT" --json --sections leaks o/gpuleak.*.snap >l.json
expect_eq "$(jget l.json '["allocation_calls" in d, "leaks" in d]')" "[false, true]" "JSON: calls outside --sections"
echo ok
