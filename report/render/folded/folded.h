/* --folded: stacks for flame graph tools. */
#ifndef GPULEAK_RENDER_FOLDED_FOLDED_H
#define GPULEAK_RENDER_FOLDED_FOLDED_H

#include <stdbool.h>

struct report_ctx;

/* --folded leaks|peak: one "outer;...;inner BYTES" line per stack */
void output_folded(struct report_ctx *r, bool peak);

#endif
