# The library and another copy of itself in one process (issue 48, item
# 8), told by the entry points a copy exports, not by its file name.
# In-process (no gdb), so that the sanitizers see it too.
# - A renamed copy in front of the program's lookups (as preloaded):
#   libgpuleak.so, loaded as the attach loads it, refuses as preloaded (2);
#   nothing is attached, CUDA calls go on, no snapshot is written.
#   Before: the attach went ahead on top of the other copy, taking its
#   hooks for the real functions, and the program died of SIGSEGV (a
#   process that preloaded a renamed copy crashed at `gpuleak attach`).
# - Two copies attaches loaded (two installations): while one is attached
#   the other is refused as tracked already (1), and once it is detached,
#   as another copy loaded (8): the two copies' hooks, each exported under
#   the real names, would take each other for the real functions (tried:
#   endless recursion in cuGetProcAddress).  One detach snapshot, the
#   first copy's.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
cp "$LIBGPULEAK_SO" libother.so
mkdir snaps
"$TPROG/attach_twocopies" global "$LIBGPULEAK_SO" "$PWD/libother.so" "$PWD/snaps/" >out.txt 2>err.txt || fail "program: $? $(cat err.txt)"
expect_eq "$(cat out.txt)" "lib 2
slots -1
malloc 0" "a renamed copy in front: the program's output"
expect_eq "$(ls snaps)" "" "a renamed copy in front: snapshots"
"$TPROG/attach_twocopies" local "$LIBGPULEAK_SO" "$PWD/libother.so" "$PWD/snaps/" >out.txt 2>err.txt || fail "program: $? $(cat err.txt)"
expect_eq "$(cat out.txt)" "copy 0
lib 1
copy end 0
lib again 8
lib end 6" "two copies loaded by attaches: the program's output"
expect_eq "$(ls snaps | wc -l)" 1 "two copies loaded by attaches: detach snapshots"
# A renamed copy preloaded, and the attach's entry point called as gdb
# calls it: the thread it starts runs this copy's attach, which refuses as
# preloaded (2).  Before: its call to the exported gpuleak_attach_begin
# bound to the preloaded copy's, which took this copy for one loaded by an
# earlier attach.
LD_PRELOAD=$PWD/libother.so "$TPROG/attach_twocopies" start "$LIBGPULEAK_SO" "$PWD/status" "$PWD/snaps/" >out.txt 2>err.txt ||
    fail "program: $? $(cat err.txt)"
expect_eq "$(cat out.txt)" "start 0
status 2 " "a renamed copy preloaded, the attach as gdb starts it: the program's output"
echo ok
