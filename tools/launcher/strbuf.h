/* A growing string for the launcher's messages and patterns. */
#ifndef GL_LAUNCHER_STRBUF_H
#define GL_LAUNCHER_STRBUF_H

#include <stddef.h>

struct strbuf {
    char *s; /* always terminated once anything was added */
    size_t len, cap;
};

void sb_addn(struct strbuf *b, const char *s, size_t n);
void sb_adds(struct strbuf *b, const char *s);
void sb_addc(struct strbuf *b, char c);
/* The string, handed over (an empty one when nothing was added). */
char *sb_take(struct strbuf *b);

#endif
