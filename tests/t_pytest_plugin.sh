# The pytest plugin (tools/pytest_gpuleak.py) on planted tests whose leaks
# and peaks are known exactly (tests/programs/pytest_planted): under
# `gpuleak run`, --gpuleak fails exactly the tests over their markers' limits,
# with the bytes, the counts and the Python line of each leak; the summary
# has every test's peak and leak; warmup runs keep a cache filled on first
# use from counting; without --gpuleak, or without gpuleak, the suite runs
# as before.  Debian's pytest, for /usr/bin/python3 (scripts/install-deps.sh).
source "$ROOT/tests/lib.sh"
PY=/usr/bin/python3
skip_if "! $PY -c 'import pytest' 2>/dev/null" "Debian's python3-pytest is not installed (make deps)"
export FAKECUDA_RT=$FAKECUDA/libcudart.so.13
cp -r "$ROOT/tests/programs/pytest_planted" suite
site() { echo "test_planted.py:$(grep -n "LEAK-SITE: $1" suite/test_planted.py | cut -d: -f1)"; }
helper="gpu_alloc conftest.py:$(grep -n 'rc = _cudart.cudaMalloc' suite/conftest.py | cut -d: -f1)"

# outcomes FILE: "name outcome" per test case of a JUnit XML file, in order
outcomes() {
    python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).iter("testcase"):
    kids = [k.tag for k in case]
    print(case.get("name"), "failed" if "failure" in kids else "skipped" if "skipped" in kids else "passed")
PY
}
run_suite() {  # run_suite DIR ARGS...: pytest on the suite under gpuleak, in DIR
    local dir=$1; shift
    mkdir -p "$dir"
    set +e
    (cd "${SUITE:-suite}" && LD_LIBRARY_PATH=$FAKECUDA GPULEAK_OUTPUT="$PWD/../$dir/exit.snap" guard 120 \
        "$LAUNCHER" run --quiet -- $PY -m pytest -p pytest_gpuleak -p no:cacheprovider \
        --junitxml="../$dir/junit.xml" "$@" . >"../$dir/out" 2>"../$dir/err")
    echo $? >"$dir/rc"
    set -e
}

run_suite measured --gpuleak --gpuleak-keep="$PWD/kept" -q
expect_eq "$(cat measured/rc)" 1 "--gpuleak: pytest's status (tests failed) ($(tail -3 measured/err))"
outcomes measured/junit.xml >measured/outcomes
expect_eq "$(cat measured/outcomes)" "test_balanced passed
test_leaks_one_mib failed
test_leak_within_limit passed
test_peak_over failed
test_peak_at_limit passed
test_cache_with_warmup passed
test_cache_without_warmup failed
test_unmarked_leak passed" "--gpuleak: outcomes"
# pytest's own frame that called the test function, as gpuleak shows it
pyfunc=$($PY - <<'PY'
import inspect, _pytest.python as p
src, start = inspect.getsourcelines(p.pytest_pyfunc_call)
print("pytest_pyfunc_call %s:%d" % (p.__file__, start + next(i for i, l in enumerate(src) if "testfunction(**testargs)" in l)))
PY
)
grep -E '^(gpuleak: leaked|    [0-9]+ bytes in)' measured/out >measured/leaks
expect_eq "$(cat measured/leaks)" "gpuleak: leaked 1.0 MiB (1048576 bytes in 1 allocation), over the limit of 0 bytes:
    1048576 bytes in 1 allocation at $helper <- test_leaks_one_mib $(site one_mib) <- $pyfunc
gpuleak: leaked 512.0 KiB (524288 bytes in 1 allocation), over the limit of 0 bytes:
    524288 bytes in 1 allocation at $helper <- _cached $(site cached) <- test_cache_without_warmup test_planted.py:$(grep -n '    _cached("cold")' suite/test_planted.py | cut -d: -f1)" "--gpuleak: leak failures"
expect_eq "$(grep '^gpuleak: peak' measured/out)" \
    "gpuleak: peak device memory 3.0 MiB (3145728 bytes) is over the limit of 2.0 MiB (2097152 bytes)" "--gpuleak: peak failure"
sed -n '/gpuleak: device memory per test/,/tests measured/p' measured/out | sed 1d >measured/summary
expect_eq "$(cat measured/summary)" "peak    4.0 MiB  leaked        0 B in 0 allocations  test_planted.py::test_balanced
peak    3.0 MiB  leaked    3.0 MiB in 1 allocation  test_planted.py::test_unmarked_leak
peak    3.0 MiB  leaked        0 B in 0 allocations  test_planted.py::test_peak_at_limit
peak    3.0 MiB  leaked        0 B in 0 allocations  test_planted.py::test_peak_over
peak    1.0 MiB  leaked    1.0 MiB in 1 allocation  test_planted.py::test_leak_within_limit
peak    1.0 MiB  leaked    1.0 MiB in 1 allocation  test_planted.py::test_leaks_one_mib
peak  512.0 KiB  leaked  512.0 KiB in 1 allocation  test_planted.py::test_cache_without_warmup
peak        0 B  leaked        0 B in 0 allocations  test_planted.py::test_cache_with_warmup
8 tests measured, 4 leaked device memory; snapshots in $PWD/kept" "--gpuleak: summary"
# --gpuleak-keep: each test's before/after pair, readable; the timeline of
# one test is that test's own phase.
expect_eq "$(ls kept | wc -l)" 16 "kept snapshots"
"$REPORT" --json kept/2.after.snap >two.json
check_json two.json <<'PY'
marks = [(m["type"], m["label"]) for m in d["timeline"]["marks"] if m["type"] == "annotation"]
eq(marks, [("annotation", "pytest: test_planted.py::test_leaks_one_mib"),
           ("annotation", "pytest: test_planted.py::test_leaks_one_mib (end)")], "one test's phase")
eq((d["timeline"]["allocs"], d["timeline"]["frees"]), (1, 0), "one test's events")
PY

# --gpuleak-top 2: the two largest peaks only.
run_suite top --gpuleak --gpuleak-top 2 -q
expect_eq "$(sed -n '/gpuleak: device memory per test/,/tests measured/p' top/out | sed 1d | cut -c1-51 | sed 's/ *$//')" \
"peak    4.0 MiB  leaked        0 B in 0 allocations
peak    3.0 MiB  leaked    3.0 MiB in 1 allocation
8 tests measured, 4 leaked device memory" "--gpuleak-top 2"

# Under gpuleak without --gpuleak: the markers are known (no warning) and
# nothing is measured: every test passes.
run_suite plain -q -W error::pytest.PytestUnknownMarkWarning
expect_eq "$(cat plain/rc)" 0 "without --gpuleak: status ($(tail -3 plain/out))"
expect_eq "$(outcomes plain/junit.xml | grep -vc ' passed$' || true)" 0 "without --gpuleak: all passed"
grep -q "gpuleak: device memory per test" plain/out && fail "without --gpuleak: a summary"

# --gpuleak without the library: a usage error (pytest's status 4), one line.
set +e
(cd suite && PYTHONPATH=$BUILD/lib/python $PY -m pytest -p pytest_gpuleak -p no:cacheprovider --gpuleak -q . >../bare.out 2>../bare.err)
rc=$?
set -e
expect_eq "$rc" 4 "--gpuleak without gpuleak: status"
expect_eq "$(grep -c "libgpuleak.so is not preloaded" bare.err)" 1 "--gpuleak without gpuleak: message ($(cat bare.err))"

# Bad marker arguments (issue 34): each fails its own test, failing or not,
# with one line naming the marker and its arguments; the others run, are
# measured and reported (no INTERNALERROR, status 1 as for any failure).
cp -r "$ROOT/tests/programs/pytest_bad_markers" bad
SUITE=bad run_suite badrun --gpuleak -q
expect_eq "$(cat badrun/rc)" 1 "bad markers: pytest's status ($(tail -3 badrun/out))"
expect_eq "$(outcomes badrun/junit.xml)" "test_good_before passed
test_peak_bad_unit failed
test_peak_no_size failed
test_leaks_negative failed
test_leaks_bad_warmup failed
test_failing_with_bad_marker failed
test_peak_two_sizes failed
test_good_after passed" "bad markers: outcomes"
expect_eq "$(grep '^gpuleak: bad marker' badrun/out)" \
"gpuleak: bad marker gpu_limit_peak('2 GIG'): not a size: '2 GIG' (examples: 4096, 512k, 1.5M, 1 MiB, 2G)
gpuleak: bad marker gpu_limit_peak(): it takes one size, as in gpu_limit_peak(\"2 GiB\")
gpuleak: bad marker gpu_limit_leaks(-5): not a size: -5 (examples: 4096, 512k, 1.5M, 1 MiB, 2G)
gpuleak: bad marker gpu_limit_leaks(0, warmup='two'): warmup must be a whole number of runs, not 'two'
gpuleak: bad marker gpu_limit_leaks('1 MiBs'): not a size: '1 MiBs' (examples: 4096, 512k, 1.5M, 1 MiB, 2G)
gpuleak: bad marker gpu_limit_peak('1 MiB', '2 MiB'): it takes one size, as in gpu_limit_peak(\"2 GiB\")" \
    "bad markers: messages"
expect_eq "$(grep -c INTERNALERROR badrun/out badrun/err | paste -sd' ')" "badrun/out:0 badrun/err:0" "bad markers: no INTERNALERROR"
expect_eq "$(tail -1 badrun/out | sed 's/ in .*//')" "6 failed, 2 passed" "bad markers: pytest's counts"
expect_eq "$(grep -A3 'gpuleak: device memory per test' badrun/out | tail -1)" "2 tests measured, 0 leaked device memory" \
    "bad markers: the good tests measured"

# Sizes as the markers take them.
PYTHONPATH=$ROOT/tools $PY -c '
import pytest_gpuleak as p
got = [p.parse_size(v) for v in (0, 4096, "512K", "2 GiB", "1.5G", " 3 mib ")]
assert got == [0, 4096, 512 << 10, 2 << 30, 3 << 29, 3 << 20], got
for bad in ("-1", "2 GB/s", "", "1e3", True):
    try:
        p.parse_size(bad)
    except ValueError:
        continue
    raise SystemExit("accepted %r" % (bad,))
' || fail "parse_size"
true
