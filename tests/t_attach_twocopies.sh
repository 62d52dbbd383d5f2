# The library refuses an attach while another copy of libgpuleak is in the
# process, whatever that copy's file is called (issue 48, item 8): told by
# the entry point it exports, not by its name.  In-process (no gdb), so
# that the sanitizers see it too: a renamed copy loaded first, then
# libgpuleak.so as the attach loads it; each refuses as preloaded (2),
# nothing is attached, CUDA calls go on, no snapshot is written.  Before:
# the attach went ahead on top of the other copy (a process that preloaded
# a renamed copy crashed at the attach, or was attached twice and could
# never be detached).
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
cp "$LIBGPULEAK_SO" libother.so
mkdir snaps
"$TPROG/attach_twocopies" "$LIBGPULEAK_SO" "$PWD/libother.so" "$PWD/snaps/" >out.txt 2>err.txt || fail "program: $? $(cat err.txt)"
expect_eq "$(cat out.txt)" "lib 2
slots -1
copy 2
malloc 0" "the program's output"
expect_eq "$(ls snaps)" "" "snapshots"
echo ok
