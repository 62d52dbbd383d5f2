# Real PyTorch 2.14.1 with expandable segments (issue 33), on fakecuda
# (tests/t_torch_real.sh says how torch runs here).  PyTorch reserves one
# address range and maps 20 MiB physical pages into it as it grows; its
# cuMemCreate/cuMemMap/cuMemAddressReserve come through the runtime's
# cudaGetDriverEntryPointByVersion.  At the requested snapshot: each VMM
# call is seen once (one reservation, as many mappings as handles), the
# mapped bytes equal torch.cuda.memory_reserved(), PYTORCH'S CACHE has
# memory_allocated() in tensors, and the planted line's 3 tensors carry its
# Python line (history recording turned on at a cuMemCreate, not only at a
# cudaMalloc, which this mode never calls).
source "$ROOT/tests/lib.sh"
torch_real_setup
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
prog=$ROOT/tests/programs/torch_real_expandable.py
planted=$(site_line torch_real_expandable.py PLANTED-LINE)

torch_real_run "$prog"
read -r _ allocated _ reserved <out.txt
# 3 kept 20 MiB tensors; 4 pages of 20 MiB (the temporary's page is cached).
expect_eq "$allocated $reserved" "$((3 * 20971520)) $((4 * 20971520))" "torch's own account"

"$REPORT" --json expandable.snap >r.json || fail "report --json: exit $?"
got=$(python3 -c '
import json, sys
d = json.load(open("r.json"))
f = d["fragmentation"]["devices"][0]
print(f["reservations"], f["mappings"], f["physical_handles"], f["va_mapped_bytes"], f["physical_bytes"],
      d["allocation_calls"]["calls"], d["allocation_calls"]["bytes"], d["torch"]["reserved_bytes"])')
expect_eq "$got" "1 4 4 $reserved $reserved 4 $reserved $reserved" \
    "reservations, mappings, handles, mapped and physical bytes, cuMemCreate calls and bytes, torch's reserved"

"$REPORT" expandable.snap >r.txt || fail "report: exit $?"
sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" r.txt >cache.txt
bytes() { grep -m1 "^    $1:" | sed -E 's/^[^0-9]*([0-9,]+) bytes.*/\1/' | tr -d ,; }
expect_eq "$(bytes allocated <cache.txt)" "$allocated" "gpuleak's tensor total vs memory_allocated()"
expect_eq "$(bytes reserved <cache.txt)" "$reserved" "gpuleak's segment total vs memory_reserved()"
grep -Fq "62,914,560 bytes (60.0 MiB) in 3 tensors: <module> (torch_real_expandable.py:$planted)" cache.txt ||
    fail "the planted line's tensors in PyTorch's cache: $(grep ' tensors*: ' cache.txt)"
grep -Eq '^No leaks: the 4 live allocations are held by allocator caches or suppressed.$' r.txt ||
    fail "pages not held by the cache: $(sed -n '/^LEAKS/,+2p' r.txt)"
