/* The driver's ABI rules for entry-point queries (cuGetProcAddress,
 * cudaGetDriverEntryPoint): which of our hooks, by name, stands for the
 * function a query of (base name, cudaVersion, flags) returns.  A pure
 * function of its arguments and hook_list.h, so that the rules are tested
 * without a driver, a runtime or the hooks (tests/unit/procaddr_rules.c);
 * hooks/hook_table.c turns the name into the hook. */
#ifndef GL_RESOLVE_ENTRY_ABI_H
#define GL_RESOLVE_ENTRY_ABI_H

/* The name of the hook for that query ("cuMemAlloc" at 3020+ is
 * "cuMemAlloc_v2"; "cuMemAllocAsync" with the per-thread-default-stream flag
 * is "cuMemAllocAsync_ptsz"), or NULL when the query is not intercepted:
 * a name we do not hook, or an older ABI, which is passed through.  flags:
 * the query's (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, equal to
 * cudaEnablePerThreadDefaultStream, selects _ptsz).  The result points at
 * static storage. */
const char *gl_entry_abi_hook_name(const char *symbol, int cuda_version, unsigned long long flags);

#endif
