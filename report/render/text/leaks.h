/* LEAKS, HELD BY ALLOCATOR CACHES, LEAK SUMMARY (leaks.c). */
#ifndef GPULEAK_RENDER_TEXT_LEAKS_H
#define GPULEAK_RENDER_TEXT_LEAKS_H

struct report_ctx;

void text_leaks(struct report_ctx *r);
void text_caches(struct report_ctx *r);
void text_leak_summary(struct report_ctx *r);

#endif
