# The demo's commands can be pasted as printed: every "$ ..." line it shows,
# and the command in gpuleak run's end line, run from the repository root
# as shown, succeed and give what the demo showed.
source "$ROOT/tests/lib.sh"
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
"$ROOT/scripts/demo.sh" "$BUILD" >demo.out 2>&1 || fail "demo failed: $(tail -5 demo.out)"
grep '^\$ ' demo.out | cut -c3- >cmds.txt
expect_eq "$(wc -l <cmds.txt)" 3 "commands shown"
sed -n 's/^gpuleak: wrote .*; read it with: //p' demo.out >>cmds.txt
expect_eq "$(wc -l <cmds.txt)" 4 "commands shown, with the end line's"
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    (cd "$ROOT" && eval "$cmd") >"cmd$i.out" 2>"cmd$i.err" </dev/null || fail "command $i failed: $cmd: $(cat "cmd$i.err")"
done <cmds.txt
# The pasted run wrote a second snapshot next to the first; the reports
# (commands 2 and 4, the same file) are the demo's own.
expect_eq "$(ls "$BUILD"/demo/gpuleak.*.snap | wc -l)" 2 "snapshots after pasting the run"
sed -n '/^==== gpuleak report/,/^== in short/p' demo.out | sed '$d;$d' >shown.txt
diff <(head -20 shown.txt) <(head -20 cmd2.out) >/dev/null || fail "the pasted report differs from the demo's"
cmp -s cmd2.out cmd4.out || fail "the end line's command reads another report"
grep -q '"leaks"' cmd3.out || fail "the pasted --json command"
