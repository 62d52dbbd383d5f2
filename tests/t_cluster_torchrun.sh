# Four real-PyTorch ranks started by the real torchrun (issue 38), under
# the gpuleak launcher, on fakecuda (tests/t_torch_real.sh says how torch
# runs here): `gpuleak run --output 'snaps/%h.%r.%n.snap' -- torchrun
# --nproc-per-node 4 torch_ranks.py 1`.  No process group (NCCL cannot run
# here): each rank trains on cuda:LOCAL_RANK, and rank 1 also keeps one
# 1 MiB tensor per step, 4 in all.  Each rank asks for a snapshot at the
# end and prints what torch holds then:
#   - the snapshot is named by the rank torchrun gave it (HOST.RANK.0),
#     records that rank, its device, and torch's allocated and reserved
#     bytes exactly; rank 1's PyTorch cache names the planted line with
#     its 4 tensors;
#   - merge of the four: rank 1 has the largest peak, 4 MiB more reserved
#     than each of the others (two more 2 MiB segments);
#   - check over torchrun (2 ranks, to spare CI two more torch imports):
#     one verdict per process, torchrun's own agent
#     included (it asks CUDA for the device count, so it is tracked, as
#     rank 0: it has no rank variable); rank 0 and the agent "no errors",
#     rank 1 a leak by growth (issue 45: its planted line grew 1 MiB at
#     each step, docs/pytorch.md "Leaks by growth"; before, check passed
#     it, as tensors live in PyTorch's cache are no leak at the CUDA
#     level), so status 9.
source "$ROOT/tests/lib.sh"
torch_real_setup
TORCHRUN=$(dirname "$PY")/torchrun
skip_if '[ ! -x "$TORCHRUN" ]' "no torchrun next to $PY"
prog=$ROOT/tests/programs/torch_ranks.py
planted=$(site_line torch_ranks.py PLANTED-LINE)
job=(guard 120 "$FAKECUDA/fakecuda-run" --devices 4 --)
MiB=1048576

mkdir snaps
"${job[@]}" "$LAUNCHER" run --output 'snaps/%h.%r.%n.snap' -- "$TORCHRUN" --nproc-per-node 4 "$prog" 1 >out.txt 2>err.txt ||
    fail "run: status $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
expect_eq "$(grep -c '^rank ' out.txt)" 4 "ranks that printed"
host=$(jget <("$REPORT" --json snaps/*.0.0.snap) 'd["snapshot"]["host"]')
snaps=()
for r in 0 1 2 3; do
    read -r _ _ _ dev _ allocated _ reserved _ snap < <(grep "^rank $r " out.txt)
    expect_eq "$snap" "$PWD/snaps/$host.$r.0.snap" "rank $r: its snapshot's name"
    expect_eq "$dev" "$r" "rank $r: torch's current device"
    want_alloc=$((r == 1 ? 1049088 + 4 * MiB : 1049088)) want_res=$((r == 1 ? 6 * MiB : 2 * MiB))
    expect_eq "$allocated $reserved" "$want_alloc $want_res" "rank $r: torch's allocated and reserved bytes"
    "$REPORT" --json "$snap" >"r$r.json" || fail "rank $r: report: status $?"
    expect_eq "$(jget "r$r.json" '[d["snapshot"]["rank"], [(x["device"], x["live_bytes"]) for x in d["devices"]],
                                  d["torch"]["allocated_bytes"], d["torch"]["reserved_bytes"]]')" \
        "[$r, [[$r, $reserved]], $allocated, $reserved]" "rank $r: the snapshot's rank, device bytes and torch totals"
    snaps+=("$snap")
done
# Rank 1's planted line: its 4 tensors of 1 MiB, summed over the segments.
"$REPORT" "${snaps[1]}" | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" >cache1.txt
got=$(awk -v site="(torch_ranks.py:$planted)" '$0 ~ / in [0-9]+ tensors?: / && index($0, site) {
          gsub(/,/, "", $1); n += $1; split($0, a, " in "); split(a[2], b, " "); t += b[1] }
      END { print n + 0, t + 0 }' cache1.txt)
expect_eq "$got" "$((4 * MiB)) 4" "rank 1: bytes and tensors at the planted line"

"$REPORT" --json merge "${snaps[@]}" >m.json || fail "merge --json: status $?"
expect_eq "$(jget m.json '[(r["rank"], r["peak_device"], r["live_bytes"], r["leaked_bytes"]) for r in d["ranks"]]')" \
    "[[0, 0, $((2 * MiB)), 0], [1, 1, $((6 * MiB)), 0], [2, 2, $((2 * MiB)), 0], [3, 3, $((2 * MiB)), 0]]" \
    "merge: each rank's device, live bytes (PyTorch's segments) and leaked bytes"
"$REPORT" merge "${snaps[@]}" >m.txt || fail "merge: status $?"
grep -Eqx "rank 1 \(pid [0-9]+, host $host\): 6,291,456 bytes \(6\.0 MiB\) on device 1 at [0-9.]+ s" m.txt ||
    fail "merge: the largest peak: $(sed -n '/^LARGEST PEAK/,+1p' m.txt)"

# check: one verdict per process: the 2 ranks, then torchrun's agent,
# which has no RANK (it only asked torch for the device count): "process P
# (no rank)", not a second "rank 0".  Rank 1's planted line grew 1 MiB at
# each of its 4 steps: a leak by growth over steps 1 to 4.
rc=0
"${job[@]}" "$LAUNCHER" check --error-exitcode 9 --output chk -- "$TORCHRUN" --nproc-per-node 2 "$prog" 1 \
    >cout.txt 2>cerr.txt || rc=$?
expect_eq "$rc" 9 "check: status"
expect_eq "$(sed -nE 's/^gpuleak: (rank [0-9]+ \(process [0-9]+\)|process [0-9]+ \(no rank\)): (no errors|ERRORS): (leaked by growth: [^;]*)?.*/\1: \2 \3/p' cerr.txt |
              sed -E 's/process [0-9]+/process P/')" "rank 0 (process P): no errors 
rank 1 (process P): ERRORS leaked by growth: 1,048,576 bytes/step (1.0 MiB) at 1 line, steps 1 to 4
process P (no rank): no errors " "check: verdicts: $(grep '^gpuleak: ' cerr.txt)"
grep -qF "    1,048,576 bytes/step (1.0 MiB): <module> (torch_ranks.py:$planted)" cerr.txt ||
    fail "check: rank 1's planted line not named: $(grep -A2 '^Leaked by growth' cerr.txt)"
grep -qx 'gpuleak: ERROR SUMMARY: 1 of 3 processes with errors (leaks, memory still mapped, refused frees, teardown releases); ranks with errors: 1' cerr.txt ||
    fail "check: summary: $(tail -1 cerr.txt)"
