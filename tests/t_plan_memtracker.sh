# How a plan differs from PyTorch's MemTracker (issue 44, item 5;
# docs/plan.md): the GPT of tests/programs/plan_gpt.py at batch 1, 2 AdamW
# steps, inside torch.distributed._tools.mem_tracker.MemTracker on an
# h100-sxm-80gb profile.  MemTracker counts the tensors it sees at dispatch,
# each rounded to 512 bytes as the caching allocator rounds; torch's
# max_memory_allocated in the same run is that + the cuBLAS workspaces
# torch takes from its caching allocator outside any tensor: one per
# (handle, stream) -- the main thread's and autograd's backward thread's --
# of 32 MiB on sm90, or what CUBLAS_WORKSPACE_CONFIG says (:4096:2 is 2 x
# 4 MiB): the difference is 2 x 32 MiB, then 2 x 8 MiB, to the byte, and
# MemTracker's own figure does not move.  MemTracker changes nothing torch
# allocates: the allocated peak is the one pinned for a run without it.
# Before: "can't open file .../plan_gpt.py" (and MemTracker refuses a
# second iteration unless reset_mod_stats is called after each step).
source "$ROOT/tests/lib.sh"
torch_real_setup
MiB=$((1 << 20))

tracked() { # NAME [VAR=VALUE...]: one run, "memtracker" and "peaks" lines in NAME.out
    local name=$1
    shift
    env "$@" "$FAKECUDA/fakecuda-run" --gpu h100-sxm-80gb --drop-copies --devices 1 -- \
        "$PY" "$ROOT/tests/programs/plan_gpt.py" --batch 1 --steps 2 --memtracker >"$name.out" 2>"$name.err" ||
        fail "$name: exit $?: $(tail -3 "$name.err")"
}
tracked default
tracked small CUBLAS_WORKSPACE_CONFIG=:4096:2
read -r tracker <<<"$(awk '$1 == "memtracker" { print $2 }' default.out)"
read -r alloc _ <<<"$(awk '$1 == "peaks" { print $2, $3 }' default.out)"
read -r tracker_small <<<"$(awk '$1 == "memtracker" { print $2 }' small.out)"
read -r alloc_small _ <<<"$(awk '$1 == "peaks" { print $2, $3 }' small.out)"
[ -n "$tracker" ] && [ -n "$alloc" ] || fail "no figures: $(cat default.out)"
expect_eq "$alloc" "$(sed -n 's/^gpt --batch 1 --steps 2 --variant fp32 : \([0-9]*\) .*/\1/p' "$ROOT/tests/programs/plan_models.peaks")" \
    "torch's allocated peak under MemTracker against a run without it"
expect_eq "$((alloc - tracker))" "$((2 * 32 * MiB))" "torch - MemTracker, 32 MiB workspaces"
expect_eq "$tracker_small" "$tracker" "MemTracker's peak with smaller workspaces"
expect_eq "$((alloc_small - tracker_small))" "$((2 * 8 * MiB))" "torch - MemTracker, 8 MiB workspaces"
