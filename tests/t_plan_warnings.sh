# gpuleak plan's warnings (issue 44, item 4): a script that reads a device
# value (.item(), every step), makes a second CUDA stream and calls
# torch.compile (tests/programs/plan_warnings.py) gets exactly those three
# warnings, once each, with the script's lines, after the table and in the
# JSON; torch.compile is named at its call, whether or not it can compile
# here.  Before: no "warnings" in the JSON, no warning lines.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/plan_warnings.py
"$LAUNCHER" plan --gpu h100-sxm-80gb --steps 2 --json plan.json --sweep b=1 \
    -- "$PY" "$prog" '{b}' >table.txt 2>progress.txt || fail "plan exited $?: $(tail -3 progress.txt)"
expect_eq "$(jget plan.json '[(w["kind"], w["file"], w["line"]) for w in d["runs"][0]["warnings"]]')" \
    "[[\"stream\", \"$prog\", 8], [\"compile\", \"$prog\", 10], [\"item\", \"$prog\", 15]]" "the warnings"
expect_eq "$(grep '^warning: ' table.txt | cut -d: -f2-4)" " $prog:8: torch.cuda.Stream() creates another CUDA stream
 $prog:10: torch.compile
 $prog:15: Tensor.item() reads a device value" "the warning lines"
expect_eq "$(jget plan.json 'd["runs"][0]["warnings"][2]["message"]')" \
    "Tensor.item() reads a device value: fakecuda's kernels compute nothing, so the value is 0 and data-dependent shapes or branches may differ from the card" "the .item() warning's words"
