/* Memory another process exported and this one maps (kind "ipc"): CUDA IPC
 * handles (cudaIpcOpenMemHandle, cuIpcOpenMemHandle_v2) and pointers imported
 * from another process's memory pool (cudaMemPoolImportPointer,
 * cuMemPoolImportPointer).
 *
 * A mapping is recorded like an allocation, with its stack, so one that is
 * never closed is reported at the line that opened it: it keeps the
 * exporter's memory alive, a leak neither process's allocator can see.  But
 * it is the exporter's memory, so it counts toward none of this process's
 * device counters or peaks (track.c).  Its size is not in the call; the
 * driver is asked (gl_where_mapping_size).
 *
 * Opening an IPC handle that is already open in the context returns the
 * same address with one more reference (CUDA documents it), and the mapping
 * lives until the last cuIpcCloseMemHandle.  So the first open is the
 * record; later ones are counted here, and closes use them up before the
 * record goes.  Imported pool pointers have no such count: they are freed
 * with cudaFree / cuMemFree and friends, whose hooks find them by address. */
#ifndef GL_IPC_H
#define GL_IPC_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/calls.h"

/* A successful open of an IPC handle that gave ptr. */
void gl_ipc_opened(struct gl_where w, uint64_t ptr, uint16_t api);
/* A successful import of a pool pointer that gave ptr. */
void gl_ipc_imported(struct gl_where w, uint64_t ptr, uint16_t api);

/* A close: begun before the real call (the address may be mapped again as
 * soon as it returns), settled after it. */
struct gl_ipc_close {
    struct gl_live *r; /* the mapping's record, taken (last reference) */
    bool extra;          /* a later open's reference was used up instead */
};
void gl_ipc_close_begin(struct gl_ipc_close *c, uint64_t ptr);
void gl_ipc_close_end(struct gl_ipc_close *c, uint64_t ptr, bool ok, int32_t device_if_unknown, uint16_t api);

void gl_ipc_postfork_child(void);

#endif
