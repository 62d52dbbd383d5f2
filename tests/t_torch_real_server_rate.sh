# Issue 45, item 8, acceptance: a server-like loop without an optimizer,
# found by time.  tests/programs/torch_real_infer.py runs an nn.Linear model
# in eval mode under torch.no_grad() on real PyTorch 2.14.1 (fakecuda, see
# tests/t_torch_real.sh), 24 requests 0.05 s apart, each keeping its 64 KiB
# response in a global cache, with GPULEAK_STEP_INTERVAL=200ms and the
# recorder on from the start (GPULEAK_TORCH_LINES=start, docs/pytorch.md).
# The exit snapshot's PYTORCH STEPS (every record a time window) names the
# caching line as the one line that grew, and gives its
# rate: its growth over the time between its first and last window, as the
# windows' records stamp it (time_ns), rounded down: exact in JSON
# (bytes_per_hour) and in the text ("rate: +N/hour" under the line).
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_infer.py
cache_line=$(site_line torch_real_infer.py CACHE-LINE)
(GPULEAK_STEP_INTERVAL=200ms GPULEAK_TORCH_LINES=start \
    "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" >out.txt 2>err.txt) ||
    fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
expect_eq "$(grep -c '^request ' out.txt)" 24 "the loop ran"
snap=$(ls *.snap)
expect_eq "$(echo "$snap" | wc -l)" 1 "snapshot files (the exit snapshot only)"
"$REPORT" --json "$snap" >r.json || fail "report --json exited $?"
"$REPORT" "$snap" >r.txt || fail "report exited $?"
sed -n '/^PYTORCH STEPS$/,/^$/p' r.txt >steps.txt
expect_eq "$(jget r.json '[len(d["torch_steps"]["steps"]) >= 3, all(s["window"] and s["lines_known"] for s in d["torch_steps"]["steps"])]')" \
    "[true, true]" "three windows or more, all time windows with their lines"
expect_eq "$(jget r.json '[[g["file"].rsplit("/", 1)[-1], g["line"]] for g in d["torch_steps"]["growing_lines"]]')" \
    "[[\"torch_real_infer.py\", $cache_line]]" "the one line that grew: the cache's"
# its growth (whole responses) and the time between its first and last
# window, as their records stamp it: the rate to expect
read -r grown elapsed rate <<<"$(jget r.json "[' '.join(str(x) for x in [g['grown_bytes'], s[g['to_step']]['time_ns'] - s[g['from_step']]['time_ns'], g['bytes_per_hour']]) for s in [{x['step']: x for x in d['torch_steps']['steps']}] for g in d['torch_steps']['growing_lines']][0]")"
[ "$grown" -gt 0 ] && [ $((grown % 65536)) -eq 0 ] || fail "the cache line grew by $grown bytes, not whole responses"
expect_eq "$rate" "$(rate_of "$grown" "$elapsed")" "the cache line's bytes per hour, from its windows' times"
expect_eq "$(grep -A2 "^    +$(python3 -c "print(format($grown, ','))") bytes .*: <module> (torch_real_infer.py:$cache_line)" steps.txt | tail -1)" \
    "        rate: $(per_hour_text "$rate")" "PYTORCH STEPS: the cache line's rate, under it"
