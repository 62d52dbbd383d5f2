/* The text report's memory by phase (analysis/phases.h). */
#ifndef GPULEAK_RENDER_TEXT_PHASES_H
#define GPULEAK_RENDER_TEXT_PHASES_H

struct report_ctx;

/* The PHASES section, when the history holds annotations. */
void text_phases(struct report_ctx *r);

#endif
