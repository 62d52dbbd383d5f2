# Real PyTorch 2.14.1 under `gpuleak run --torch-per-tensor` (issue 33),
# on fakecuda (tests/t_torch_real.sh says how torch runs here): PyTorch's
# cudaMallocAsync backend makes every tensor a cudaMallocAsync, so
# gpuleak's live pool allocations at the requested snapshot are exactly
# torch's tensors: their sizes, each rounded up to 512 bytes as that
# backend counts them, add up to torch.cuda.memory_allocated().  The
# planted line holds its 3 tensors, and the run ends (no hang).  That
# backend keeps no blocks (its _snapshot() raises), so gpuleak does not ask
# for them: no PYTORCH'S CACHE section saying "_snapshot() failed".
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_per_tensor.py
planted=$(site_line torch_real_per_tensor.py PLANTED-LINE)

guard 60 "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --torch-per-tensor -- "$PY" "$prog" >out.txt 2>err.txt ||
    fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
read -r _ backend _ allocated <out.txt
expect_eq "$backend" cudaMallocAsync "torch's allocator backend"

"$REPORT" --json per_tensor.snap >r.json || fail "report --json: exit $?"
# Per group (one stack, one size): count x its size rounded up to 512; and
# the planted line's group.
got=$(python3 - "$planted" <<'PY'
import json, sys
d = json.load(open("r.json"))
groups = d["leaks"]
assert all(g["kind"] == "pool" and g["api"] == "cudaMallocAsync" for g in groups), groups
assert all(g["bytes"] % g["count"] == 0 for g in groups)
counted = sum(g["count"] * -(-(g["bytes"] // g["count"]) // 512) * 512 for g in groups)
planted = [(g["bytes"], g["count"]) for g in groups
           if g["frames"] and (g["frames"][0]["file"] or "").endswith("/torch_real_per_tensor.py")
           and g["frames"][0]["line"] == int(sys.argv[1])]
print(counted, sum(g["count"] for g in groups), planted, d["torch"]["status"])
PY
) || fail "reading the JSON report"
# w, its gradient, SGD's momentum, the last input, the last loss, and the 3 kept.
expect_eq "$got" "$allocated 8 [(1572864, 3)] absent" \
    "live tensors (bytes as torch counts them), their number, the planted line, torch blocks asked"
"$REPORT" per_tensor.snap >r.txt || fail "report: exit $?"
if grep -q "^PYTORCH'S CACHE" r.txt; then fail "$(sed -n "/^PYTORCH'S CACHE/,+1p" r.txt)"; fi
grep -Fq "#0 <module> (torch_real_per_tensor.py:$planted) [python]" r.txt ||
    fail "the planted line is not in the report"
