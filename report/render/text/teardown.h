/* The text report's memory left to teardown. */
#ifndef GPULEAK_RENDER_TEXT_TEARDOWN_H
#define GPULEAK_RENDER_TEXT_TEARDOWN_H

#include <stddef.h>
#include <stdint.h>

struct report_ctx;

/* The SUMMARY line, and the section (the `top` largest groups, all when 0),
 * when there are any. */
void text_torn_summary(struct report_ctx *r);
void text_torn(struct report_ctx *r, size_t top);
/* ": KIND memory on WHERE (API), released by TEARDOWN" and ", held by
 * RULE" (nothing without a rule): the parts of a group's first line. */
void text_torn_site(struct report_ctx *r, unsigned kind, int32_t device, unsigned api, unsigned teardown);
void text_torn_rule(struct report_ctx *r, int32_t rule);

#endif
