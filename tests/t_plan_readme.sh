# README's recipe 4 (gpuleak plan, issue 44, item 4) runs verbatim on real
# PyTorch 2.14.1 on fakecuda, as a reader without a GPU runs it, with the
# page's own mlp.py (its <!-- file: --> block; it never stops by itself, so
# plan's default of 3 optimizer steps ends each run), and prints the table
# the page shows.  Apart from t_plan.sh to keep each test short.
source "$ROOT/tests/lib.sh"
torch_real_setup
DOC=$ROOT/tests/doc/docblocks.py
expect_eq "$(python3 "$DOC" ids "$ROOT/README.md" tests/t_plan_readme.sh)" "plan" "README.md's block this test runs"
mkdir readme && cd readme
python3 "$DOC" file "$ROOT/README.md" mlp.py >mlp.py
python3 "$DOC" get "$ROOT/README.md" plan >block.sh
python3 "$DOC" output "$ROOT/README.md" plan >shown.txt
rc=0; PATH=$BUILD/bin:$(dirname "$PY"):$PATH timeout -k 5 110 bash -e block.sh >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 0 "README recipe 4: status ($(tail -3 err.txt))"
python3 "$ROOT/tests/doc/inorder.py" shown.txt out.txt || fail "README recipe 4 shows another table: $(cat out.txt)"
expect_eq "$(grep -c ', exit 0 (' err.txt)" 3 "README recipe 4: three runs, each ended cleanly"
