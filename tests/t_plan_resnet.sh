# gpuleak plan on a ResNet-18-shaped network with cuDNN on (issue 44,
# item 5; tests/programs/plan_resnet.py: Conv2d, BatchNorm2d, max pooling,
# basic blocks 64-512, a Linear head, AdamW, 224x224 images) at batch 1
# and 2 on an h100-sxm-80gb profile: in the same run the plan's peaks are
# torch's own max_memory_allocated / _reserved (the script prints them
# after its 2 steps), and those are the bytes pinned in
# tests/programs/plan_models.peaks (deterministic; that file says how to
# regenerate them).  Before: "can't open file .../plan_resnet.py".
source "$ROOT/tests/lib.sh"
torch_real_setup

"$LAUNCHER" plan --gpu h100-sxm-80gb --steps 0 --keep runs --json plan.json --sweep batch=1,2 \
    -- "$PY" "$ROOT/tests/programs/plan_resnet.py" --batch '{batch}' --steps 2 >table.txt 2>progress.txt ||
    fail "plan exited $?: $(tail -3 progress.txt)"
for b in 1 2; do
    plan_expect_pinned batch $b "resnet --batch $b --steps 2"
done
