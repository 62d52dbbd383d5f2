# The PyTorch commands of README.md (recipe 1) and of docs/pytorch.md's
# how-to run verbatim on real PyTorch 2.14.1 on fakecuda, as a reader
# without a GPU follows them (issue 35, items 8 and 9: the old example
# needed four undocumented variables).  The programs are the pages' own:
# train.py and test_model.py, written from their <!-- file: --> blocks
# (tests/doc/docblocks.py).  The how-to's setup block ends by starting a
# shell under build/fakecuda/fakecuda-run; the blocks after it are typed
# into that shell (its stdin), as a reader would.  Skipped, counted, where
# scripts/torch-env.sh cannot make the venv.
source "$ROOT/tests/lib.sh"
# The library path is what the how-to says to add where the toolkit is not
# on the loader's path.
torch_real_env
# The settings are the defaults but one: 10 s without a new allocation
# turns PyTorch's recorder on for good (GPULEAK_TORCH_SETTLE), which a
# loaded test machine can reach inside a step; the zero-code check's output
# shown is that of lines at the sampled steps alone.
export GPULEAK_TORCH_SETTLE=1h
DOC=$ROOT/tests/doc/docblocks.py
HOWTO=$ROOT/docs/pytorch.md
expect_eq "$(python3 "$DOC" ids "$HOWTO" tests/t_doc_torch.sh | tr '\n' ' ')" \
    "torch-check torch-setup torch-run torch-pictures torch-pytest " "docs/pytorch.md's blocks this test runs"
expect_eq "$(python3 "$DOC" ids "$ROOT/README.md" tests/t_doc_torch.sh | tr '\n' ' ')" "torch-zero torch-job " "README.md's blocks this test runs"
fixtures() {
    ln -s "$BUILD" build && ln -s "$ROOT/scripts" scripts
    python3 "$DOC" file "$HOWTO" train.py >train.py
    python3 "$DOC" file "$HOWTO" test_model.py >test_model.py
    python3 "$DOC" file "$HOWTO" loop.py >loop.py
}
kept_line=$(grep -n 'kept.append(h.detach())' <(python3 "$DOC" file "$HOWTO" train.py) | cut -d: -f1)
h_line=$(grep -n 'h = x \* weights' <(python3 "$DOC" file "$HOWTO" train.py) | cut -d: -f1)
[ -n "$kept_line" ] && [ -n "$h_line" ] || fail "train.py has changed: no kept activation"
loop_h_line=$(grep -n 'h = model(x)' <(python3 "$DOC" file "$HOWTO" loop.py) | cut -d: -f1)
[ -n "$loop_h_line" ] || fail "loop.py has changed: no activation"

# The how-to: setup (a shell under fakecuda-run), then the rest typed into it.
mkdir howto && cd howto && fixtures
python3 "$DOC" get "$HOWTO" torch-setup >setup.sh
for id in torch-check torch-run torch-pictures torch-pytest; do python3 "$DOC" get "$HOWTO" $id; done >typed.sh
rc=0; guard 200 bash -e setup.sh <typed.sh >out.txt 2>err.txt || rc=$?
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
# The last command typed is pytest, whose two tests go over their limits.
expect_eq "$rc" 1 "the shell's status, pytest's ($(tail -3 err.txt))"
expect_eq "$(echo train.*.snap)" "train.0.snap train.1.snap train.2.snap train.3.snap" "the snapshots"
# The zero-code check (issue 45): its report is on stderr, as shown.
python3 "$DOC" output "$HOWTO" torch-check >shown-check.txt
python3 "$ROOT/tests/doc/inorder.py" shown-check.txt err.txt || fail "the check's report the how-to shows is not what it printed"
grep -q "(loop.py:$loop_h_line)\$" shown-check.txt || fail "the how-to's check output does not name loop.py:$loop_h_line"
[ -s train.html ] && [ -s train.pickle ] || fail "the pictures: $(ls)"
python3 "$DOC" output "$HOWTO" torch-run >shown.txt
python3 "$ROOT/tests/doc/inorder.py" shown.txt out.txt || fail "the diff the how-to shows is not what it printed"
# The report of train.2.snap: the two activations kept since lines were recorded.
got=$(sed -n '/^==== gpuleak report/,/^==== /p' out.txt | awk -v site="<module> (train.py:$h_line)" '
          / in [0-9]+ tensors?: / && index($0, site) { gsub(/,/, "", $1); n += $1; split($0, a, " in "); split(a[2], b, " "); t += b[1] }
          END { print n + 0, t + 0 }')
expect_eq "$got" "2097152 2" "the report's bytes and tensors at train.py:$h_line, over its segments"
grep -qx 'gpuleak: leaked 4.0 MiB (4194304 bytes in 1 allocation), over the limit of 0 bytes:' out.txt ||
    fail "pytest: the leak: $(grep gpuleak: out.txt)"
grep -qx 'gpuleak: peak device memory 16.0 MiB (16777216 bytes) is over the limit of 1.0 MiB (1048576 bytes)' out.txt ||
    fail "pytest: the peak: $(grep gpuleak: out.txt)"
grep -Eq '^=+ 2 failed in' out.txt || fail "pytest: $(tail -1 out.txt)"
cd ..

# README's recipe 1, with fakecuda-run in front as its comment says.
mkdir readme && cd readme && fixtures
{ python3 "$DOC" get "$ROOT/README.md" torch-zero; python3 "$DOC" get "$ROOT/README.md" torch-job; } >block.sh
rc=0; PATH=$BUILD/bin:$(dirname "$PY"):$PATH guard 120 "$FAKECUDA/fakecuda-run" -- bash -e block.sh >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 0 "README recipe 1: status ($(tail -3 err.txt))"
grep -qx "    leaked by growth: 1,048,576 bytes/step (1.0 MiB) at 1 line, steps 2 to 4" err.txt ||
    fail "README recipe 1: check's leak by growth: $(grep -A1 '^SUMMARY' err.txt | head -2)"
grep -q "^    1,048,576 bytes/step (1.0 MiB): <module> (loop.py:$loop_h_line)\$" err.txt ||
    fail "README recipe 1: check does not name loop.py:$loop_h_line"
grep -q "and names \`loop.py:$loop_h_line\`;" "$ROOT/README.md" || fail "README.md's recipe 1 does not name loop.py:$loop_h_line"
grep -qx "+2,097,152 bytes (2.0 MiB): <module> (train.py:$h_line), suspected leak (its tensors grew at every step)" out.txt ||
    fail "README recipe 1: diff: $(grep -A3 'TENSORS IN' out.txt)"
[ -s train.html ] && [ -s train.pickle ] || fail "README recipe 1: the pictures: $(ls)"
# The same snapshot reported as in the how-to, and the same tensors in it.
expect_eq "$(grep -o '^gpuleak report train\.[0-9]*\.snap' block.sh)" \
    "$(python3 "$DOC" get "$HOWTO" torch-run | grep -o '^gpuleak report train\.[0-9]*\.snap')" "README and how-to: the report's snapshot"
got=$(sed -n '/^==== gpuleak report/,/^==== /p' out.txt | awk -v site="<module> (train.py:$h_line)" '
          / in [0-9]+ tensors?: / && index($0, site) { gsub(/,/, "", $1); n += $1; split($0, a, " in "); split(a[2], b, " "); t += b[1] }
          END { print n + 0, t + 0 }')
expect_eq "$got" "2097152 2" "README recipe 1: the report's bytes and tensors at train.py:$h_line"
# Without a GPU the README points to the how-to's setup (the system
# python, under fakecuda-run alone, has no torch).
grep -q 'No GPU: first the$' "$ROOT/README.md" && grep -q '^setup of \[docs/pytorch.md\](docs/pytorch.md#no-gpu-try-it-on-fakecuda)$' "$ROOT/README.md" ||
    fail "README.md's recipe 1 does not point to the how-to's setup"
grep -qx '### No GPU? Try it on fakecuda' "$HOWTO" || fail "the how-to's setup heading (README's anchor) changed"
# What the README says of it names the same line.
grep -q "and \`diff\` names \`train.py:$h_line\` as the suspected leak" "$ROOT/README.md" ||
    fail "README.md's recipe 1 does not name train.py:$h_line"
