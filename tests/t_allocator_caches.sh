# PyTorch's native caching allocator keeps segments on purpose, its caching
# host allocator pinned blocks: "held by allocator caches", not leaks.  Its cudaMallocAsync backend hands every
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
eq([(g["bytes"], g["rule"]) for g in caches],
   [(2 << 20, "pytorch-caching-allocator"), (1 << 20, "pytorch-caching-host-allocator")], "caches")
# A member of a class in an anonymous namespace has no DWARF linkage name:
# its name comes whole from the symbol table.
eq(caches[1]["frames"][0]["function"],
   "at::cuda::(anonymous namespace)::CUDACachingHostAllocatorImpl::allocate_host_memory_slowpath(unsigned long, void**)",
   "qualified name")
PY
# PYTORCH_NO_CUDA_MEMORY_CACHING is about device memory: pinned host blocks
# are still cached.
check_json uncached.json <<'PY'
eq(sorted(l["bytes"] for l in leaks), [2 << 20, 3 << 20], "leaks with caching off")
eq([g["rule"] for g in d["allocator_caches"]["groups"]], ["pytorch-caching-host-allocator"], "caches with caching off")
PY
# Set in code before the first allocation: the allocator obeys it, and so
# must the report (the environment is read again at the first allocation).
check_json setenv.json <<'PY'
eq(sorted(l["bytes"] for l in leaks), [2 << 20, 3 << 20], "leaks with caching turned off in code")
eq([g["rule"] for g in d["allocator_caches"]["groups"]], ["pytorch-caching-host-allocator"],
   "caches with caching turned off in code")
PY

# A PyTorch without symbols (fake libc10_cuda.so: hidden functions, no
# symbol table): the library's name is all there is.  The caching allocator's
# segments are still a cache, unless caching is off or the allocator
# configuration picks the cudaMallocAsync backend, whose allocations are
# tensors (both spellings of the variable; spaces allowed).
run_stripped() { # NAME MODE [VAR=VALUE...]
    local name=$1 mode=$2; shift 2
    env "$@" GPULEAK_OUTPUT="$name.snap" LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
        "$TPROG/fake_torch_stripped" "$mode"
    "$REPORT" --json "$name.snap" >"$name.json"
}
run_stripped s-native native
run_stripped s-native-conf native PYTORCH_CUDA_ALLOC_CONF=backend:native,expandable_segments:True
run_stripped s-nocache native PYTORCH_NO_CUDA_MEMORY_CACHING=1
run_stripped s-async async "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, backend: cudaMallocAsync"
run_stripped s-async-new async PYTORCH_ALLOC_CONF=backend:cudaMallocAsync
for f in s-native s-native-conf; do
    check_json $f.json <<'PY'
eq(leaks, [], "no leaks")
eq([(g["bytes"], g["rule"]) for g in d["allocator_caches"]["groups"]],
   [(2 << 20, "pytorch-caching-allocator-stripped")], "the stripped allocator's segment is a cache")
PY
done
check_json s-nocache.json <<'PY'
eq([(l["bytes"], l["frames"][0]["module"]) for l in leaks], [(2 << 20, "libc10_cuda.so")], "caching off: a leak")
eq(d["allocator_caches"]["groups"], [], "caching off: no cache")
PY
for f in s-async s-async-new; do
    check_json $f.json <<'PY'
eq([(l["bytes"], l["frames"][0]["module"], l["frames"][1]["function"]) for l in leaks],
   [(3 << 20, "libc10_cuda.so", "fake_c10_alloc")], "the cudaMallocAsync backend's allocation is a leak")
eq(d["allocator_caches"]["groups"], [], "no cache with the cudaMallocAsync backend")
PY
done
"$REPORT" s-native.snap | grep -qx '    pytorch-caching-allocator-stripped: 2,097,152 bytes (2.0 MiB) in 1 allocation' ||
    fail "text: the stripped rule's line"
