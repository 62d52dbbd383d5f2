# gpuleak attach PID / detach PID (docs/attach.md): a program started
# without gpuleak, on fakecuda's shared runtime and again linked with its
# static runtime, calling the driver directly,
# through a pointer it dlsym'd before the attach and through one dlsym'd
# after, is attached to, made to leak, snapshotted, detached, made to leak
# again, attached to again and snapshotted.  Leaks made while attached are
# found at their exact lines; one made while detached is not seen; the free
# of memory made before the attach is no bad free, and the ledger's "made
# before attach" row is exact; the program's output and exit status are
# those of a run without any attach.
source "$ROOT/tests/lib.sh"
need_gdb_attach
export LD_LIBRARY_PATH=$FAKECUDA
SRC=$ROOT/tests/programs/attach_target.c
line_of() { grep -n "$1" "$SRC" | cut -d: -f1; }

# start NAME: the target in the background reading commands from fd 3.
start() { target_start "$1" 200 "$T"; }
send() { target_send "$@"; }
finish() { target_finish; }
sigcgt_usr1() { (( (16#$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status") >> 9) & 1 )) && echo yes || echo no; }

# scenario PROGRAM RT_API: the whole story on one build of the target;
# RT_API: how its cudaMalloc is recorded (the static runtime's calls
# between its own functions are direct: its driver table is reached).
scenario() {
    T=$TPROG/$1
    local rt_api=$2
    mkdir "$1"
    cd "$1"
    # The run without any attach.
    start plain
    send plain "rt 1000" "drv 2000" "early 3000" "late 4000" "free-pre" "rt 5000" "rt 6000"
    finish
    plain_rc=$rc

    # The same commands, attached to between them.
    mkdir snaps
    start attached
    [ "$(sigcgt_usr1 "$pid")" = no ] || fail "SIGUSR1 caught before the attach"
    "$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "attach: $(cat attach.err)"
    expect_eq "$(cat attach.err)" "gpuleak: attached to process $pid; snapshots: $PWD/snaps/ ('gpuleak snapshot $pid', 'gpuleak detach $pid')" "attach's line"
    [ "$(sigcgt_usr1 "$pid")" = yes ] || fail "SIGUSR1 not caught after the attach"
    grep -q 'libgpuleak\.so' "/proc/$pid/maps" || fail "libgpuleak.so not loaded"
    send attached "rt 1000" "drv 2000" "early 3000" "late 4000" "free-pre"
    snap=$("$LAUNCHER" snapshot "$pid") || fail "snapshot of the attached process"
    expect_eq "$snap" "$PWD/snaps/gpuleak.$pid.0.snap" "snapshot's name"
    last=$("$LAUNCHER" detach "$pid" 2>detach.err) || fail "detach: $(cat detach.err)"
    expect_eq "$last" "$PWD/snaps/gpuleak.$pid.1.snap" "detach's snapshot"
    [ "$(sigcgt_usr1 "$pid")" = no ] || fail "SIGUSR1 still caught after the detach"
    for t in /proc/"$pid"/task/*; do
        case $(cat "$t/comm") in gpuleak-writer|gpuleak-fatal) fail "gpuleak's $(cat "$t/comm") thread outlived the detach" ;; esac
    done
    send attached "rt 5000"
    # Again: what was made while detached is not seen.
    "$LAUNCHER" attach --output snaps/ "$pid" 2>attach2.err || fail "second attach: $(cat attach2.err)"
    send attached "rt 6000"
    again=$("$LAUNCHER" snapshot "$pid") || fail "snapshot after the second attach"
    "$LAUNCHER" detach "$pid" >/dev/null 2>&1 || fail "second detach"
    finish
    attached_rc=$rc

    expect_eq "$attached_rc" "$plain_rc" "exit status"
    expect_eq "$plain_rc" 7 "the program's own exit status"
    cmp -s plain.out attached.out || fail "the program's output differs: $(diff plain.out attached.out)"
    cmp -s plain.err attached.err || fail "the program's stderr differs: $(diff plain.err attached.err)"

    # Leaks after the attach, each at its line.
    leaks() { "$REPORT" --json "$1" >"$1.json"; jget "$1.json" '" ".join("%d/%d:%s:%s:%d" % (l["bytes"], l["count"], l["api"], l["frames"][0]["function"], l["frames"][0]["line"]) for l in sorted(d["leaks"], key=lambda l: l["bytes"]))'; }
    drv="2000/1:cuMemAlloc_v2:leak_drv:$(line_of LEAK_DRV) 3000/1:cuMemAlloc_v2:leak_early:$(line_of LEAK_EARLY) 4000/1:cuMemAlloc_v2:leak_late:$(line_of LEAK_LATE)"
    want="1000/1:$rt_api:leak_rt:$(line_of LEAK_RT) $drv"
    expect_eq "$(leaks "$snap")" "$want" "leaks while attached"
    expect_eq "$(leaks "$last")" "$want" "leaks in the detach's snapshot"
    expect_eq "$(jget "$last.json" 'd["snapshot"]["reason"]')" detach "the detach snapshot's reason"
    # 5000 was made while detached: never seen.  6000 after the second attach,
    # from the same stack as 1000; the first attach's are dropped at its
    # detach (the second attach starts afresh, tests/t_attachfresh.sh).
    expect_eq "$(leaks "$again")" "6000/1:$rt_api:leak_rt:$(line_of LEAK_RT)" "leaks after attaching again"

    # The free of the 2 MiB made before the attach: no bad free; the ledger's
    # row is the driver's used memory at the attach (the program printed it)
    # less those 2 MiB.
    used=$(sed -n 's/^used //p' plain.out)
    expect_eq "$(jget "$snap.json" 'd["devices"][0]["unknown_free_count"]')" 0 "frees of unknown pointers"
    expect_eq "$(jget "$snap.json" 'len(d.get("bad_frees") or [])')" 0 "bad frees"
    expect_eq "$(jget "$snap.json" '"%(bytes)d %(used_at_attach_bytes)d %(freed_bytes)d %(frees)d" % d["ledger"][0]["before_attach"]')" \
        "$((used - 2097152)) $used 2097152 1" "ledger's before-attach row"
    "$REPORT" --sections ledger "$snap" >ledger.txt
    grep -q "^ *$(python3 -c "print(f'{$((used - 2097152)):,}')") .*made before attach (gpuleak attach), CUDA context(s) included\$" ledger.txt ||
        fail "the ledger's text row: $(cat ledger.txt)"
    cd ..
}

scenario attach_target cudaMalloc
scenario attach_target_static cuMemAlloc_v2
echo ok
