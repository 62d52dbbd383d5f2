# gpuleak plan's replay of PyTorch's trace (tools/plan/gpuleak_plan_peak.py)
# on a trace written here, without torch: block sizes as the caching
# allocator makes them from requested sizes (a large-pool block split when
# more than 1 MiB remains, taken whole otherwise; a small-pool block split
# when 512 bytes remain; rounding to 512; a freed block merged with its free
# neighbours in its segment, never across segments), the first moment of
# the maximum, the blocks live then, and a step's storages named by the
# allocation that made them when an address was reused.  Exact figures
# below; a real run is t_plan_composition.sh.  Before: no such module.
source "$ROOT/tests/lib.sh"
PYTHONPATH=$ROOT/tools/plan python3 - <<'PY' >out.txt || fail "the replay: $(tail -3 out.txt)"
import gpuleak_plan_peak as p

MiB = 1 << 20
L, S, S2 = 0x10000000, 0x20000000, 0x20000000 + 2 * MiB  # S2 touches S: two segments side by side
def ev(action, addr, size=0, line=0):
    return {"action": action, "addr": addr, "size": size, "frames": [{"filename": "/x/train.py", "line": line, "name": "f"}]}
trace = [
    ev("segment_alloc", L, 20 * MiB),
    ev("alloc", L, 10 * MiB + 100, 1),                 # 1: rounded, split: 10 MiB + 512
    ev("alloc", L + 10 * MiB + 512, 9 * MiB + 600 * 1024, 2),  # 2: 0.4 MiB would remain: whole, 10 MiB - 512
    ev("segment_alloc", S, 2 * MiB),
    ev("segment_alloc", S2, 2 * MiB),
    ev("alloc", S, 100, 3),                            # 3: 512
    ev("alloc", S + 512, 1000, 4),                     # 4: 1024
    ev("free_requested", S), ev("free_completed", S),
    ev("free_requested", S + 512), ev("free_completed", S + 512),  # merges into the whole segment S
    ev("alloc", S, 2 * MiB, 5),                        # 5: the whole of S (the merge did not reach S2)
    ev("alloc", S2, 700, 6),                           # 6: 1024
    ev("free_requested", L), ev("free_completed", L),
]
at, best, count, ordinals, freed = p._peak(trace)
print("peak", at, best, count, freed)
live = p._live_at(trace, at)
print("live", sorted((o, size) for o, size, _ in live.values()))
cat = p._categories([(4, {"parameters": [L], "gradients": [S]}), (6, {"optimizer_state": [S2]})], ordinals, [2])
print("categories", sorted(cat.items()))
for more in ([ev("alloc", S2 + 512, 10)],
             [ev("free_requested", S2), ev("free_completed", S2), ev("free_requested", S), ev("free_completed", S),
              ev("alloc", S, 3 * MiB)],  # S did not merge with S2 after it: 2 MiB, not 4
             [ev("free_requested", S), ev("free_completed", S), ev("free_requested", S2), ev("free_completed", S2),
              ev("alloc", S2, 3 * MiB)]):  # nor S2 with S before it
    try:
        list(p._replay(trace + more))
    except p.Inexact as e:
        print("inexact", e)
PY
expect_eq "$(cat out.txt)" "peak 12 $((20 * 1048576 + 2 * 1048576 + 1024)) 6 [3, 4, 1]
live [(1, $((10 * 1048576 + 512))), (2, $((10 * 1048576 - 512))), (5, 2097152), (6, 1024)]
categories [(1, 'parameters'), (2, 'workspaces'), (3, 'gradients'), (6, 'optimizer_state')]
inexact an allocation at 0x20200200 where the replay has no free block
inexact an allocation of 3145728 bytes at 0x20000000, in a free block of 2097152
inexact an allocation of 3145728 bytes at 0x20200000, in a free block of 2097152" "the replay"
