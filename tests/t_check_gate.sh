# gpuleak check as a CI gate: one verdict line per process and an ERROR
# SUMMARY line; the short report by default, --full for every section;
# gpuleak-report's options passed through, sizes with units, bad options
# refused before the command runs; no empty gpuleak-check.* directory left.
# (Split from t_launcher_check to keep each test short under ASan.)
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
check() { "$LAUNCHER" check "$@" >out.txt 2>err.txt; }

# The verdict: one line per process, then the snapshots' directory and the
# overall line (valgrind's ERROR SUMMARY); the short report by default
# (summary and leaks), all sections with --full.
rc=0; check --error-exitcode 9 --output fv -- "$TPROG/scenarios" fork || rc=$?
expect_eq "$rc" 9 "fork verdict"
tail -4 err.txt | sed 's/process [0-9]*/process P/; s/gpuleak\.run-[A-Za-z0-9]\{6\}\.[0-9]*\./gpuleak.run-T.P./' >tail.txt
cat >want.txt <<EOT
gpuleak: process P: ERRORS: leaked: 1,048,576 bytes (1.0 MiB) in 1 allocation from 1 stack [fv/gpuleak.run-T.P.0.snap]
gpuleak: process P: ERRORS: leaked: 131,072 bytes (128.0 KiB) in 2 allocations from 1 stack [fv/gpuleak.run-T.P.0.snap]
gpuleak: snapshots in fv
gpuleak: ERROR SUMMARY: 2 of 2 processes with errors (leaks, memory still mapped, refused frees, teardown releases)
EOT
diff want.txt tail.txt || fail "verdict lines"
grep -qx 'PEAK' err.txt && fail "PEAK in the default (short) report"
rc=0; check --full --output clean -- "$TPROG/scenarios" balanced || rc=$?
grep -qx 'PEAK' err.txt || fail "no PEAK with --full"
tail -2 err.txt | sed 's/process [0-9]*/process P/' >tail.txt
expect_eq "$(head -1 tail.txt)" "gpuleak: snapshots in clean" "clean: directory line"
expect_eq "$(tail -1 tail.txt)" \
    "gpuleak: ERROR SUMMARY: 0 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases)" \
    "clean verdict"
grep -q '^gpuleak: process [0-9]*: no errors: .* \[clean/gpuleak\.run-[A-Za-z0-9]\{6\}\.[0-9]*\.0\.snap\]$' err.txt || fail "clean process line"

# The reporter's options pass through; sizes take units (3 MiB is more
# than the 2 MiB leak: not a finding).
rc=0; check --error-exitcode 9 --min-bytes 3MiB -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 0 "--min-bytes 3MiB"
rc=0; "$REPORT" --min-bytes 3M --error-exitcode 9 "$(ls fv/gpuleak.*.snap | head -1)" >/dev/null || rc=$?
expect_eq "$rc" 0 "gpuleak-report --min-bytes 3M"
rc=0; check --error-exitcode 9 --top 1 --sections leaks,peak --all-frames --no-default-suppressions --color never \
    -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 9 "reporter options"
grep -qx 'PEAK' err.txt || fail "--sections leaks,peak passed through"
rc=0; check --suppressions missing.supp -- touch ran || rc=$?
expect_eq "$rc" 2 "a missing suppressions file"
expect_eq "$(cat err.txt)" "gpuleak: check: --suppressions missing.supp: cannot read that file" "missing suppressions"
# a file that is there but not rules: read before the command runs (not
# after it, where each report failed and the gate passed or said "leak")
printf '{\n   unclosed\n   fun:alloc_*\n' >open.supp
rc=0; check --error-exitcode 3 --suppressions open.supp -- touch ran || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak: check: --suppressions open.supp: line 1: rule not closed with '}'" "unclosed suppressions"
printf '{\n   from-valgrind\n   Memcheck:Leak\n   fun:malloc\n}\n' >vg.supp
rc=0; check --suppressions vg.supp -- touch ran || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak: check: --suppressions vg.supp: line 3: a TOOL:KIND line (valgrind's Memcheck:Leak) is not taken: a rule is '{', a name, then fun:, obj:, src: patterns or '...', then '}'" "valgrind suppressions"
rc=0; check --top 0 -- touch ran || rc=$?
expect_eq "$(cat err.txt)" "gpuleak: check: --top needs a positive number, not '0' (try --help)" "--top 0 (the reporter's words)"
[ ! -e ran ] || fail "the command ran with a bad suppressions file"
rc=0; check --min-bytes 5x -- touch ran || rc=$?
expect_eq "$rc" 2 "--min-bytes 5x"
expect_eq "$(cat err.txt)" "gpuleak: check: --min-bytes needs a size in bytes (4096, 512k, 1.5M, 1 MiB, 2G), not '5x' (try --help)" "--min-bytes 5x message"
rc=0; check --depth 999 -- touch ran || rc=$?
expect_eq "$(cat err.txt)" "gpuleak: check: --depth 999: expected 0 to 256 frames" "--depth 999 message"
[ ! -e ran ] || fail "the command ran with bad options"
# A process whose report failed (here a snapshot that is not one) was not
# checked: never a pass, --error-exitcode's status or 2 without it.
for ec in "" 7; do
    rm -rf rf && mkdir rf
    rc=0; check ${ec:+--error-exitcode $ec} --output rf -- sh -c 'echo junk >"${GPULEAK_OUTPUT%%%p.%n.snap}99999.0.snap"' || rc=$?
    sed -i 's/gpuleak\.run-[A-Za-z0-9]\{6\}\./gpuleak.run-T./g' err.txt
    cat >want.txt <<EOT
gpuleak-report: rf/gpuleak.run-T.99999.0.snap: file too short for a snapshot header (5 bytes) (at offset 5)
gpuleak: process 99999: the report of rf/gpuleak.run-T.99999.0.snap failed (status 2): not checked, so not passed
gpuleak: snapshots in rf
gpuleak: ERROR SUMMARY: 1 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases; reports failed)
EOT
    expect_eq "$rc" "${ec:-2}" "a failed report, --error-exitcode '$ec'"
    diff want.txt err.txt || fail "a failed report's lines"
done
# No CUDA, no --output: no gpuleak-check.* directory is left.
mkdir nocuda && cd nocuda
rc=0; check -- true || rc=$?
expect_eq "$(ls -A)" "err.txt
out.txt" "what check left in the directory"
cd ..
