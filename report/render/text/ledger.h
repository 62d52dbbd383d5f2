/* LEDGER (ledger.c): each device's used memory, every byte of it. */
#ifndef GPULEAK_RENDER_TEXT_LEDGER_H
#define GPULEAK_RENDER_TEXT_LEDGER_H

struct report_ctx;

void text_ledger(struct report_ctx *r);

#endif
