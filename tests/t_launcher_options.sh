# gpuleak run checks every option before the command starts, by the
# library's rules, naming the flag (exit 2, the command never runs); at the
# end it says on stderr which snapshots were written and how to read them,
# as a command that works when pasted (--quiet: nothing); the command's
# status is passed on, a death by signal as that signal; the Python helper
# imports with no setup; `gpuleak snapshot` takes the launcher's pid.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK

# refused FLAG VALUE REASON: exit 2, exactly that line, the command not run.
refused() {
    local rc=0
    "$LAUNCHER" run "$1" "$2" -- touch ran >out 2>err || rc=$?
    expect_eq "$rc" 2 "status with $1 $2"
    expect_eq "$(cat err)" "gpuleak: run: $1 $2: $3" "message with $1 $2"
    [ ! -e ran ] || fail "the command ran with $1 $2"
}
refused --interval 5x "not a duration from 100ms to 30 days (e.g. 90s, 10m, 2h), or 0 for off"
refused --interval 50ms "not a duration from 100ms to 30 days (e.g. 90s, 10m, 2h), or 0 for off"
refused --interval 31d "not a duration from 100ms to 30 days (e.g. 90s, 10m, 2h), or 0 for off"
refused --keep 1 "expected 0 (keep all) or 2 to 10000"
refused --keep 10001 "expected 0 (keep all) or 2 to 10000"
refused --depth 999 "expected 0 to 256 frames"
refused --depth -1 "expected 0 to 256 frames"
refused --signal FOO "not a signal name (USR1, USR2, HUP, PWR, WINCH, URG, RTMIN+N) or number, or none"
refused --signal KILL "SIGKILL cannot be caught"
refused --signal 19 "SIGSTOP cannot be caught"
refused --signal SIGSEGV "a crash signal cannot ask for snapshots"
refused --output nodir/x.snap "no directory nodir"
refused --output missing/ "no directory missing"
refused --output 'x%z.snap' "unknown conversion '%z' (known: %p %h %r %n %t %%)"
mkdir ro && chmod 0555 ro
if [ ! -w ro ]; then refused --output ro/ "directory ro is not writable"; fi
# --torch-per-tensor: PyTorch's cudaMallocAsync backend, merged with the
# user's settings; a contrary backend refused before the command starts.
torch_conf() { # VALUE-OR-UNSET: what the command sees
    if [ "$1" = unset ]; then
        env -u PYTORCH_CUDA_ALLOC_CONF "$LAUNCHER" run --quiet --torch-per-tensor -- sh -c 'echo "[${PYTORCH_CUDA_ALLOC_CONF-unset}]"'
    else
        PYTORCH_CUDA_ALLOC_CONF=$1 "$LAUNCHER" run --quiet --torch-per-tensor -- sh -c 'echo "[${PYTORCH_CUDA_ALLOC_CONF-unset}]"'
    fi
}
expect_eq "$(torch_conf unset)" "[backend:cudaMallocAsync]" "--torch-per-tensor alone"
expect_eq "$(torch_conf 'expandable_segments:False,max_split_size_mb:128')" \
    "[expandable_segments:False,max_split_size_mb:128,backend:cudaMallocAsync]" "--torch-per-tensor merged"
expect_eq "$(torch_conf 'backend:cudaMallocAsync')" "[backend:cudaMallocAsync]" "--torch-per-tensor, already so"
expect_eq "$(torch_conf 'garbage_collection_threshold:0.6, backend:cudaMallocAsync')" \
    "[garbage_collection_threshold:0.6, backend:cudaMallocAsync]" "--torch-per-tensor, already so after a space"
rc=0
PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:64,backend:native "$LAUNCHER" run --torch-per-tensor -- touch ran >out 2>err || rc=$?
expect_eq "$rc" 2 "status with a contrary backend"
expect_eq "$(cat err)" "gpuleak: run: --torch-per-tensor: PYTORCH_CUDA_ALLOC_CONF already sets backend:native (per-tensor tracking needs backend:cudaMallocAsync)" \
    "message with a contrary backend"
rc=0
PYTORCH_ALLOC_CONF=backend:native "$LAUNCHER" run --torch-per-tensor -- touch ran >out 2>err || rc=$?
expect_eq "$rc" 2 "status with a contrary PYTORCH_ALLOC_CONF"
[ ! -e ran ] || fail "the command ran with a contrary backend"

# Good values (the library's syntax) run the command.
"$LAUNCHER" run --quiet --interval 90s --keep 0 --depth 0 --signal rtmin+2 --output 'o-%p-%%.snap' -- touch ran
[ -e ran ] || fail "the command did not run with good options"

# The end line: the snapshot's name and a command that reads it, run here
# as printed.
rc=0; "$LAUNCHER" run -- "$TPROG/scenarios" leak-runtime >out 2>err || rc=$?
expect_eq "$rc" 0 "status"
snap=$(ls gpuleak.*.0.snap)
expect_eq "$(cat err)" "gpuleak: wrote $snap; read it with: $LAUNCHER report $snap" "end line"
cmd=$(sed -n 's/.*; read it with: //p' err)
eval "$cmd" >report.txt
grep -qx '2,097,152 bytes (2.0 MiB) in 2 allocations: device memory on device 0 (cudaMalloc), not freed at exit' report.txt ||
    fail "the printed command's report: $(head -5 report.txt)"
# Several processes; a directory with a space; the command pasted again.
mkdir 'my snaps'
"$LAUNCHER" run --output 'my snaps/' -- "$TPROG/scenarios" fork >/dev/null 2>err
n=$(ls 'my snaps' | wc -l)
expect_eq "$n" 2 "snapshots of fork"
grep -qx "gpuleak: wrote 2 snapshots, one per process (my snaps/gpuleak\.[0-9]*\.0\.snap, my snaps/gpuleak\.[0-9]*\.0\.snap); compare them with: $LAUNCHER merge my\\\\ snaps/gpuleak\.[0-9]*\.0\.snap my\\\\ snaps/gpuleak\.[0-9]*\.0\.snap" err ||
    fail "end line of two processes: $(cat err)"
eval "$(sed -n 's/.*; compare them with: //p' err)" >/dev/null || fail "the printed command failed"
# --quiet: nothing; no CUDA: one line saying so.
rm -f gpuleak.*.snap
"$LAUNCHER" run --quiet -- "$TPROG/scenarios" leak-runtime >/dev/null 2>err
expect_eq "$(cat err)" "" "stderr with --quiet"
rc=0; "$LAUNCHER" run -- sh -c 'exit 7' 2>err || rc=$?
expect_eq "$rc" 7 "the command's status"
# (what run saw, from the processes' marks: no guess; t_run_no_snapshot)
expect_eq "$(cat err)" "gpuleak: no snapshot was written: the command made no CUDA call gpuleak saw" "no-CUDA line"
rc=0; "$LAUNCHER" run --output "$PWD/abs.%p.snap" -- sh -c 'exit 0' 2>err || rc=$?
expect_eq "$(cat err)" "gpuleak: no snapshot was written: the command made no CUDA call gpuleak saw" "no-CUDA line, absolute pattern"
# A broken stderr costs nothing: the command's status is kept.
rc=0; bash -c '"$1" run -- "$2" leak-runtime 2>&1 >/dev/null | true; echo "${PIPESTATUS[0]}"' sh "$LAUNCHER" "$TPROG/scenarios" >st.txt
expect_eq "$(cat st.txt)" 0 "status with a closed stderr pipe"
# A death by signal is the launcher's death by the same signal.
rc=0; bash -c '"$1" run --quiet -- sh -c "kill -TERM \$\$" 2>/dev/null; echo $?' sh "$LAUNCHER" >st.txt
expect_eq "$(cat st.txt)" 143 "killed by SIGTERM (--quiet)"
rc=0; bash -c '"$1" run -- sh -c "kill -TERM \$\$" 2>/dev/null & wait $!; echo $?' sh "$LAUNCHER" >st.txt
expect_eq "$(cat st.txt)" 143 "killed by SIGTERM"
# SIGTERM sent to the launcher reaches the command, and the end line comes.
"$LAUNCHER" run -- "$TPROG/churn" 2 10 20000 >ready.txt 2>err &
pid=$!
wait_for -t 10 "churn to be ready" grep -q ready ready.txt
# gpuleak snapshot takes the launcher's pid too.
name=$("$LAUNCHER" snapshot "$pid") || fail "snapshot of the launcher's pid"
[ -f "$name" ] || fail "snapshot printed '$name'"
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
expect_eq "$rc" 143 "launcher's status after SIGTERM"
grep -q '^gpuleak: wrote 2 snapshots' err || fail "end line after SIGTERM: $(cat err)"

# The Python helper: importable with no setup, after the user's own path.
mkdir mine
echo 'X = 1' >mine/own.py
PYTHONPATH=$PWD/mine "$LAUNCHER" run --quiet -- python3 -c 'import own, gpuleak_memory, sys; print(gpuleak_memory.__name__, sys.path.index("'"$PWD"'/mine") < [i for i, p in enumerate(sys.path) if p.endswith("/lib/python")][0])' >py.txt
expect_eq "$(cat py.txt)" "gpuleak_memory True" "import gpuleak_memory under gpuleak run"
