# scripts/gpu-check.sh without a GPU: its argument handling, a full run
# against fakecuda (every check that can run here passes, the rest -- real
# static runtime, kernels, PyTorch -- is SKIP, never FAIL), the table format,
# and --pack/--prebuilt including a library the target machine lacks.
source "$ROOT/tests/lib.sh"
# gpu-check builds its own plain gpuleak (build/gpu-check/make) whatever the
# phase: a sanitizer phase would only repeat the plain phase's run.
skip_under_san "gpu-check builds and runs its own plain gpuleak, as in the plain phase"
GC=$ROOT/scripts/gpu-check.sh

"$GC" --help >help.txt || fail "--help exit $?"
grep -q -- "--prebuilt DIR" help.txt || fail "--help does not describe --prebuilt"
set +e
"$GC" --no-such-option 2>err.txt; rc=$?
"$GC" --only no-such-check 2>err2.txt; rc2=$?
"$GC" --fake --hw 2>err3.txt; rc3=$?
set -e
expect_eq "$rc" 2 "exit status for an unknown option"
expect_eq "$rc2" 2 "exit status for an unknown check"
grep -q "unknown check" err2.txt || fail "unclear error: $(cat err2.txt)"
expect_eq "$rc3" 2 "exit status for --fake --hw"
"$GC" --list >list.txt
expect_eq "$(head -1 list.txt | cut -d' ' -f1)" build "first check"
grep -q "^torch-uncached " list.txt || fail "--list lacks torch-uncached"
"$GC" --fake --dry-run --only cuda --out "$PWD/never" >dry.txt
grep -q "^mode: *fake" dry.txt || fail "--dry-run: $(cat dry.txt)"
[ ! -e never ] || fail "--dry-run wrote files"

# The whole script against fakecuda, with the build under test.
"$GC" --fake --build-dir "$BUILD" --out "$PWD/out" >table.txt 2>stderr.txt ||
    fail "gpu-check exit $?: $(tail -30 table.txt) $(tail -5 stderr.txt)"
tail -1 table.txt | grep -Eq '^gpu-check: [0-9]+ passed, 0 failed, [0-9]+ skipped$' ||
    fail "last line: $(tail -1 table.txt)"
grep -q "NOT hardware" table.txt || fail "the table does not say it is not hardware"
[ -s out/summary.txt ] && [ -s out/results.json ] && [ -s out/gpu-check.log ] || fail "no logs in --out"
have_nvcc=0
for n in "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" /usr/local/cuda/bin/nvcc $(command -v nvcc || true); do
    [ -x "$n" ] && have_nvcc=1
done
python3 - out/results.json "$have_nvcc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
have_nvcc = sys.argv[2] == "1"
st = {r["check"]: r["status"] for r in d["results"]}
def need(names, status):
    for n in names:
        if st.get(n) != status:
            sys.exit("FAIL: %s is %s, expected %s: %s" % (n, st.get(n), status,
                     [r["detail"] for r in d["results"] if r["check"] == n]))
assert d["mode"] == "fake", d["mode"]
need(["build"], "PASS")
runnable = ["rt-shared", "reset", "ctx-teardown", "green", "cross-device", "ipc", "drv-direct", "drv-dlsym", "drv-procaddr", "drv-entry", "vmm", "multicast", "vmm-host", "managed-pool", "pool-owner", "module", "ledger", "async",
            "peak", "threads", "oom", "sigusr1", "attach", "graph", "cublas-workspace"]
if have_nvcc:
    need(["nvcc"] + runnable, "PASS")
    # the real static runtime needs the real driver; kernels need a GPU
    need(["rt-static", "kernels"], "SKIP")
bad = [r for r in d["results"] if r["status"] == "FAIL"]
if bad:
    sys.exit("FAIL: %s" % bad)
# PyTorch needs a GPU: never run here, never a failure
for n, s in st.items():
    if n.startswith("torch-") and s != "SKIP":
        sys.exit("FAIL: %s is %s without a GPU" % (n, s))
PY
# every table line is STATUS, two spaces, check name, details
sed -n '/^gpu-check on /,$p' table.txt | sed '1d;$d' | grep -Ev '^(PASS|FAIL|SKIP)  [a-z0-9-]+ +[^ ]' &&
    fail "malformed table line"

# --pack, then the packed build on a "machine" that lacks one of its
# libraries: the copy in deps/ is used for it (and only for it).
"$GC" --pack "$PWD/pack" --build-dir "$BUILD" >pack.txt
for f in lib/libgpuleak.so bin/gpuleak-report bin/gpuleak deps/libunwind.so.8 fakecuda/libcuda.so.1 MANIFEST; do
    [ -e "pack/$f" ] || fail "pack lacks $f: $(cat pack.txt)"
done
python3 - pack <<'PY'
import shutil, sys
p = sys.argv[1] + "/lib/libgpuleak.so"
b = open(p, "rb").read()
assert b.count(b"libunwind.so.8\0") == 1
open(p, "wb").write(b.replace(b"libunwind.so.8\0", b"libunwinX.so.8\0"))
shutil.copy(sys.argv[1] + "/deps/libunwind.so.8", sys.argv[1] + "/deps/libunwinX.so.8")
PY
"$GC" --fake --prebuilt "$PWD/pack" --out "$PWD/out2" --only rt-shared >table2.txt || fail "prebuilt run: $(cat table2.txt)"
grep -q "^PASS  build .*carried here: libunwinX.so.8" table2.txt || fail "carried library not used: $(cat table2.txt)"
if [ $have_nvcc = 1 ]; then grep -q "^PASS  rt-shared " table2.txt || fail "prebuilt rt-shared: $(cat table2.txt)"; fi
# A pack whose library cannot be found anywhere: said so (and, without
# --no-make, make would be tried instead).
rm pack/deps/libunwinX.so.8
set +e
"$GC" --fake --no-make --prebuilt "$PWD/pack" --out "$PWD/out3" --only build >table3.txt; rc=$?
set -e
grep -q "prebuilt: this machine lacks libunwinX.so.8" table3.txt out3/gpu-check.log ||
    fail "missing library not explained: $(cat table3.txt)"
expect_eq "$rc" 1 "exit status when no build is usable"
grep -q "^SKIP  rt-shared" table3.txt && fail "--only build ran rt-shared"
true
