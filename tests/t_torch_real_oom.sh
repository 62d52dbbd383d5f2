# Real PyTorch 2.14.1 out of memory (issue 33), on fakecuda with a 64 MiB
# device (tests/t_torch_real.sh says how torch runs here).  PyTorch raises
# torch.OutOfMemoryError after 5 kept 12 MiB tensors; gpuleak's
# out-of-memory snapshot (the first) shows what was live, by Python line
# (the 5 tensors' segments at KEPT-LINE = memory_reserved() then), and the
# cudaMalloc that failed: 12 MiB, at that line.  PyTorch frees its cache
# and tries once more, so the exit snapshot counts 2 failed allocations.
# Then PyTorch's out-of-memory observer gives a second out-of-memory
# snapshot, with PyTorch's view at its error (issue 45, item 7: the kinds
# are tests/t_torch_real_oom_kinds.sh's).
# Then with a signal snapshot after 2 tensors: the out-of-memory snapshot
# carries that last view of PyTorch's (2 tensors), with its age.
source "$ROOT/tests/lib.sh"
torch_real_env
prog=$ROOT/tests/programs/torch_real_oom.py
kept=$(site_line torch_real_oom.py KEPT-LINE)

"$FAKECUDA/fakecuda-run" --devices 1 --mem $((64 << 20)) -- "$LAUNCHER" run -- "$PY" "$prog" >out.txt 2>err.txt ||
    fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
read -r _ _ n _ allocated _ reserved <out.txt
expect_eq "$n $allocated $reserved" "5 $((5 * 12582912)) $((5 * 12582912))" "torch's own account at the error"

snaps=(gpuleak.*.snap)
expect_eq "${#snaps[@]}" 3 "snapshots (out of memory, PyTorch's out of memory, exit)"
"$REPORT" --json gpuleak.*.0.snap >oom.json || fail "report of the OOM snapshot: exit $?"
got=$(python3 - "$kept" <<'PY'
import json, sys
d = json.load(open("oom.json"))
line = int(sys.argv[1])
site = lambda fr: bool(fr) and (fr[0]["file"] or "").endswith("/torch_real_oom.py") and fr[0]["line"] == line
o = d["out_of_memory"]
e = o["events"][0]
live = [(g["bytes"], g["count"]) for g in d["allocator_caches"]["groups"] if site(g["frames"])]
print(d["snapshot"]["reason"], o["failed_count"], e["api"], e["requested_bytes"], e["live_bytes"],
      site(e["frames"]), live, d["leak_summary"]["bytes"])
PY
) || fail "reading the OOM snapshot's JSON"
expect_eq "$got" "oom 1 cudaMalloc 12582912 $reserved True [($reserved, 5)] $reserved" \
    "reason, failures, the failed call and size, live bytes then, its line, the live segments by line, all live"
"$REPORT" --json gpuleak.*.2.snap >exit.json || fail "report of the exit snapshot: exit $?"
expect_eq "$(python3 -c 'import json; print(json.load(open("exit.json"))["out_of_memory"]["failed_count"])')" 2 \
    "failed allocations at exit (PyTorch's retry after freeing its cache)"

# The out-of-memory snapshot carries the last view PyTorch gave, and its
# age: it is written on the failing thread, which holds PyTorch's allocator
# mutex, so it cannot ask (before, it had no view at all).
mkdir view && cd view
"$FAKECUDA/fakecuda-run" --devices 1 --mem $((64 << 20)) -- "$LAUNCHER" run -- "$PY" "$prog" 2 >out.txt 2>err.txt ||
    fail "run with a view exited $?: $(tail -3 err.txt)"
snaps=(gpuleak.*.snap)
expect_eq "${#snaps[@]}" 4 "snapshots with a view first (signal, out of memory, PyTorch's out of memory, exit)"
"$REPORT" --json gpuleak.*.1.snap >oom.json || fail "report of the OOM snapshot: exit $?"
expect_eq "$(python3 -c '
import json; d = json.load(open("oom.json")); t = d["torch"]
print(d["snapshot"]["reason"], t["status"], t["tensor_count"], t["allocated_bytes"], t["age_us"] > 0)')" \
    "oom answered 2 $((2 * 12582912)) True" "the OOM snapshot: PyTorch's last view (2 tensors), with its age"
