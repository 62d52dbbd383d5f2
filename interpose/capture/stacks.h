/* Call stacks, captured with libunwind in the hook (and Python frames merged
 * in, pyframes.h); interned by state/stack_table.h. */
#ifndef GL_STACKS_H
#define GL_STACKS_H

#include <stdint.h>

#include "base/config.h"

struct gl_capture {
    uint32_t depth;
    uintptr_t pcs[GL_MAX_DEPTH];
};

/* Unwinds the calling thread, drops libgpuleak's own frames and keeps at
 * most gl_config.depth frames. */
void gl_stack_capture(struct gl_capture *cap);

#endif
