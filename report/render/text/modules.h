/* LOADED MODULES (modules.c). */
#ifndef GPULEAK_RENDER_TEXT_MODULES_H
#define GPULEAK_RENDER_TEXT_MODULES_H

struct report_ctx;

void text_modules(struct report_ctx *r);

#endif
