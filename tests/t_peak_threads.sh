# A new peak reached while other threads hold allocations accounted only in
# their lanes (interpose/state/account.h): exact peak, composition, leaks and
# counts (see tests/programs/peak_threads.c for the phases).  Four threads,
# then eight, so that some lanes are given credit more than once.
source "$ROOT/tests/lib.sh"
for threads in 4 8; do
    rm -f gpuleak.*.snap
    traced "$TPROG/peak_threads" "$threads" 3000 || fail "peak_threads $threads exit $?"
    "$REPORT" --json "$(only_snapshot)" >r$threads.json
    check_json r$threads.json <<PY
threads, rounds, MiB = $threads, 3000, 1 << 20
lw, lp, lh = $(site_line peak_threads.c 'PEAK-SITE: warm_peak'), $(site_line peak_threads.c 'PEAK-SITE: push_peak'), $(site_line peak_threads.c 'PEAK-SITE: hold_in_thread')
held = threads * (threads + 1) // 2          # blocks of 1 MiB at the barrier
kept = sum(t + 1 for t in range(0, threads, 2))  # even threads never free theirs
dev = devices[0]
eq(dev["peak_bytes"], 64 * MiB + held * MiB, "peak bytes")
comp = [(c["bytes"], c["count"], frame(c["frames"][0])) for c in dev["peak_composition"]]
eq(comp, [(64 * MiB, 1, "push_peak peak_threads.c:%d" % lp),
          (held * MiB, held, "hold_in_thread peak_threads.c:%d" % lh)], "composition")
eq(dev["live_bytes"], kept * MiB, "live at exit")
eq(dev["alloc_count"], 1 + threads * rounds + held + 1, "allocations")
eq(dev["free_count"], 1 + threads * rounds + (held - kept) + 1, "frees")
eq([(l["bytes"], l["count"], frame(l["frames"][0])) for l in leaks],
   [(kept * MiB, kept, "hold_in_thread peak_threads.c:%d" % lh)], "leaks")
PY
done
