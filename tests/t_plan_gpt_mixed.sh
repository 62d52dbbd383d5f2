# gpuleak plan on tests/programs/plan_gpt.py (t_plan_gpt.sh) at batch 4
# with bf16 autocast (SDPA on a fused bf16 backend) and with fused AdamW
# (issue 44, item 5): in the same run the plan's peaks are torch's own
# max_memory_allocated / _reserved, the bytes pinned in
# tests/programs/plan_models.peaks.  Before: "can't open file
# .../plan_gpt.py".
source "$ROOT/tests/lib.sh"
torch_real_setup

plan_gpt_variants bf16 fused
