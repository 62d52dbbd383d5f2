# `make install PREFIX=...` lays out bin/, lib/, include/ and docs; the
# installed launcher finds the installed library and reporter by itself.
source "$ROOT/tests/lib.sh"
make -s -C "$ROOT" install PREFIX="$PWD/prefix" BUILD="$BUILD" >/dev/null
for f in bin/gpuleak bin/gpuleak-report libexec/gpuleak/gpuleak-tgkill lib/libgpuleak.so lib/libgpuleak-nvtx.so include/gpuleak.h \
         lib/python/gpuleak_memory.py share/doc/gpuleak/README.md share/doc/gpuleak/docs/snapshot-format.md \
         libexec/gpuleak/plan/gpuleak-plan libexec/gpuleak/plan/sitecustomize.py libexec/gpuleak/plan/gpuleak_plan_peak.py; do
    [ -f "prefix/$f" ] || fail "not installed: $f"
done
LD_LIBRARY_PATH=$FAKECUDA prefix/bin/gpuleak run --output here.snap -- "$TPROG/scenarios" leak-runtime
prefix/bin/gpuleak report --json here.snap >r.json
# Every subcommand is the launcher's own C: no script in libexec, and
# check runs from the prefix with its verdict and status.
[ ! -e prefix/libexec/gpuleak/gpuleak-sh ] || fail "gpuleak-sh is still installed"
rc=0; LD_LIBRARY_PATH=$FAKECUDA prefix/bin/gpuleak check --error-exitcode 7 -- "$TPROG/scenarios" leak-runtime \
    2>check.txt || rc=$?
expect_eq "$rc" 7 "installed check's status"
expect_eq "$(tail -1 check.txt)" \
    "gpuleak: ERROR SUMMARY: 1 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases)" \
    "installed check's summary"
check_json r.json <<'PY'
eq([(l["bytes"], l["frames"][0]["function"]) for l in leaks], [(2097152, "leak_runtime")], "leaks")
PY
# The public header compiles on its own, in C and C++.
echo '#include <gpuleak.h>
int main(void) { return gpuleak_snapshot ? 0 : 1; }' >use.c
cc -Iprefix/include -c use.c -o use.o
cp use.c use.cc && g++ -Iprefix/include -c use.cc -o use2.o
