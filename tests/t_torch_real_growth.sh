# Issue 45, item 2: the leak-by-growth verdict for PyTorch, on real torch
# 2.14.1 under fakecuda (tests/t_torch_real.sh says how torch runs here).
# tests/programs/torch_real_growth.py trains an nn.Linear MLP with AdamW
# for 5 steps, with no snapshot call and no setting beyond this suite's
# GPULEAK_TORCH_LINES=start (lib.sh: every tensor's line).  Each step makes
# and frees a 32 MiB temporary; `leak` also keeps each step's loss
# (`history.append(loss)`: 65,536 bytes a step at the loss's line) and one
# activation a step in a global dict (131,072 bytes at its line).
#  - leak: `gpuleak check --error-exitcode 3` exits 3; SUMMARY opens with
#    "leaked by growth: 196,608 bytes/step at 2 lines, steps 2 to 5"; LEAKS
#    names both lines first, with their bytes per step and at steps 2 and 5;
#    the verdict line says so and the verdict check reads (--verdict, what
#    check --json embeds) names them, kind leak-by-growth; the
#    temporary's line is neither a leak nor still reachable; "No leaks" is
#    not printed; torch's own allocated grew by the two leaks each step;
#  - the kept snapshot judged again: --growth-steps 4 (from step 1) still
#    finds both, --growth-steps 5 has too few steps and finds none ("No
#    leaks"); --min-bytes 256K keeps the activation (393,216 bytes over the
#    window) and drops the loss (196,608);
#  - clean (no leak planted): check exits 0 and LEAKS says "No leaks";
#  - nolines (GPULEAK_TORCH_LINES=never, PyTorch's recorder off), with
#    check --json: the allocated total grew at each step, lines unknown:
#    check exits 3, its verdict and JSON say which setting names the lines;
#  - default (no GPULEAK_TORCH_LINES: the README's zero-setting path): lines
#    come from gpuleak's sampled steps 2 and 4 only; the allocated total
#    grew at each of the last 3 steps and both lines grew from step 2 to 4,
#    so check exits 3 naming both, each with its bytes per recorded step
#    (GPULEAK_TORCH_SETTLE is set to an hour only so that a slow machine's
#    10 s of quiet cannot turn the recorder on for good mid-run);
#  - check refuses a bad --growth-steps before running the command.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_growth.py
act=$(site_line torch_real_growth.py ACT-LINE)
lossl=$(site_line torch_real_growth.py LOSS-LINE)
temp=$(site_line torch_real_growth.py TEMP-LINE)

# check_mode DIR MODE [CHECK-OPTION...] [-- VAR=value...]: rc, DIR/out.txt
# (the program's), DIR/err.txt (check's), the snapshot kept in DIR/snaps
check_mode() {
    local dir=$1 mode=$2 opts=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    [ $# -eq 0 ] || shift
    mkdir "$dir"
    rc=0
    (cd "$dir" && env "$@" "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" check --error-exitcode 3 \
        --output snaps "${opts[@]}" -- "$PY" "$prog" "$mode" >out.txt 2>err.txt) || rc=$?
    if grep -q '^fakecuda: ' "$dir/err.txt"; then fail "$dir: $(grep '^fakecuda: ' "$dir/err.txt")"; fi
    expect_eq "$(grep -c '^step ' "$dir/out.txt")" 5 "$dir: the loop ran"
}
# torch's own allocated after each step, as the program printed it: the growth a step
growth() { awk '$1 == "step" { if (p) printf "%d ", $4 - p; p = $4 }' "$1/out.txt"; }

check_mode leak leak
expect_eq "$rc" 3 "leak: check's exit status: $(tail -3 leak/err.txt)"
expect_eq "$(growth leak)" "196608 196608 196608 196608 " "leak: torch's allocated grew by both leaks each step"
sum="leaked by growth: 196,608 bytes/step (192.0 KiB) at 2 lines, steps 2 to 5"
expect_eq "$(sed -n '/^SUMMARY$/{n;p;q}' leak/err.txt)" "    $sum" "leak: SUMMARY's first line"
sed -n '/^LEAKS$/,/^HELD BY ALLOCATOR CACHES$/p' leak/err.txt >leak/leaks.txt
# The activation's line also holds cuBLAS's 32 MiB workspace (33,554,432
# bytes, made by the first matmul, at that line): step 2 holds it and 2
# activations, step 5 it and 5.  The loss's line: 2 losses, then 5.
expect_eq "$(sed -n 2,7p leak/leaks.txt)" \
"Leaked by growth: live tensors grew at each of the last 3 steps (steps 2 to 5):
    131,072 bytes/step (128.0 KiB): <module> (torch_real_growth.py:$act)
        step 2: 33,816,576 bytes (32.2 MiB); step 5: 34,209,792 bytes (32.6 MiB) in 6 tensors
    65,536 bytes/step (64.0 KiB): <module> (torch_real_growth.py:$lossl)
        step 2: 131,072 bytes (128.0 KiB); step 5: 327,680 bytes (320.0 KiB) in 5 tensors" \
    "leak: LEAKS' first paragraph"
if grep -q '^No leaks' leak/err.txt; then fail "leak: 'No leaks' printed"; fi
grep -qx 'No other leaks: the [0-9]* live allocations are held by allocator caches or suppressed.' leak/leaks.txt ||
    fail "leak: LEAKS does not say the rest is the cache: $(sed -n 8,9p leak/leaks.txt)"
if grep -qF "torch_real_growth.py:$temp)" leak/leaks.txt; then fail "leak: the temporary's line in LEAKS"; fi
grep -q "^gpuleak: process [0-9]*: ERRORS: $sum; leaked: 0 bytes" leak/err.txt ||
    fail "leak: the verdict line: $(grep '^gpuleak: process' leak/err.txt)"
# The verdict check read (check --json embeds it as it is, see nolines
# below), and the report's JSON, of the snapshot check kept
snap=$(ls leak/snaps/*.snap)
"$REPORT" --sections leaks --verdict verdict.json --json "$snap" >report.json || fail "leak: report --json exited $?"
expect_eq "$(jget verdict.json '[d["leaked_by_growth"], d["errors"], d["leaked_by_growth_bytes_per_step"], [(g["kind"], g["file"].rsplit("/", 1)[-1], g["line"], g["bytes_per_step"], g["from_step"], g["to_step"], g["to_bytes"] - g["from_bytes"], g["count"]) for g in d["leaks_by_growth"]]]')" \
    "[2, 2, 196608, [[\"leak-by-growth\", \"torch_real_growth.py\", $act, 131072, 2, 5, 393216, 6], [\"leak-by-growth\", \"torch_real_growth.py\", $lossl, 65536, 2, 5, 196608, 5]]]" \
    "leak: the verdict"
expect_eq "$(jget report.json '[l["line"] for l in d["leaks_by_growth"]["leaks"]] + [l["line"] for l in d["leaks_by_growth"]["still_reachable"]["lines"] if l["line"] in ('"$temp, $act, $lossl"')]')" \
    "[$act, $lossl]" "leak: the report's JSON: both leaks, neither they nor the temporary still reachable"
judge() { rc=0; "$REPORT" --error-exitcode 3 "$@" "$snap" >judged.txt || rc=$?; }
judge --growth-steps 4
expect_eq "$rc $(sed -n '/^SUMMARY$/{n;p;q}' judged.txt)" "3     leaked by growth: 196,608 bytes/step (192.0 KiB) at 2 lines, steps 1 to 5" "--growth-steps 4"
judge --growth-steps 5
expect_eq "$rc $(grep -c 'leaked by growth' judged.txt)" "0 0" "--growth-steps 5 (5 steps: too few)"
grep -qx 'No leaks: the [0-9]* live allocations are held by allocator caches or suppressed.' judged.txt ||
    fail "--growth-steps 5: no 'No leaks'"
judge --min-bytes 256K
expect_eq "$rc $(sed -n '/^SUMMARY$/{n;p;q}' judged.txt)" "3     leaked by growth: 131,072 bytes/step (128.0 KiB) at 1 line, steps 2 to 5" "--min-bytes 256K"

check_mode clean clean
expect_eq "$rc" 0 "clean: check's exit status: $(tail -3 clean/err.txt)"
# diff and merge count a leak by growth as a report does (before: status
# 0 for both): diff judges its last snapshot, merge each rank's own.
csnap=$(ls clean/snaps/*.snap)
judged() { rc=0; "$REPORT" --error-exitcode 3 "$@" >/dev/null || rc=$?; echo "$rc"; }
expect_eq "$(judged diff "$snap" "$snap") $(judged diff "$csnap" "$csnap")" "3 0" "diff's status: leak, clean"
expect_eq "$(judged merge "$csnap" "$snap") $(judged merge "$csnap") $(judged --growth-steps 5 merge "$snap")" "3 0 0" \
    "merge's status: a rank with a leak, clean alone, the leak with too few steps"
grep -qx 'No leaks: the [0-9]* live allocations are held by allocator caches or suppressed.' clean/err.txt ||
    fail "clean: no 'No leaks': $(sed -n '/^LEAKS$/,+2p' clean/err.txt)"
if grep -q 'leaked by growth' clean/err.txt; then fail "clean: a leak by growth"; fi
grep -q '^gpuleak: process [0-9]*: no errors: leaked: 0 bytes' clean/err.txt ||
    fail "clean: the verdict line: $(grep '^gpuleak: process' clean/err.txt)"

check_mode nolines leak --json=check.json -- GPULEAK_TORCH_LINES=never
expect_eq "$rc" 3 "nolines: check's exit status: $(tail -3 nolines/err.txt)"
nolines_sum="leaked by growth: 196,608 bytes/step (192.0 KiB) allocated, steps 2 to 5; lines unknown: set GPULEAK_TORCH_LINES=start to name them"
grep -q "^gpuleak: process [0-9]*: ERRORS: $nolines_sum; leaked: 0 bytes" nolines/err.txt ||
    fail "nolines: the verdict line: $(grep '^gpuleak: process' nolines/err.txt)"
expect_eq "$(jget nolines/check.json '[(p["leaked_by_growth"], p["errors"], [(g["kind"], g["line"], g["bytes_per_step"], g["from_step"], g["to_step"], g["count"]) for g in p["leaks_by_growth"]], p["report"]["leaks_by_growth"]["lines_known"]) for p in d["processes"]] + [d["job"]["with_errors"], d["job"]["exit_status"]]')" \
    '[[1, 1, [["leak-by-growth", null, 196608, 2, 5, null]], false], 1, 3]' "nolines: check --json"

check_mode sampled leak -- -u GPULEAK_TORCH_LINES GPULEAK_TORCH_SETTLE=1h
expect_eq "$rc" 3 "sampled: check's exit status: $(tail -3 sampled/err.txt)"
expect_eq "$(sed -n '/^SUMMARY$/{n;p;q}' sampled/err.txt)" \
    "    leaked by growth: 196,608 bytes/step (192.0 KiB) at 2 lines, steps 2 to 4" "sampled: SUMMARY's first line"
# Sampled steps record the tensors made in them: step 2 holds step 2's
# activation and loss (cuBLAS's workspace was made in step 1, unrecorded),
# step 4 one more of each.
expect_eq "$(sed -n '/^LEAKS$/,/^HELD BY ALLOCATOR CACHES$/p' sampled/err.txt | sed -n 2,8p)" \
"Leaked by growth: allocated memory grew at each of the last 3 steps, and these lines'
live tensors at each step with lines (steps 2 to 4, sampled):
    131,072 bytes/step (128.0 KiB): <module> (torch_real_growth.py:$act)
        step 2: 131,072 bytes (128.0 KiB); step 4: 262,144 bytes (256.0 KiB) in 2 tensors
    65,536 bytes/step (64.0 KiB): <module> (torch_real_growth.py:$lossl)
        step 2: 65,536 bytes (64.0 KiB); step 4: 131,072 bytes (128.0 KiB) in 2 tensors" \
    "sampled: LEAKS' first paragraph"
sed -n '/^LEAKS$/,/^HELD BY ALLOCATOR CACHES$/p' sampled/err.txt >sampled/leaks.txt
if grep -qF "torch_real_growth.py:$temp)" sampled/leaks.txt; then fail "sampled: the temporary's line in LEAKS"; fi

rc=0; "$LAUNCHER" check --growth-steps 0 -- touch ran >out.txt 2>err.txt || rc=$?
expect_eq "$rc $(cat err.txt)" "2 gpuleak: check: --growth-steps needs a number of steps (1-64), not '0' (try --help)" "check --growth-steps 0"
[ ! -e ran ] || fail "check --growth-steps 0 ran the command"
