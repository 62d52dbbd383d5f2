/* MAPPED FROM OTHER PROCESSES OR APIS (mapped.c). */
#ifndef GPULEAK_RENDER_TEXT_MAPPED_H
#define GPULEAK_RENDER_TEXT_MAPPED_H

struct report_ctx;

void text_mapped(struct report_ctx *r);

#endif
