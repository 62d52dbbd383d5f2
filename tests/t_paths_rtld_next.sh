# dlsym(RTLD_NEXT, ...) made by another interposer still finds the definition
# next after *that* interposer, whether or not gpuleak hooks the name, and in
# either preload order; allocations are counted exactly once.
source "$ROOT/tests/lib.sh"
other=$TPROG/other_interposer.so
cudart=$(readlink -f "$FAKECUDA/libcudart.so.13")

LD_PRELOAD="$LIBGPULEAK:$other" fc "$TPROG/scenarios" leak-runtime 2>err1.txt
grep -q "other: next cudaMalloc is in .*libcudart.so.13" err1.txt || fail "gpuleak first: $(cat err1.txt)"
"$REPORT" --json gpuleak.*.snap >r1.json
check_json r1.json <<'PY'
eq([(l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks], [(2097152, 2, "leak_runtime")], "leaks")
eq(devices[0]["alloc_count"], 22, "allocations counted once")
PY
rm -f gpuleak.*.snap

LD_PRELOAD="$other:$LIBGPULEAK" fc "$TPROG/scenarios" leak-runtime 2>err2.txt
grep -q "other: next cudaMalloc is in .*libgpuleak.so" err2.txt || fail "other first: $(cat err2.txt)"
"$REPORT" --json gpuleak.*.snap >r2.json
check_json r2.json <<'PY'
eq([(l["bytes"], l["count"]) for l in leaks], [(2097152, 2)], "leaks")
eq(devices[0]["alloc_count"], 22, "allocations counted once")
PY

# A name gpuleak does not hook goes to glibc untouched, relative to the caller.
LD_PRELOAD="$LIBGPULEAK:$other" fc "$TPROG/scenarios" errors >out.txt 2>err3.txt
grep -q "other: next cudaMemGetInfo is in .*libcudart.so.13" err3.txt || fail "unhooked name: $(cat err3.txt)"
grep -q "^meminfo 0$" out.txt || fail "cudaMemGetInfo through both interposers: $(cat out.txt)"
