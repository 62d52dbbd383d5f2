/* Virtual memory management bookkeeping (cuMemCreate / cuMemMap / ...).
 *
 * What is counted is physical memory: a cuMemCreate handle is a live
 * allocation (kind "virtual") from creation until its memory is really gone.
 * The driver keeps a handle's memory alive while it is mapped or referenced:
 * cuMemCreate and every cuMemRetainAllocationHandle take a reference, every
 * cuMemRelease drops one (NCCL frees by retaining the handle from the
 * address and releasing twice).  So the record goes only when the handle has
 * neither references nor mappings, in whichever order those end.  Reserved address
 * ranges and mappings are tracked too (for the fragmentation report).
 *
 * A handle imported from another process (cuMemImportFromShareableHandle) is
 * referenced and mapped the same way, but its memory is the exporter's: it
 * is no allocation of this process (never "gone" here).  What this process
 * holds of it are its references and its mappings, recorded as kind ipc
 * (vmm_import.h). */
#ifndef GL_VMM_H
#define GL_VMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void gl_vmm_created(uint64_t handle, int32_t device);
/* A successful import.  The driver may hand out a handle it already gave
 * (CUDA does not promise a new one): then it is one more reference.  True
 * when the handle needs a record: new here, or its references had all been
 * released (only mappings kept it). */
bool gl_vmm_imported(uint64_t handle, int32_t device);
/* A reference was taken (cuMemRetainAllocationHandle); false if the handle
 * is not one we know. */
bool gl_vmm_retained(uint64_t handle);
/* One reference was released.  Returns true if its memory is gone now (no
 * reference or mapping left), false if others keep it alive. */
bool gl_vmm_released(uint64_t handle);
/* What a cuMemRelease of handle will end (call before the real one): the
 * memory of an own, unmapped handle with its last reference (FREES; also for
 * a handle not known here), the last reference of an imported handle, whose
 * mappings may outlive it (ENDS_IMPORT), or nothing (KEEPS). */
enum gl_vmm_release { GL_VMM_RELEASE_KEEPS, GL_VMM_RELEASE_FREES, GL_VMM_RELEASE_ENDS_IMPORT };
enum gl_vmm_release gl_vmm_release_effect(uint64_t handle);
/* Returns true if handle is an imported one and the mapping was stored,
 * with the handle's device in *device. */
bool gl_vmm_mapped(uint64_t va, uint64_t size, uint64_t handle, int32_t *device);
/* The addresses of the mappings of imported handles inside [va, va+size):
 * up to cap of them in out; returns how many there are. */
size_t gl_vmm_imported_in(uint64_t va, uint64_t size, uint64_t *out, size_t cap);
/* Removes the mappings inside [va, va+size); for each handle of this
 * process's own that this leaves released and unmapped, calls gone(handle).
 * Returns the bytes of the mappings it knew there (the rest of the range
 * was mapped where gpuleak did not see it: before an attach). */
uint64_t gl_vmm_unmapped(uint64_t va, uint64_t size, void (*gone)(uint64_t handle));
void gl_vmm_reserved(uint64_t va, uint64_t size);
void gl_vmm_unreserved(uint64_t va);

/* Copy of the reservations and mappings, for the snapshot's VMM record. */
struct gl_vmm_range {
    uint64_t va, size, handle;
    uint16_t type; /* GL_VMM_RESERVATION or GL_VMM_MAPPING */
    int32_t device;
};
struct gl_vmm_range *gl_vmm_copy(size_t *n);

/* Detach: every handle, mapping and reservation forgotten; a later attach
 * counts their unmaps as memory made before it (docs/attach.md). */
void gl_vmm_reset(void);
void gl_vmm_postfork_child(void);

#endif
