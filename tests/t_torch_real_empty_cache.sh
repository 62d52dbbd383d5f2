# Real PyTorch 2.14.1's torch.cuda.empty_cache() (issue 33), on fakecuda
# (tests/t_torch_real.sh says how torch runs here): the segments it frees
# leave gpuleak's live set.  Before: the kept tensor's 2 MiB segment and the
# two freed tensors' 12 MiB segments, all held by PyTorch's cache; after: only
# the kept one.  Each time gpuleak's live bytes equal memory_reserved()
# and its tensor total memory_allocated().
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_empty_cache.py

torch_real_run "$prog"
expect_eq "$(cat out.txt)" "before allocated 262144 reserved 27262976
after allocated 262144 reserved 2097152" "torch's own account"
for when in before after; do
    read -r _ _ allocated _ reserved < <(grep "^$when " out.txt)
    "$REPORT" --json $when.snap >$when.json || fail "report of $when: exit $?"
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["leak_summary"]
print(s["bytes"], s["count"], s["cached_count"], d["torch"]["reserved_bytes"], d["torch"]["allocated_bytes"])' $when.json)
    n=$([ $when = before ] && echo 3 || echo 1)
    expect_eq "$got" "$reserved $n $n $reserved $allocated" \
        "$when empty_cache(): live bytes, allocations, held by the cache; torch's reserved and allocated"
done
