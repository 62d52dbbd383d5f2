/* This library and this thread (self.c).  The start times and the
 * per-thread counts it defines are declared in base/internal.h, which every
 * file includes. */
#ifndef GL_BASE_SELF_H
#define GL_BASE_SELF_H

#include <stdbool.h>
#include <stdint.h>

/* The calling thread's kernel id (cached; right after fork too). */
uint32_t gl_gettid(void);

/* True if addr lies inside libgpuleak.so's own mapped segments. */
bool gl_is_own_address(uintptr_t addr);
/* The same range, for a loop that tests many addresses: [*start, *end),
 * empty when it cannot be found. */
void gl_own_range(uintptr_t *start, uintptr_t *end);

/* Sets what the constructor sets (start times, own address range) if it has
 * not run yet: activation can come first, from another library's
 * constructor.  Cheap when it has. */
void gl_self_init(void);

#endif
