# The library's side of gpuleak attach without gdb (docs/attach.md): a
# program loads libgpuleak.so itself (dlopen RTLD_NOW, as gdb does) and
# calls gpuleak_attach_begin/_end.  While attached, cudaMalloc's GOT slot
# holds the hook and the leak is found at its line; a second begin is
# refused (1); the free of memory made before is counted as such, no bad
# free; the end puts the slot back (the program sees the runtime's
# cudaMalloc again), writes a snapshot (reason detach) and a second end is
# refused (6); the leak after it is not seen.  A library whose slots the
# attach wrote and that is unloaded before the end is skipped by it (its
# pages are gone); a library loaded after the attach gets the hooks in its
# slots at the writer's next tick, and its leak is found at its line.  Runs under the sanitizers
# too, which the gdb tests cannot.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
src=$ROOT/tests/programs/attach_inproc.c
line() { grep -n "LEAK-LINE: $1" "$src" | cut -d: -f1; }
mkdir snaps
"$TPROG/attach_inproc" "$LIBGPULEAK_SO" "$PWD/snaps/" "$TPROG/runtime_kinds_plugin.so" "$TPROG/attach_plugin.so" >out.txt 2>err.txt || fail "program: $? $(cat err.txt)"
snap=$PWD/snaps/gpuleak.$(sed -n 's/^snapshot .*gpuleak\.\([0-9]*\)\.0\.snap$/\1/p' out.txt).0.snap
expect_eq "$(cat out.txt)" "begin 0
again 1
slots some
hooked 1
unload 0
gone 1
late plugin reached 1
late leak 0
leak 0
free-pre 0
end 0
end again 6
slots -1
restored 1
leak 0
snapshot $snap" "the program's output"
"$REPORT" --json "$snap" >snap.json
check_json snap.json <<PY
eq(d["snapshot"]["reason"], "detach", "reason")
got = sorted((l["bytes"], l["count"], frame(l["frames"][0])) for l in leaks)
eq(got, [(1000, 1, "main attach_inproc.c:$(line attached)"),
         (3000, 1, "attach_plugin_leak attach_plugin.c:$(grep -n 'LEAK-LINE: plugin' "$ROOT/tests/programs/attach_plugin.c" | cut -d: -f1)")], "leaks")
eq(devices[0]["unknown_free_count"], 0, "frees of unknown pointers")
b = d["ledger"][0]["before_attach"]
eq((b["freed_bytes"], b["frees"]), (2097152, 1), "the free of the 2 MiB made before")
PY
echo ok
