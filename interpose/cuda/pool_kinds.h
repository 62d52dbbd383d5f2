/* What kind of memory an explicit pool hands out.  CUDA 13 pools can be
 * created with CU_MEM_ALLOCATION_TYPE_MANAGED: what cuMemAllocFromPoolAsync
 * takes from such a pool is managed memory, not device memory, and no pool
 * attribute says which a pool is.  So cuMemPoolCreate notes the managed ones
 * here, cuMemPoolDestroy forgets them (a handle value can come back), and a
 * pool allocation asks. */
#ifndef GL_POOL_KINDS_H
#define GL_POOL_KINDS_H

#include <stdint.h>

/* Also for a managed pool the driver hands out (a location's default or
 * current, CUDA 13.0): noted as managed until destroyed. */
void gl_pool_kinds_created(uint64_t pool, int managed);
void gl_pool_kinds_destroyed(uint64_t pool);
/* GL_KIND_MANAGED for a managed pool noted here, else GL_KIND_POOL (pool 0:
 * the stream's device's current pool). */
uint16_t gl_pool_kind(uint64_t pool);
void gl_pool_kinds_postfork_child(void);

#endif
