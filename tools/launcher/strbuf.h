/* A growing string for the launcher's messages and patterns. */
#ifndef GL_LAUNCHER_STRBUF_H
#define GL_LAUNCHER_STRBUF_H

#include <stdbool.h>
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

/* A growing list of strings, each its own (check's pids, snapshots and
 * reporter options). */
struct strv {
    char **v; /* NULL-terminated once anything was added */
    size_t n, cap;
};

/* Adds a copy of s. */
void sv_push(struct strv *l, const char *s);
bool sv_has(const struct strv *l, const char *s);
void sv_free(struct strv *l);

#endif
