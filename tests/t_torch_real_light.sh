# Real PyTorch 2.14.1 in light mode (GPULEAK_MODE=light, issue 36) with the
# cudaMallocAsync backend (`gpuleak run --torch-per-tensor`; on fakecuda,
# tests/t_torch_real.sh says how torch runs here): every tensor is one
# cudaMallocAsync, and its stack (the Python line) is captured for a sample
# chosen by bytes.  tests/programs/torch_real_light.py keeps one 64 KiB
# tensor per step at its planted line for 1,000 steps and drops a 32 KiB one
# per step at another.  With R = 256 KiB a 64 KiB tensor is sampled with
# p = 1 - e^-1/4 = 22.1%: the planted line is found with its line, the
# totals are exact (what torch.cuda.memory_allocated() says), and the
# line's estimate k x 64 KiB / p is within 24% (4 sigma: the relative
# standard deviation is sqrt((1-p)/(N p)) = 5.9% for N = 1,000) of the
# 65,536,000 bytes it holds.  Seed 1 samples the same tensors every run
# (k = 204, 130 of the dropped ones: the program and torch allocate in one
# order), so the figures are pinned too.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_light.py
planted=$(site_line torch_real_light.py PLANTED-LINE)
churn=$(site_line torch_real_light.py CHURN-LINE)

GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=256K GPULEAK_SAMPLE_SEED=1 guard 60 "$FAKECUDA/fakecuda-run" --devices 1 -- \
    "$LAUNCHER" run --torch-per-tensor -- "$PY" "$prog" >out.txt 2>err.txt || fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
read -r _ backend _ allocated <out.txt
expect_eq "$backend" cudaMallocAsync "torch's allocator backend"
expect_eq "$allocated" 65568768 "torch's allocated bytes: 1,000 kept tensors of 64 KiB and the last 32 KiB one"

"$REPORT" --json light.snap >r.json || fail "report --json: exit $?"
check_json r.json <<PY
import math
eq(d["snapshot"]["sampling"], {"sampled": True, "mode": "bytes", "sample_bytes": 262144}, "sampling")
s = d["leak_summary"]
eq((s["bytes"], s["count"]), ($allocated, 1001), "exact totals: torch's own")
line = lambda g: g["frames"] and (g["frames"][0]["file"] or "").endswith("/torch_real_light.py") and g["frames"][0]["line"]
eq([line(g) for g in leaks], [$planted], "the planted line: the one stack")
g = leaks[0]
eq((g["kind"], g["api"], g["bytes"], g["count"]), ("pool", "cudaMallocAsync", 204 * 65536, 204), "sampled tensors")
p = 1 - math.exp(-65536 / 262144)
eq((g["estimated_bytes"], g["estimated_count"]), (round(204 * 65536 / p), round(204 / p)), "estimate = k s / p")
err = (g["estimated_bytes"] - 65536000) / 65536000
eq(abs(err) <= 0.24, True, "estimate within 4 sigma (%.1f%% off)" % (100 * err))
eq((s["unsampled_bytes"], s["unsampled_count"]), ($allocated - 204 * 65536, 1001 - 204), "not sampled")
c = {line(x): (x["calls"], x["estimated_calls"], x["estimated_frees"]) for x in d["allocation_calls"]["sites"] if line(x)}
eq(c, {$planted: (204, round(204 / p), 0), $churn: (130, 1106, 1106)}, "calls per line, estimated")
PY
"$REPORT" light.snap >r.txt || fail "report: exit $?"
grep -q '^    live: .* in 1,001 allocations from 1 stack, 797 of them not sampled$' r.txt ||
    fail "summary: $(grep 'live:' r.txt)"
grep -Fq "#0 <module> (torch_real_light.py:$planted) [python]" r.txt || fail "the planted line is not in the report"
