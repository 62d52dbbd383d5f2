# Sourced by tests/t_torch_real_oom_kinds.sh and t_torch_real_oom_others.sh
# (after tests/lib.sh): real torch on a 64 MiB fakecuda device running
# tests/programs/torch_real_oom_kinds.py one way at a time, and the
# classification PyTorch's own out-of-memory snapshot gets.
torch_real_env
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
