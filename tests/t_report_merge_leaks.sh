# merge's LEAKS BY SITE: every leak site across the ranks, which ranks, the
# bytes on each and whether they differ.  Three runs of peak_threads as
# ranks 0-2 with 2, 2 and 4 threads: each even thread t leaks t+1 blocks of
# 1 MiB at hold_in_thread <- worker, so ranks 0 and 1 leak 1 MiB and rank 2
# 4 MiB (in 4 allocations) at one site; then snapgen's ranks (a site on every rank,
# evenly, and one on rank 2 only) and --min-bytes.
source "$ROOT/tests/lib.sh"
for r in 0 1 2; do
    mkdir "r$r"
    t=2; [ "$r" = 2 ] && t=4
    (cd "r$r" && RANK=$r traced "$TPROG/peak_threads" $t 10) || fail "rank $r"
done
hl=$(site_line peak_threads.c 'PEAK-SITE: hold_in_thread')
wl=$(grep -n 'blocks\[i\] = hold_in_thread' "$ROOT/tests/programs/peak_threads.c" | cut -d: -f1)
"$REPORT" merge r0/*.snap r1/*.snap r2/*.snap >m.txt
"$REPORT" --json merge r0/*.snap r1/*.snap r2/*.snap >m.json
sed -n '/^LEAKS BY SITE$/,/^STACKS ON ONLY SOME RANKS$/p' m.txt >leaks.txt
cat >want.txt <<EOT
LEAKS BY SITE
Memory still allocated, outside caches and suppressions, by the stack
that allocated it, across the ranks: which ranks, how much on each, and
whether the ranks differ.

6,291,456 bytes (6.0 MiB) of device memory on every rank (3), uneven: 1.0 MiB (rank 0) to 4.0 MiB (rank 2)
    on: rank 0 1.0 MiB in 1 allocation, rank 1 1.0 MiB in 1 allocation, rank 2 4.0 MiB in 4 allocations
    #0 hold_in_thread (peak_threads.c:$hl) [peak_threads]
    #1 worker (peak_threads.c:$wl) [peak_threads]

STACKS ON ONLY SOME RANKS
EOT
diff want.txt leaks.txt || fail "LEAKS BY SITE"
check_multi_json m.json <<PY
MiB = 1 << 20
l = d["leaks"]
eq(l["bytes"], 6 * MiB, "leaked in all")
eq([(s["kind"], s["total_bytes"], s["present"], s["on_every_rank"], s["ranks"], s["bytes"], s["count"],
     s["min_bytes"], s["max_bytes"], s["even"], [frame(f) for f in s["frames"]]) for s in l["sites"]],
   [("device", 6 * MiB, 3, True, [0, 1, 2], [MiB, MiB, 4 * MiB], [1, 1, 4], MiB, 4 * MiB, False,
     ["hold_in_thread peak_threads.c:$hl", "worker peak_threads.c:$wl"])], "sites")
PY

mkdir g && "$TPROG/snapgen" ranks g
"$REPORT" merge g/r0.snap g/r1.snap g/r2.snap >g.txt
"$REPORT" --json merge g/r0.snap g/r1.snap g/r2.snap >g.json
grep -qx '3,145,728 bytes (3.0 MiB) of device memory on every rank (3), 1.0 MiB on each' g.txt || fail "an even site"
grep -A2 -x '2,097,152 bytes (2.0 MiB) of device memory on 1 of 3 ranks, 2.0 MiB' g.txt >one.txt || fail "a site on one rank"
printf '    on: rank 2 2.0 MiB in 1 allocation\n    not on: rank 0, rank 1\n' >want1.txt
tail -2 one.txt | diff want1.txt - || fail "a site on one rank: its ranks"
check_multi_json g.json <<'PY'
MiB = 1 << 20
eq([(s["total_bytes"], s["ranks"], s["bytes"], s["even"], s["frames"][0]["function"]) for s in d["leaks"]["sites"]],
   [(3 * MiB, [0, 1, 2], [MiB, MiB, MiB], True, "alloc_weights"), (2 * MiB, [2], [0, 0, 2 * MiB], True, "tie_a")],
   "sites, largest first")
PY
# --min-bytes drops the smaller site; --top shows one and counts the rest
"$REPORT" --json --min-bytes 2097153 merge g/r0.snap g/r1.snap g/r2.snap >gm.json
expect_eq "$(jget gm.json 'len(d["leaks"]["sites"])')" 1 "--min-bytes"
"$REPORT" --top 1 merge g/r0.snap g/r1.snap g/r2.snap | grep -qx '\.\.\. and 1 more site (--top)' || fail "--top"
# no leaks on any rank
"$TPROG/snapgen" noleak n.snap
"$REPORT" merge n.snap n.snap | grep -A1 -x 'LEAKS BY SITE' | tail -1 | grep -qx 'No leaks on any rank.' || fail "no leaks"
exit 0
