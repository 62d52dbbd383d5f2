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
