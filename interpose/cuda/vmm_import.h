/* Mappings of VMM handles imported from another process
 * (cuMemImportFromShareableHandle, then cuMemMap): NCCL's cuMem buffers,
 * PyTorch's shared expandable segments.
 *
 * The physical memory is the exporter's, so the imported handle itself is
 * no allocation here (vmm.h): it is recorded as kind ipc with no size, from
 * the import to its last cuMemRelease (hooks_vmm.c), so that a handle never
 * released is reported at the line that imported it.  What this process
 * also holds is its mappings: each is recorded, like an IPC mapping, as kind
 * ipc with api cuMemMap and the
 * stack of the cuMemMap call, live until a cuMemUnmap covers it.  A mapping
 * never unmapped keeps the exporter's memory alive -- a leak neither
 * process's allocator sees -- and is reported at the line that mapped it.
 * It counts toward none of this process's device counters or peaks
 * (gl_kind_is_mapping).  Unlike cuIpcOpenMemHandle the size is in the call,
 * so the driver is not asked. */
#ifndef GL_VMM_IMPORT_H
#define GL_VMM_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/calls.h"

/* A successful cuMemMap of an imported handle on `device`. */
void gl_vmm_import_mapped(uint64_t va, uint64_t size, int32_t device);

/* A cuMemUnmap of [va, va+size), which may span any number of mappings:
 * begun before the real call (the addresses may be mapped again as soon as
 * it returns), settled after it.  The records of the imported mappings in
 * the range are taken at the beginning and kept here (a taken record is the
 * thread's until its next take, track.h, so each is copied). */
#define GL_VMM_UNMAP_INLINE 8
struct gl_vmm_unmap {
    struct gl_live *saved; /* inline, or allocated for more */
    size_t n;
    struct gl_live inline_saved[GL_VMM_UNMAP_INLINE];
};
void gl_vmm_unmap_begin(struct gl_vmm_unmap *u, uint64_t va, uint64_t size);
void gl_vmm_unmap_end(struct gl_vmm_unmap *u, bool ok);

#endif
