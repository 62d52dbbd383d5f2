# gpuleak plan on tests/programs/plan_gpt.py (t_plan_gpt.sh) at batch 4
# with bf16 autocast (SDPA on a fused bf16 backend) and with fused AdamW
# (issue 44, item 5): in the same run the plan's peaks are torch's own
# max_memory_allocated / _reserved, the bytes pinned in
# tests/programs/plan_models.peaks.  Before: "can't open file
# .../plan_gpt.py".
source "$ROOT/tests/lib.sh"
torch_real_setup

"$LAUNCHER" plan --gpu h100-sxm-80gb --steps 0 --keep runs --json plan.json --sweep variant=bf16,fused \
    -- "$PY" "$ROOT/tests/programs/plan_gpt.py" --batch 4 --steps 2 --variant '{variant}' >table.txt 2>progress.txt ||
    fail "plan exited $?: $(tail -3 progress.txt)"
for v in bf16 fused; do
    plan_expect_pinned variant $v "gpt --batch 4 --steps 2 --variant $v"
done
