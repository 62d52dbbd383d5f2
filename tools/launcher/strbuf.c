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
