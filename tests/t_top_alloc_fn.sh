#!/usr/bin/env bash
# `gpuleak top --alloc-fn NAME` skips the program's own allocation wrapper
# when it names a site, as gpuleak-report's option of the same name does
# (report/model/user_frame.h): live_job's steady() is a wrapper of
# cudaMalloc, so its 4 MiB read as main's.  An empty name is refused as the
# reporter refuses it.
source "$ROOT/tests/lib.sh"
SRC=$ROOT/tests/programs/live_job.c
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
TOP=$BUILD/libexec/gpuleak/gpuleak-top
mkdir live && chmod 700 live
export GPULEAK_LIVE_DIR=$PWD/live
cleanup() { [ -z "${job:-}" ] || kill "$job" 2>/dev/null || true; }
trap cleanup EXIT
mkfifo job.in
GPULEAK_OOM_SNAPSHOT=0 LD_PRELOAD=$LIBGPULEAK LD_LIBRARY_PATH=$FAKECUDA "$TPROG/live_job" <job.in >job.out 2>job.err &
job=$!
exec 3>job.in
wait_for "the job to start" has_line job.out ready
wait_for "the live file" has_line "live/$job.live" "device 0 live_bytes 4194304 "
row() { sed -n '/largest live stacks/{n;n;p}' "$1"; }

"$LAUNCHER" top --once --alloc-fn 'ste*' "$job" >fn.txt 2>fn.err || fail "gpuleak top --alloc-fn: $(cat fn.err)"
expect_eq "$(row fn.txt)" "   4.0 MiB          1  0      main live_job.c:$(line_of 'void \*s = steady();')" \
    "the row with --alloc-fn 'ste*'"
"$TOP" --once --alloc-fn=steady --alloc-fn=other "$job" >fn2.txt 2>fn2.err || fail "gpuleak-top: $(cat fn2.err)"
expect_eq "$(row fn2.txt)" "$(row fn.txt)" "the row with --alloc-fn=steady --alloc-fn=other"
"$TOP" --once "$job" >plain.txt 2>plain.err || fail "gpuleak-top: $(cat plain.err)"
expect_eq "$(row plain.txt)" \
    "   4.0 MiB          1  0      steady live_job.c:$(line_of 'LIVE-SITE: steady') <- main live_job.c:$(line_of 'void \*s = steady();')" \
    "the row without --alloc-fn"
exec 3>&-
wait "$job" || fail "the job's status $?"
job=

msg="gpuleak-top: --alloc-fn needs a function name (a glob: 'my_alloc', 'Arena::*') (try --help)"
for args in "--alloc-fn=" "--alloc-fn"; do
    rc=0; "$TOP" --once $args >out.txt 2>err.txt || rc=$?
    expect_eq "$rc" 2 "status of $args"
    expect_eq "$(cat err.txt)" "$msg" "message of $args"
    expect_eq "$(cat out.txt)" "" "stdout of $args"
done
rc=0; "$LAUNCHER" top --alloc-fn >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 2 "gpuleak top --alloc-fn's status"
expect_eq "$(cat err.txt)" "gpuleak: top: --alloc-fn needs a value" "gpuleak top --alloc-fn's message"
echo ok
