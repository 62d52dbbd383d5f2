/* The text report's allocations failed for lack of memory. */
#ifndef GPULEAK_RENDER_TEXT_OOM_H
#define GPULEAK_RENDER_TEXT_OOM_H

struct report_ctx;

/* The SUMMARY line ("out of memory: N failed allocations"), when any. */
void text_oom_summary(struct report_ctx *r);
/* The OUT OF MEMORY section, when any allocation failed for lack of memory. */
void text_oom(struct report_ctx *r);

#endif
