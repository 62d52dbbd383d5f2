/* Text-report building blocks shared by the section writers, all put_*:
 * safe strings (snapshot bytes never reach the terminal raw), byte counts,
 * stacks, and colour that is only ever used when asked for or on a
 * terminal. */
#ifndef GPULEAK_TEXTOUT_H
#define GPULEAK_TEXTOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/symbolize.h"

struct report_ctx;

enum tcolor { TC_BOLD, TC_RED, TC_YELLOW, TC_GREEN, TC_CYAN, TC_DIM };

void put_color(const struct report_ctx *r, enum tcolor c);
void put_color_end(const struct report_ctx *r);
/* A section title line in bold. */
void put_title(const struct report_ctx *r, const char *title);

void put_safe(FILE *f, const char *str, size_t len);
void put_str(FILE *f, const char *s);
/* "1,048,576 bytes (1.0 MiB)" */
void put_bytes(FILE *f, uint64_t v);
/* "1.0 MiB", or "512 B" below 1 KiB */
void put_human(FILE *f, uint64_t v);
/* "1.0 MiB", or below 1 KiB the count and small_unit: "512-byte" */
void put_human_or(FILE *f, uint64_t v, const char *small_unit);
void put_count(FILE *f, uint64_t n, const char *noun);
/* "+12.0 MiB/hour": a growth rate (util/rate.h) */
void put_per_hour(FILE *f, uint64_t bytes_per_hour);
void put_secs(FILE *f, uint64_t ns);
void put_where(FILE *f, int32_t dev);
void put_kind(FILE *f, unsigned kind);
/* "BYTES in N NOUNs", the bytes in colour (or bold) c when colour is on:
 * the start of a group's first line. */
void put_amount(const struct report_ctx *r, enum tcolor c, uint64_t bytes, uint64_t count, const char *noun);
/* ": KIND memory on WHERE" */
void put_kind_where(FILE *f, unsigned kind, int32_t dev);
void put_api(FILE *f, unsigned api);
/* "function (file:line)" or "module+0xOFF" or "0xADDR": one line's worth */
void put_frame_short(FILE *f, const struct sym_frame *fr);
/* The frames of a canonical stack, one per line, "#N " numbered. */
void put_cs(const struct report_ctx *r, const char *indent, uint32_t cs);
/* The frame a canonical stack is labelled by (model/user_frame.h: the
 * first outside known allocator wrappers), short form. */
void put_cs_top(const struct report_ctx *r, uint32_t cs);

#endif
