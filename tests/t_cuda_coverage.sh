# Nothing new goes unseen: every entry point of the toolkit's cuda.h and
# cuda_runtime_api.h that can allocate, free, map, import, load or tear down
# memory is hooked or listed with a reason in docs/interception.md
# (scripts/cuda-coverage.py).  Then the check itself is shown to fail: a
# hook removed, a doc entry removed, a stale entry, and a header with new
# entry points caught by name and by documentation alone.  Last, the rows a
# driver hook needs besides its hook (fakecuda, driver_paths.c), each shown
# missing.
source "$ROOT/tests/lib.sh"
inc=${CUDA_HOME:-/usr/local/cuda}/include
cov() { python3 "$ROOT/scripts/cuda-coverage.py" "$@"; }
hooks=$ROOT/interpose/resolve/hook_list.h doc=$ROOT/docs/interception.md

cov "$inc" "$hooks" "$doc" "$LIBGPULEAK_SO" >out.txt 2>err.txt || fail "coverage: $(cat err.txt)"
grep -q ' 0 missing$' out.txt || fail "summary: $(cat out.txt)"
# Known members of each family are found, and found where they belong.
cov --list "$inc" "$hooks" "$doc" "$LIBGPULEAK_SO" >list.txt 2>&1
state() { awk -v n="$1" '$1 == n { print $2 }' list.txt; }
for n in cuMemAlloc_v2 cuMemFree_v2 cudaMalloc cudaFreeAsync cuMemCreate cuMemRelease cuMemMap \
         cuIpcOpenMemHandle_v2 cuImportExternalMemory cuCtxDestroy_v2 cudaDeviceReset cuGraphAddMemAllocNode \
         cuCtxDetach cuDevicePrimaryCtxReset cuDevicePrimaryCtxRelease cuMulticastCreate cuMemPoolCreate \
         cuModuleLoadData cuLibraryLoadData cuModuleUnload cuGreenCtxCreate cuCtxFromGreenCtx cuGreenCtxDestroy; do
    expect_eq "$(state $n)" hooked "$n"
done
for n in cuMemAlloc cudaLibraryLoadData cuFuncLoad cuMulticastBindMem cudaMemPoolCreate \
         cuDeviceGraphMemTrim cuEventDestroy_v2; do
    expect_eq "$(state $n)" listed "$n"
done

# One hook removed from the hook list (and no nm of the library): red.
sed 's/X(cuMemFree_v2) //' "$hooks" >hooks.h
grep -q 'cuMemFree_v2' hooks.h && fail "could not remove the hook"
! cov "$inc" hooks.h "$doc" >/dev/null 2>err.txt || fail "a removed hook passed"
grep -q '^cuda-coverage: cuMemFree_v2: can doc: Frees device memory / free; neither hooked nor listed' err.txt ||
    fail "removed hook: $(cat err.txt)"
expect_eq "$(grep -c 'neither hooked' err.txt)" 1 "errors for one removed hook"

# One doc entry removed: red, naming it.
sed 's/`cuMulticastBindMem`, //' "$doc" >doc.md
! cov "$inc" "$hooks" doc.md >/dev/null 2>err.txt || fail "a removed doc entry passed"
expect_eq "$(cat err.txt)" "cuda-coverage: cuMulticastBindMem: can multicast; neither hooked nor listed in doc.md" "removed doc entry"

# A stale entry (a hooked name listed as not intercepted), a name no header
# declares, and an entry without a reason: red, each named.
{ cat "$doc"; printf -- '- `cuMemAlloc_v2`: stale\n- `cuNoSuchThing`: typo\n- `cuLinkDestroy`:\n'; } >stale.md
! cov "$inc" "$hooks" stale.md >/dev/null 2>err.txt || fail "a stale entry passed"
grep -q '^cuda-coverage: cuMemAlloc_v2: listed as not intercepted in stale.md, but hooked (stale entry)$' err.txt || fail "stale: $(cat err.txt)"
grep -q '^cuda-coverage: cuNoSuchThing: listed in stale.md, but declared in neither header$' err.txt || fail "unknown: $(cat err.txt)"
grep -q '^cuda-coverage: cuLinkDestroy: listed in stale.md without a reason$' err.txt || fail "no reason: $(cat err.txt)"

# The next release: a header with two new entry points, one caught by its
# name family, one whose name says nothing but whose \brief says it frees.
mkdir -p next
cp "$inc/cuda_runtime_api.h" next/
{ cat "$inc/cuda.h"; cat <<'H'
/**
 * \brief Creates a multicast buffer
 */
CUresult CUDAAPI cuMulticastCreateBuffer(CUdeviceptr *p, size_t n);
/**
 * \brief Frees the scratch space held by a stream
 */
CUresult CUDAAPI cuStreamScratchDrop(CUstream s);
/**
 * \brief Returns the scratch size of a stream
 */
CUresult CUDAAPI cuStreamScratchSize(CUstream s, size_t *n);
H
} >next/cuda.h
! cov next "$hooks" "$doc" >/dev/null 2>err.txt || fail "new entry points passed"
expect_eq "$(cat err.txt)" "cuda-coverage: cuMulticastCreateBuffer: can multicast; neither hooked nor listed in $doc
cuda-coverage: cuStreamScratchDrop: can doc: Frees the scratch space held by a stream; neither hooked nor listed in $doc" "new entry points"

# A new driver hook needs more than its hook (scripts/cuda-coverage.py
# --rows): fakecuda's cuGetProcAddress row, and for an allocation its case in
# tests/programs/driver_paths.c on each path.  The tree passes; then each
# row removed in a scratch copy is named.
fcpa=$ROOT/tools/fakecuda/fc_procaddr.c paths=$ROOT/tests/programs/driver_paths.c
rows() { cov --rows "$@"; }
rows "$hooks" "$fcpa" "$paths" "$doc" >out.txt 2>err.txt || fail "rows: $(cat err.txt)"
# (counts read, not written here, so that a new hook needs no edit of this
# test): all but the two explained below have a fakecuda row
read -r nhooks nrows <<<"$(sed -n 's/^cuda-coverage: \([0-9]*\) driver hooks, \([0-9]*\) with a fakecuda row, [0-9]* allocations.*/\1 \2/p' out.txt)"
[ "${nhooks:-0}" -ge 80 ] || fail "rows summary: $(cat out.txt)"
expect_eq "$((nhooks - nrows))" 2 "hooks without a fakecuda row"
# fakecuda's row of cuMemAllocManaged removed
grep -v 'R("cuMemAllocManaged",' "$fcpa" >fc_procaddr.c
! rows "$hooks" fc_procaddr.c "$paths" "$doc" >/dev/null 2>err.txt || fail "a missing fakecuda row passed"
expect_eq "$(cat err.txt)" "cuda-coverage: cuMemAllocManaged: hooked, but no row of fc_procaddr.c hands it out (nor is cuMemAllocManaged 'not in fakecuda' in $doc)" "missing fakecuda row"
# the two hooks fakecuda has no row for are accepted only while the request
# table says so
grep -v '^| `cuStreamBeginCaptureToGraph@' "$doc" >doc.md
! rows "$hooks" "$fcpa" "$paths" doc.md >/dev/null 2>err.txt || fail "an unexplained missing row passed"
expect_eq "$(grep -c 'cuStreamBeginCaptureToGraph\(_ptsz\)\?: hooked, but no row' err.txt)" 2 "ToGraph without its doc row"
# driver_paths.c's cuGetProcAddress case of cuMemAllocHost removed
grep -v 'Q(alloc_host, "cuMemAllocHost")' "$paths" >driver_paths.c
! rows "$hooks" "$fcpa" driver_paths.c "$doc" >/dev/null 2>err.txt || fail "a missing path case passed"
expect_eq "$(cat err.txt)" 'cuda-coverage: cuMemAllocHost_v2: hooked allocation, but driver_paths.c has no Q(..., "cuMemAllocHost") case' "missing Q case"
# a new allocation hook with neither
sed 's/X(cuMemAlloc_v2) /X(cuMemAlloc_v2) X(cuMemAllocStriped) /' "$hooks" >hooks.h
! rows hooks.h "$fcpa" "$paths" "$doc" >/dev/null 2>err.txt || fail "a new hook without rows passed"
expect_eq "$(cut -d: -f2- err.txt)" " cuMemAllocStriped: hooked, but no row of $fcpa hands it out (nor is cuMemAllocStriped 'not in fakecuda' in $doc)
 cuMemAllocStriped: hooked allocation, but $paths has no Q(..., \"cuMemAllocStriped\") case
 cuMemAllocStriped: hooked allocation, but $paths has no E(..., \"cuMemAllocStriped\") case
 cuMemAllocStriped: hooked allocation, but $paths has no SYM(..., \"cuMemAllocStriped\") case" "a new hook"
echo ok
