# One command (issue 35, item 6): gpuleak report, diff, merge and html do
# what gpuleak-report, gpuleak-report diff, merge and --html do -- the
# same bytes out and the same status -- so the README can say
# `gpuleak <command>` throughout.
source "$ROOT/tests/lib.sh"
mkdir r && "$TPROG/snapgen" ranks r
mkdir d && "$TPROG/snapgen" diffset d # one process's series (diff takes no other)
GPULEAK_OUTPUT=leak.snap traced "$TPROG/scenarios" leak-runtime
GPULEAK_OUTPUT=clean.snap traced "$TPROG/scenarios" balanced
# same WHAT "LAUNCHER ARGS" "REPORTER ARGS" [QUIET [SED]]: both run, same
# stdout and status; the same stderr, the reporter's edited by SED (the
# launcher names its own commands in a hint)
same() {
    local a=0 b=0
    "$LAUNCHER" $2 >a.out 2>a.err || a=$?
    "$REPORT" $3 >b.out 2>b.err || b=$?
    [ -z "${5:-}" ] || sed -i "$5" b.err
    expect_eq "$a" "$b" "$1: status"
    [ -s b.out ] || [ -n "${4:-}" ] || fail "$1: the reporter wrote nothing"
    cmp -s a.out b.out || fail "$1: output differs: $(diff a.out b.out | head -5)"
    cmp -s a.err b.err || fail "$1: stderr differs: $(cat a.err)"
}
same report "report --error-exitcode 3 leak.snap" "--error-exitcode 3 leak.snap"
same diff "diff --error-exitcode 4 d/a.snap d/c.snap" "--error-exitcode 4 diff d/a.snap d/c.snap"
same "diff, options after" "diff d/a.snap d/c.snap --json" "--json diff d/a.snap d/c.snap"
same "diff of two processes" "diff clean.snap leak.snap" "diff clean.snap leak.snap" quiet \
    "s/compare processes with 'merge', or two runs of one program stack by stack with 'diff --across-runs'\$/compare processes with 'gpuleak merge', or two runs of one program stack by stack with 'gpuleak diff --across-runs'/"
grep -q "compare processes with 'gpuleak merge', or two runs of one program stack by stack with 'gpuleak diff --across-runs'$" a.err || fail "diff of two processes: the hint: $(cat a.err)"
same merge "merge r/r0.snap r/r1.snap r/r2.snap" "merge r/r0.snap r/r1.snap r/r2.snap"
same "merge --json" "merge --json r/r0.snap r/r1.snap r/r2.snap" "--json merge r/r0.snap r/r1.snap r/r2.snap"
same html "html --top 3 a.html leak.snap" "--top 3 --html b.html leak.snap" quiet
cmp -s a.html b.html || fail "html: pages differ"
same "html, growth" "html g1.html d/a.snap d/c.snap" "--html g2.html d/a.snap d/c.snap" quiet
cmp -s g1.html g2.html || fail "html growth: pages differ"
same "html, merge" "html m1.html merge r/r0.snap r/r1.snap" "--html m2.html merge r/r0.snap r/r1.snap" quiet
cmp -s m1.html m2.html || fail "html merge: pages differ"
same "merge --html" "merge --html m3.html r/r0.snap r/r1.snap" "--html m4.html merge r/r0.snap r/r1.snap" quiet
cmp -s m3.html m4.html || fail "merge --html: pages differ"
same "html, no snapshot" "html x.html" "--html x.html" quiet
echo ok
