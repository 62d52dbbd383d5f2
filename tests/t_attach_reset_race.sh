# The detach drops gpuleak's state while hooks handed out during the attach
# keep running (docs/attach.md "Detach"), in-process (no gdb), so that it
# runs under the sanitizers too: 4 threads call a cudaMalloc hook fetched
# with dlsym while attached, and cudaFree, without pause, through 20
# detaches and attaches.  Every attach and detach succeeds, no call fails,
# and once the threads are joined, 3 MiB allocated attached and freed
# detached, a last attach starts from nothing: its detach snapshot lists
# no live allocation (not the 3 MiB), counts no allocation or free and no
# bad free.  (A drop that
# freed memory a hook in flight then used is what ASan would report.)
source "$ROOT/tests/lib.sh"
# It is in the TSan phase: attaching again, with those hooks running, used
# to race with them (gl_config_load rewrote gl_config they read; the
# attach's gl_acct_touch wrote a device's `used` under its lock alone,
# which the writer's copies read under the lanes alone).
export LD_LIBRARY_PATH=$FAKECUDA
mkdir snaps
"$TPROG/attach_reset_race" "$LIBGPULEAK_SO" "$PWD/snaps/" >out.txt 2>err.txt || fail "program: $? $(cat err.txt)"
expect_eq "$(cat out.txt)" "handed out the hook 1
kept and freed 1
attaches 22 detaches 22
calls enough failed 0" "the program's counts"
last=snaps/$(ls snaps | sort -t. -k3,3n | tail -1) # gpuleak.PID.N.snap: the highest N
expect_eq "$(ls snaps/*.snap | wc -l)" 22 "one snapshot a detach"
"$REPORT" --json "$last" >last.json || fail "report of $last"
expect_eq "$(jget last.json 'd["snapshot"]["reason"]')" detach "the last snapshot's reason"
expect_eq "$(jget last.json 'len(d["leaks"])')" 0 "live allocations after the last, empty attach"
expect_eq "$(jget last.json '"%d %d %d" % tuple(sum(x[k] for x in d["devices"]) for k in ("live_bytes", "alloc_count", "free_count"))')" \
    "0 0 0" "live bytes, allocations and frees counted by the last attach"
expect_eq "$(jget last.json 'len(d.get("bad_frees") or [])')" 0 "bad frees"
echo ok
