/* The text report's TIMELINE and FRAGMENTATION sections. */
#ifndef GPULEAK_RENDER_TEXT_TEXT_SECTIONS_H
#define GPULEAK_RENDER_TEXT_TEXT_SECTIONS_H

struct report_ctx;

void text_timeline(struct report_ctx *r);
void text_fragmentation(struct report_ctx *r);

#endif
