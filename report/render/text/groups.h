/* Paragraphs shared by the text report's groups (groups.c). */
#ifndef GPULEAK_RENDER_TEXT_GROUPS_H
#define GPULEAK_RENDER_TEXT_GROUPS_H

#include <stdbool.h>
#include <stdio.h>

#include "render/text/textout.h"

struct leak_group;
struct group_list;
struct report_ctx;

void text_group_when(struct report_ctx *r, const struct leak_group *g, const char *verb);
void text_group_where(struct report_ctx *r, const struct leak_group *g);
void text_group_what(struct report_ctx *r, const struct leak_group *g, enum tcolor color, const char *noun);
void text_group_head(struct report_ctx *r, const struct leak_group *g, bool rule);
void text_hidden_line(FILE *f, const struct group_list *l);
/* Light mode: the allocations of the list that were not sampled. */
void text_unsampled_line(struct report_ctx *r, const struct group_list *l);

#endif
