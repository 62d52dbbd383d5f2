#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

#include "launcher.h"

void sb_addn(struct strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s2 = realloc(b->s, cap);
        if (s2 == NULL)
            die("out of memory");
        b->s = s2;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_adds(struct strbuf *b, const char *s)
{
    sb_addn(b, s, strlen(s));
}

void sb_addc(struct strbuf *b, char c)
{
    sb_addn(b, &c, 1);
}

char *sb_take(struct strbuf *b)
{
    char *s = b->s ? b->s : str_printf("%s", "");
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void sv_push(struct strv *l, const char *s)
{
    if (l->n + 2 > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            die("out of memory");
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = str_printf("%s", s);
    l->v[l->n] = NULL;
}

bool sv_has(const struct strv *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

void sv_free(struct strv *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
