#!/usr/bin/env bash
# TEMPORARY ALLOCATIONS on real PyTorch 2.14.1 (tests/t_torch_real.sh says
# how torch runs here): a loop that makes and drops a 4 MiB tensor 10 times
# (tests/programs/torch_real_temporary.py).  With the caching allocator off
# (PYTORCH_NO_CUDA_MEMORY_CACHING=1) each iteration is a cudaMalloc freed
# before anything else: the section names the loop's Python line with all
# 10, and the kept tensor is not one.  With the cache on, the same loop
# makes no cudaFree: no section, and a JSON member of zeros but the count.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_temporary.py
temp=$(site_line torch_real_temporary.py "# TEMP-LINE")

PYTORCH_NO_CUDA_MEMORY_CACHING=1 torch_real_run "$prog"
"$REPORT" t.snap >off.txt || fail "report, cache off: exit $?"
"$REPORT" --json t.snap >off.json || fail "JSON report, cache off: exit $?"
expect_eq "$(sed -n '/^TEMPORARY ALLOCATIONS$/,/^    #0/p' off.txt | sed -n '6,$p')" \
"10 temporary allocations of the 11 in the history, 41,943,040 bytes (40.0 MiB) in all

10 temporary allocations of 10 made there (cudaMalloc, device), 41,943,040 bytes (40.0 MiB) in all
    #0 <module> (torch_real_temporary.py:$temp) [python]" "cache off: the section's totals and its one site"
check_json off.json <<PY
t = d["temporary_allocations"]
eq((t["allocations"], t["temporary"], t["bytes"], len(t["sites"])), (11, 10, 41943040, 1), "cache off: totals")
eq(frame(t["sites"][0]["frames"][0]), "<module> torch_real_temporary.py:$temp", "cache off: the site's line")
PY

rm -f t.snap
torch_real_run "$prog"
"$REPORT" t.snap >on.txt || fail "report, cache on: exit $?"
"$REPORT" --json t.snap >on.json || fail "JSON report, cache on: exit $?"
grep -q '^TEMPORARY ALLOCATIONS$' on.txt && fail "cache on: a TEMPORARY ALLOCATIONS section"
check_json on.json <<'PY'
t = d["temporary_allocations"]
eq((t["temporary"], t["bytes"], t["sites"]), (0, 0, []), "cache on: no temporary allocation")
eq(t["allocations"] >= 1, True, "cache on: the cache's segments are in the history")
PY
echo ok
