/* The driver's ABI rules for entry-point queries (cuGetProcAddress,
 * cudaGetDriverEntryPoint): which function, by its exported name, a query
 * of (base name, cudaVersion, flags) returns, and which of our hooks, by
 * name, stands for it.  A pure function of its arguments and hook_list.h,
 * so that the rules are tested without a driver, a runtime or the hooks (tests/unit/procaddr_rules.c);
 * hooks/hook_table.c turns the name into the hook. */
#ifndef GL_RESOLVE_ENTRY_ABI_H
#define GL_RESOLVE_ENTRY_ABI_H

#include <stdbool.h>
#include <stddef.h>

/* The driver function's exported name that the query selects, into abi
 * (size bytes): "cuMemAlloc" at 3020+ is "cuMemAlloc_v2", below it
 * "cuMemAlloc" (the 32-bit ABI); "cuMemAllocAsync" with the
 * per-thread-default-stream flag is "cuMemAllocAsync_ptsz".  Hooked or not:
 * the selection is the driver's.  false when symbol is no driver name (it
 * does not start with "cu") or the name does not fit. */
bool gl_entry_abi_select(const char *symbol, int cuda_version, unsigned long long flags, char *abi, size_t size);

/* The name of the hook for that query, the selected function's when
 * hook_list.h has it, or NULL when the query is not intercepted: a name we
 * do not hook, or an older ABI we do not hook, which is passed through.  flags:
 * the query's (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, equal to
 * cudaEnablePerThreadDefaultStream, selects _ptsz).  The result points at
 * static storage. */
const char *gl_entry_abi_hook_name(const char *symbol, int cuda_version, unsigned long long flags);

#endif
