# `gpuleak check -- command`: the one-command, valgrind-style run.  The
# command's own output stays on stdout and its reports go to stderr, one per
# process (a forked child has its own); the exit status is the command's,
# or --error-exitcode's when a report finds a leak (of at least --min-bytes)
# or a free CUDA refused; the snapshots are kept in the directory it names;
# a command that makes no CUDA call gets one line, and its status.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
# Sanitizer builds: the sanitizer runtime must be preloaded first into
# programs not built with it (sh below); LIBGPULEAK is that list.
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
check() { "$LAUNCHER" check "$@" >out.txt 2>err.txt; }

# A leak: status 9, the report on stderr, the snapshot kept.
rc=0; check --error-exitcode 9 -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 9 "leak with --error-exitcode 9"
grep -q '==== gpuleak report' out.txt && fail "a report went to stdout"
grep -qx '2,097,152 bytes (2.0 MiB) in 2 allocations: device memory on device 0 (cudaMalloc), not freed at exit' err.txt ||
    fail "leak line: $(head -20 err.txt)"
dir=$(sed -n 's/^gpuleak: snapshots in //p' err.txt)
[ -d "$dir" ] || fail "snapshot directory '$dir'"
expect_eq "$(ls "$dir" | wc -l)" 1 "one snapshot kept"
# Without --error-exitcode the command's own status (0).
rc=0; check -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 0 "leak without --error-exitcode"
# --min-bytes above the leak: not a finding.
rc=0; check --error-exitcode 9 --min-bytes 4000000 -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 0 "leak below --min-bytes"

# Balanced: the command's status.
rc=0; check --error-exitcode 9 --output bal -- "$TPROG/scenarios" balanced || rc=$?
expect_eq "$rc" 0 "balanced"
grep -q '^No leaks' err.txt || fail "balanced report"
grep -qx 'gpuleak: snapshots in bal' err.txt || fail "--output directory named"
# --output DIR reused: only this run's snapshots are read (the first run's
# balanced one is not reported again).
rc=0; check --error-exitcode 9 --output bal -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 9 "reused directory"
expect_eq "$(grep -c '^==== gpuleak report' err.txt)" 1 "reports in a reused directory"
expect_eq "$(ls bal | wc -l)" 2 "snapshots in a reused directory"

# The verdict: one line per process, then the snapshots' directory and the
# overall line (valgrind's ERROR SUMMARY); the short report by default
# (summary and leaks), all sections with --full.
rc=0; check --error-exitcode 9 --output fv -- "$TPROG/scenarios" fork || rc=$?
expect_eq "$rc" 9 "fork verdict"
tail -4 err.txt | sed 's/process [0-9]*/process P/; s/gpuleak\.[0-9]*\./gpuleak.P./' >tail.txt
cat >want.txt <<EOT
gpuleak: process P: ERRORS: leaked: 1,048,576 bytes (1.0 MiB) in 1 allocation from 1 stack [fv/gpuleak.P.0.snap]
gpuleak: process P: ERRORS: leaked: 131,072 bytes (128.0 KiB) in 2 allocations from 1 stack [fv/gpuleak.P.0.snap]
gpuleak: snapshots in fv
gpuleak: ERROR SUMMARY: 2 of 2 processes with errors (leaks, memory still mapped, refused frees, teardown releases)
EOT
diff want.txt tail.txt || fail "verdict lines"
grep -qx 'PEAK' err.txt && fail "PEAK in the default (short) report"
rc=0; check --full -- "$TPROG/scenarios" leak-runtime || rc=$?
grep -qx 'PEAK' err.txt || fail "no PEAK with --full"
rc=0; check --output clean -- "$TPROG/scenarios" balanced || rc=$?
tail -2 err.txt | sed 's/process [0-9]*/process P/' >tail.txt
expect_eq "$(head -1 tail.txt)" "gpuleak: snapshots in clean" "clean: directory line"
expect_eq "$(tail -1 tail.txt)" \
    "gpuleak: ERROR SUMMARY: 0 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases)" \
    "clean verdict"
grep -q '^gpuleak: process [0-9]*: no errors: .* \[clean/gpuleak\.[0-9]*\.0\.snap\]$' err.txt || fail "clean process line"

# The reporter's options pass through; sizes take units (2M is more than
# the 2 MiB leak... exactly 2 MiB: shown; 3M: not a finding).
rc=0; check --error-exitcode 9 --min-bytes 2M -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 9 "--min-bytes 2M"
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
rc=0; check --top 0 -- touch ran || rc=$?
expect_eq "$(cat err.txt)" "gpuleak: check: --top needs a positive number, not '0' (try --help)" "--top 0 (the reporter's words)"
[ ! -e ran ] || fail "the command ran with a bad suppressions file"
rc=0; check --min-bytes 5x -- touch ran || rc=$?
expect_eq "$rc" 2 "--min-bytes 5x"
expect_eq "$(cat err.txt)" "gpuleak: check: --min-bytes 5x: expected bytes, e.g. 4096, 100M, 2GiB" "--min-bytes 5x message"
rc=0; check --depth 999 -- touch ran || rc=$?
expect_eq "$(cat err.txt)" "gpuleak: check: --depth 999: expected 0 to 256 frames" "--depth 999 message"
[ ! -e ran ] || fail "the command ran with bad options"
# No CUDA, no --output: no gpuleak-check.* directory is left.
mkdir nocuda && cd nocuda
rc=0; check -- true || rc=$?
expect_eq "$(ls -A)" "err.txt
out.txt" "what check left in the directory"
cd ..

# Fork: a report per process, parent and child.
rc=0; check --error-exitcode 9 --output fk -- "$TPROG/scenarios" fork || rc=$?
expect_eq "$rc" 9 "fork"
expect_eq "$(grep -c '^==== gpuleak report' err.txt)" 2 "two reports"
grep -q 'device memory on device 0 (cudaMalloc), not freed at exit' err.txt || fail "parent's leak"
grep -q 'pool memory on device 0 (cudaMallocAsync), not freed at exit' err.txt || fail "child's leak"

# A refused free is a finding even without leaks.
rc=0; check --error-exitcode 4 -- "$TPROG/bad_free" || rc=$?
expect_eq "$rc" 4 "invalid frees"
grep -qx 'INVALID FREES' err.txt || fail "invalid frees section"
grep -q '^double 0x' out.txt || fail "the program's stdout"
grep -qx '    (where it was freed is not recorded: GPULEAK_FREE_STACKS=1 records it)' err.txt || fail "free stacks off"
# --free-stacks: where the double-freed address was first freed.
rc=0; check --error-exitcode 4 --free-stacks -- "$TPROG/bad_free" || rc=$?
expect_eq "$rc" 4 "invalid frees, free stacks"
grep -A1 -x '    and freed by' err.txt |
    grep -qx "        #0 double_free (bad_free.c:$(site_line bad_free.c 'FIRST-FREE: double_free')) \[bad_free\]" ||
    fail "--free-stacks: the first free's line"

# No CUDA at all: one line, and the command's status.
rc=0; check --error-exitcode 9 -- sh -c 'exit 3' || rc=$?
expect_eq "$rc" 3 "the command's status"
grep -qx 'gpuleak: no snapshot was written (the command made no CUDA allocation gpuleak saw)' err.txt ||
    fail "no-snapshot line: $(cat err.txt)"

# Usage errors.
rc=0; check --error-exitcode 0 -- true || rc=$?
expect_eq "$rc" 2 "--error-exitcode 0"
rc=0; check || rc=$?
expect_eq "$rc" 2 "no command"
grep -q 'no command given' err.txt || fail "no command message"

# A directory whose name has '%' in it is a directory, not a pattern: the
# leak is found there (it went to res<pid>, and check passed).
rc=0; check --error-exitcode 3 --output 'res%p%n' -- "$TPROG/scenarios" leak-runtime || rc=$?
expect_eq "$rc" 3 "leak with --output 'res%p%n'"
expect_eq "$(ls 'res%p%n' | wc -l)" 1 "snapshots in 'res%p%n'"
grep -qx 'gpuleak: snapshots in res%p%n' err.txt || fail "directory named: $(tail -1 err.txt)"
# A command that changes directory before its first CUDA call: the
# snapshots still go to the directory check reads.
mkdir away
rc=0; check --error-exitcode 3 --output here -- sh -c "cd away && exec '$TPROG/scenarios' leak-runtime" || rc=$?
expect_eq "$rc" 3 "leak after a cd"
expect_eq "$(ls here | wc -l) $(ls away | wc -l)" "1 0" "snapshots in here and away"
