# PyTorch's native caching allocator keeps segments on purpose: "held by
# allocator caches", not leaks.  Its cudaMallocAsync backend hands every
# allocation to a tensor, and with PYTORCH_NO_CUDA_MEMORY_CACHING=1 (recorded
# in the snapshot) nothing is cached: then the same memory is a leak.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=cached.snap traced "$TPROG/fake_torch"
PYTORCH_NO_CUDA_MEMORY_CACHING=1 GPULEAK_OUTPUT=uncached.snap traced "$TPROG/fake_torch"
GPULEAK_OUTPUT=setenv.snap traced "$TPROG/fake_torch" --set-no-caching
"$REPORT" --json cached.snap >cached.json
"$REPORT" --json uncached.snap >uncached.json
"$REPORT" --json setenv.snap >setenv.json
check_json cached.json <<'PY'
eq([(l["bytes"], l["frames"][0]["function"]) for l in leaks],
   [(3 << 20, "c10::cuda::CUDACachingAllocator::CudaMallocAsync::mallocAsync(unsigned long)")], "leaks")
caches = d["allocator_caches"]["groups"]
eq([(g["bytes"], g["rule"]) for g in caches], [(2 << 20, "pytorch-caching-allocator")], "caches")
PY
check_json uncached.json <<'PY'
eq(sorted(l["bytes"] for l in leaks), [2 << 20, 3 << 20], "leaks with caching off")
eq(d["allocator_caches"]["groups"], [], "caches with caching off")
PY
# Set in code before the first allocation: the allocator obeys it, and so
# must the report (the environment is read again at the first allocation).
check_json setenv.json <<'PY'
eq(sorted(l["bytes"] for l in leaks), [2 << 20, 3 << 20], "leaks with caching turned off in code")
eq(d["allocator_caches"]["groups"], [], "caches with caching turned off in code")
PY
