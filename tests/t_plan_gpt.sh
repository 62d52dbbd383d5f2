# gpuleak plan on a model that is a model (issue 44, item 5): a 4-layer GPT
# (tests/programs/plan_gpt.py: embeddings, LayerNorm, Linear, causal SDPA,
# GELU MLP, AdamW; d_model 256, seq 128, vocab 8192) at batch 4, plain fp32
# and with activation checkpointing per block, swept by `--sweep
# variant=...` on an h100-sxm-80gb profile.  The script trains 2 steps
# itself and prints torch's own max_memory_allocated / _reserved; in the
# same run the plan's peaks are those bytes, and they are the bytes pinned
# in tests/programs/plan_models.peaks (kernels compute nothing, so a run
# gives the same bytes every time; that file says how to regenerate them).
# Checkpointing lowers the allocated peak below plain fp32's.  bf16
# autocast and fused AdamW: t_plan_gpt_mixed.sh.  Before: "can't open file
# .../plan_gpt.py".
source "$ROOT/tests/lib.sh"
torch_real_setup

plan_gpt_variants fp32 checkpoint
plain=$(jget plan.json "[r['peak_allocated'] for r in d['runs'] if r['values']['variant'] == 'fp32'][0]")
ckpt=$(jget plan.json "[r['peak_allocated'] for r in d['runs'] if r['values']['variant'] == 'checkpoint'][0]")
[ "$ckpt" -lt "$plain" ] || fail "checkpointing did not lower the allocated peak: $ckpt against $plain"
