# Out of memory, classified (issue 45, item 7), on real PyTorch 2.14.1 over
# fakecuda with a 64 MiB device: the other two ways of
# tests/programs/torch_real_oom_kinds.py (tests/t_torch_real_oom_kinds.sh
# has the first two and says how): memory another process holds, and
# PyTorch's own per-process memory fraction.
source "$ROOT/tests/lib.sh"
skip_under_san "the launcher preloads libgpuleak.so alone, and torch's libraries are not sanitized"
PY=$("$ROOT/scripts/torch-env.sh") || skip_if true "$PY"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH=$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
prog=$ROOT/tests/programs/torch_real_oom_kinds.py
MiB=$((1 << 20))

# run WAY [VAR=value...]: the program in its own directory WAY; its
# printed line in WAY/out.txt, PyTorch's out-of-memory snapshot's text and
# JSON reports in WAY/torch.txt and WAY/torch.json.
run() {
    local way=$1
    shift
    mkdir "$way"
    (cd "$way" && env "$@" "$FAKECUDA/fakecuda-run" --devices 1 --mem $((64 * MiB)) -- \
        "$LAUNCHER" run -- "$PY" "$prog" "$way" >out.txt 2>err.txt) || fail "$way: run exited $?: $(tail -3 "$way/err.txt")"
    local snap
    for snap in "$way"/gpuleak.*.snap; do
        "$REPORT" --json "$snap" >"$way/r.json" || fail "$way: report of $snap: exit $?"
        if [ "$(jget "$way/r.json" 'd["out_of_memory"]["torch"] is not None')" = True ]; then
            mv "$way/r.json" "$way/torch.json"
            "$REPORT" "$snap" >"$way/torch.txt" || fail "$way: text report of $snap"
            return
        fi
    done
    fail "$way: no snapshot from PyTorch's out-of-memory observer: $(ls "$way")"
}
kind_line() { grep '^    kind: ' "$1/torch.txt" | head -1; }

# Another process holds 40 MiB: one 12 MiB tensor fits in the 20 left.
run elsewhere FAKECUDA_OTHER_USED=$((40 * MiB))
expect_eq "$(kind_line elsewhere)" \
    "    kind: held by other processes or contexts: the driver's used 58,720,256 - this process's own 12,582,912 = 46,137,344 bytes, at least the 4,194,304 missing" \
    "elsewhere: the kind line"

# PyTorch's per-process memory fraction allows 16 MiB: the second 12 MiB
# tensor is refused with 48 MiB free on the device, and no cudaMalloc
# failed.
run setting
expect_eq "$(kind_line setting)" \
    "    kind: an allocator setting: PyTorch may use 16,777,216 bytes of the device's 67,108,864 (torch.cuda.set_per_process_memory_fraction), and 50,331,648 were free for the 12,582,912 asked" \
    "setting: the kind line"
expect_eq "$(jget setting/torch.json 'd["out_of_memory"]["failed_count"], len(d["out_of_memory"]["events"])')" "(0, 0)" \
    "setting: no CUDA call failed"
