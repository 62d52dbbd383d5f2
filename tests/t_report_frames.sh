# Stacks end at main or at the thread's start function by default: the C
# library's start frames below them (_start, __libc_start_main,
# __libc_start_call_main; start_thread, clone3) are the same in every stack
# and are hidden in text, JSON, folded and HTML output, counted in JSON's
# start_frames; --all-frames keeps them.  peak_threads: a leak made in a
# thread (hold_in_thread <- worker), a block made from main (warm_peak).
source "$ROOT/tests/lib.sh"
traced "$TPROG/peak_threads" 2 10 || fail "peak_threads"
snap=$(only_snapshot)
hl=$(site_line peak_threads.c 'PEAK-SITE: hold_in_thread')
wl=$(grep -n 'blocks\[i\] = hold_in_thread' "$ROOT/tests/programs/peak_threads.c" | cut -d: -f1)
"$REPORT" "$snap" >r.txt
"$REPORT" --json "$snap" >r.json
"$REPORT" --all-frames --json "$snap" >a.json

# text: the leak's stack is its two frames, then the blank line
grep -A3 -x "    #0 hold_in_thread (peak_threads.c:$hl) \[peak_threads\]" r.txt | head -3 >leak.txt
printf '    #0 hold_in_thread (peak_threads.c:%s) [peak_threads]\n    #1 worker (peak_threads.c:%s) [peak_threads]\n\n' "$hl" "$wl" >want.txt
diff want.txt leak.txt || fail "text stack of the thread's leak"
grep -A2 -x "    #0 warm_peak (peak_threads.c:$(site_line peak_threads.c 'PEAK-SITE: warm_peak')) \[peak_threads\]" r.txt |
    tail -1 | grep -qx '' || fail "warm_peak's stack does not end at main"
# (frame lines only: the snapshot's path may hold "clone", as a CI checkout's does)
start_frames='^ *#[0-9]* \(start_thread\|__libc_start[a-z_]*\|_start\|clone3\?\|__clone[a-z0-9_]*\) '
grep -q "$start_frames" r.txt &&
    fail "start frames in the text report: $(grep -n -B3 "$start_frames" r.txt | head -12)"

check_json r.json <<PY
eq([frame(f) for f in leaks[0]["frames"]], ["hold_in_thread peak_threads.c:$hl", "worker peak_threads.c:$wl"], "leak frames")
eq(leaks[0]["start_frames"] >= 2, True, "start frames counted")
calls = {c["frames"][0]["function"]: c for c in d["allocation_calls"]["sites"]}
eq([f["function"] for f in calls["warm_peak"]["frames"]], ["warm_peak", "main"], "a stack from main ends at main")
eq(calls["warm_peak"]["start_frames"] >= 2, True, "main's start frames counted")
PY
check_json a.json <<PY
fs = [f["function"] for f in leaks[0]["frames"]]
eq(fs[:3], ["hold_in_thread", "worker", "start_thread"], "--all-frames: the thread's start frames kept")
eq(leaks[0]["start_frames"], 0, "--all-frames: none hidden")
calls = {c["frames"][0]["function"]: c for c in d["allocation_calls"]["sites"]}
eq([f["function"] for f in calls["warm_peak"]["frames"]][-1], "_start", "--all-frames: main's start frames kept")
PY

# folded and HTML alike
expect_eq "$("$REPORT" --folded leaks "$snap")" "device_0:device;worker;hold_in_thread 1048576" "folded"
"$REPORT" --folded leaks --all-frames "$snap" | grep -q '^device_0:device;[^ ]*start_thread;worker;hold_in_thread 1048576$' ||
    fail "folded with --all-frames"
"$REPORT" --html p.html "$snap"
"$REPORT" --all-frames --html q.html "$snap"
grep -q 'start_thread\|__libc_start' p.html && fail "start frames in the page"
grep -q '__libc_start_call_main' q.html || fail "--all-frames: start frames missing from the page"
exit 0
