# Every command block of README.md runs, verbatim, as a reader would paste
# it (issue 35, item 8): tests/doc/docblocks.py takes each ```sh block
# marked <!-- test: ID (tests/t_doc_commands.sh) --> and this test runs it
# with bash -e on fakecuda (build/fakecuda/fakecuda-run, as a laptop
# without a GPU would), in a directory of its own that holds the programs
# the block names (./my_program and the like: small CUDA programs with a
# known leak) and `build`, the build tree.  Then the exact outcome of each
# is checked.  A ```sh block with no marker, or a command outside one,
# fails the lint.  The PyTorch blocks are tests/t_doc_torch.sh's.
source "$ROOT/tests/lib.sh"
skip_under_san "the blocks preload libgpuleak.so alone, as a reader does"
DOC=$ROOT/tests/doc/docblocks.py
python3 "$DOC" lint "$ROOT/README.md" || fail "README.md's command blocks"
python3 "$DOC" lint "$ROOT/docs/pytorch.md" '<!-- end of the how-to -->' || fail "docs/pytorch.md's how-to"
expect_eq "$(python3 "$DOC" ids "$ROOT/README.md" tests/t_doc_commands.sh | tr '\n' ' ')" \
    "quick preload ci-gate long-job ranks " "the README's blocks this test runs"
expect_eq "$(python3 "$DOC" ids "$ROOT/docs/usage.md" tests/t_doc_commands.sh | tr '\n' ' ')" \
    "link-c " "docs/usage.md's blocks this test runs"

# The programs the blocks name: scenarios' known leak (2 allocations of
# 1 MiB from leak_runtime) or a balanced run.
fixtures() {
    ln -s "$BUILD" build
    printf '#!/bin/sh\nexec %q leak-runtime\n' "$TPROG/scenarios" >my_program
    cp my_program my_tests
    printf '#!/bin/sh\n[ "$RANK" = 1 ] || exec %q balanced\nexec %q leak-runtime\n' "$TPROG/scenarios" "$TPROG/scenarios" >my_app
    # A server that keeps 1 MiB per request and asks for a snapshot after
    # each (gpuleak_memory, on the path under gpuleak run).
    cat >my_server <<'PY'
#!/usr/bin/env python3
import ctypes
import gpuleak_memory as gm
cudart = ctypes.CDLL("libcudart.so.13")
kept = []
for request in range(3):
    p = ctypes.c_void_p()
    assert cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(1 << 20)) == 0  # KEPT-LINE
    kept.append(p)
    gm._dump_snapshot()
PY
    chmod +x my_program my_tests my_app my_server
}
# run_block ID: the block in directory ID; status, stdout and stderr there.
# The blocks after the first find gpuleak on PATH, as the first one leaves
# it; the first two run with the PATH the test was given.
run_block() {
    local rc=0 path=$PATH
    case $1 in quick | preload) ;; *) path=$BUILD/bin:$PATH ;; esac
    mkdir "$1" && cd "$1" && fixtures
    python3 "$DOC" get "$ROOT/README.md" "$1" >block.sh
    PATH=$path "$FAKECUDA/fakecuda-run" -- bash -e -o pipefail block.sh >out.txt 2>err.txt || rc=$?
    echo $rc >rc
    cd ..
}
leak_line='2,097,152 bytes (2.0 MiB) in 2 allocations: device memory on device 0 (cudaMalloc), not freed at exit'

run_block quick
expect_eq "$(cat quick/rc)" 0 "quick: status ($(tail -3 quick/err.txt))"
snaps=$(cd quick && echo gpuleak.*.0.snap)
[[ $snaps =~ ^gpuleak\.[0-9]+\.0\.snap$ ]] || fail "quick: snapshots: $snaps"
expect_eq "$(grep -c "^gpuleak: wrote $snaps; read it with: " quick/err.txt)" 1 "quick: the launcher names its snapshot"
expect_eq "$(grep -cx "$leak_line" quick/out.txt)" 1 "quick: the leak in the report"

run_block preload
expect_eq "$(cat preload/rc)" 0 "preload: status ($(tail -3 preload/err.txt))"
expect_eq "$(cd preload && ls gpuleak.*.0.snap | wc -l)" 1 "preload: one snapshot"
"$REPORT" preload/gpuleak.*.0.snap | grep -qx "$leak_line" || fail "preload: the leak"
# What the README says of the bare name in the build tree: refused, nothing tracked.
mkdir bare && (cd bare && fixtures && LD_PRELOAD=libgpuleak.so fc ./my_program >out.txt 2>err.txt)
grep -q "object 'libgpuleak.so' from LD_PRELOAD cannot be preloaded" bare/err.txt || fail "bare name: $(cat bare/err.txt)"
expect_eq "$(ls bare | grep -c '\.snap$')" 0 "bare name: no snapshot"

run_block ci-gate
expect_eq "$(cat ci-gate/rc)" 3 "ci-gate: status ($(tail -3 ci-gate/err.txt))"
expect_eq "$(grep -cx "$leak_line" ci-gate/err.txt)" 1 "ci-gate: the leak in the report on stderr"
grep -Eq '^gpuleak: process [0-9]+: ERRORS: leaked: 2,097,152 bytes \(2\.0 MiB\) in 2 allocations from 1 stack ' ci-gate/err.txt ||
    fail "ci-gate: the verdict: $(grep '^gpuleak:' ci-gate/err.txt)"
grep -q '^gpuleak: ERROR SUMMARY: 1 of 1 process' ci-gate/err.txt || fail "ci-gate: the summary: $(grep '^gpuleak:' ci-gate/err.txt)"

run_block long-job
expect_eq "$(cat long-job/rc)" 0 "long-job: status ($(tail -3 long-job/err.txt))"
expect_eq "$(cd long-job && echo job.*.snap)" "job.0.snap job.1.snap job.2.snap job.3.snap" "long-job: the snapshots"
kept=$(grep -n KEPT-LINE long-job/my_server | cut -d: -f1)
cat >want.txt <<EOT
CHANGES BY STACK
+2,097,152 bytes (2.0 MiB): device memory on device 0, suspected leak (monotonic growth)
    live bytes:  1,048,576 -> 2,097,152 -> 3,145,728 -> 3,145,728
    allocations: 1 -> 2 -> 3 -> 3
...
    #0 <module> (my_server:$kept) [python]
EOT
python3 "$ROOT/tests/doc/inorder.py" want.txt long-job/out.txt || fail "long-job: diff: $(head -30 long-job/out.txt)"
# between them, the suspect's growth per hour (its figure depends on when
# the snapshots were taken: tests/t_diff_rate.sh checks it exactly)
grep -A1 -x '    allocations: 1 -> 2 -> 3 -> 3' long-job/out.txt | tail -1 | grep -Eqx '    rate:        \+[0-9.]+ [KMGTPE]iB/hour' ||
    fail "long-job: the rate line: $(grep -A1 -x '    allocations: 1 -> 2 -> 3 -> 3' long-job/out.txt)"

run_block ranks
expect_eq "$(cat ranks/rc)" 0 "ranks: status ($(tail -3 ranks/err.txt))"
# numbered (%n): a snapshot taken meanwhile (gpuleak snapshot) would not
# take the exit snapshot's name ("File exists", the exit one lost)
expect_eq "$(cd ranks && echo rank*.snap)" "rank0.0.snap rank1.0.snap" "ranks: the snapshots"
# The leak is rank 1's alone, and merge says so.
cat >want.txt <<EOT
LEAKS BY SITE
...
2,097,152 bytes (2.0 MiB) of device memory on 1 of 2 ranks, 2.0 MiB
    on: rank 1 2.0 MiB in 2 allocations
    not on: rank 0
    #0 leak_runtime (scenarios.c:$(site_line scenarios.c "LEAK-SITE: leak_runtime")) [scenarios]
EOT
python3 "$ROOT/tests/doc/inorder.py" want.txt ranks/out.txt || fail "ranks: merge: $(sed -n '/^LEAKS BY SITE/,+10p' ranks/out.txt)"

# docs/usage.md: a C program of one's own linked against the stand-in, run
# as the page says: no fakecuda-run, no LD_LIBRARY_PATH (the rpath alone
# must pick fakecuda's runtime over the toolkit's in the ldconfig cache).
mkdir link-c && cd link-c && ln -s "$BUILD" build
python3 "$DOC" file "$ROOT/docs/usage.md" my_leak.c >my_leak.c
python3 "$DOC" get "$ROOT/docs/usage.md" link-c >block.sh
rc=0; env -u LD_LIBRARY_PATH -u LD_PRELOAD bash -e -o pipefail block.sh >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 0 "link-c: status ($(tail -3 err.txt))"
expect_eq "$(ldd my_leak | awk '$1 == "libcudart.so.13" { print $3 }')" "$PWD/build/fakecuda/libcudart.so.13" "link-c: the runtime loaded"
weights_line=$(grep -n '1 MiB, never freed' my_leak.c | cut -d: -f1)
load_line=$(grep -n '^    load_weights();' my_leak.c | cut -d: -f1)
cat >want.txt <<EOT
LEAKS
1,048,576 bytes (1.0 MiB) in 1 allocation: device memory on device 0 (cudaMalloc), not freed at exit
...
    #0 load_weights (my_leak.c:$weights_line) [my_leak]
    #1 main (my_leak.c:$load_line) [my_leak]
EOT
python3 "$ROOT/tests/doc/inorder.py" want.txt out.txt || fail "link-c: the report: $(sed -n '/^LEAKS$/,+5p' out.txt)"
grep -q "my_leak.c:$weights_line), from main (my_leak.c:$load_line)" block.sh || fail "link-c: the block's comment names other lines"
cd ..
