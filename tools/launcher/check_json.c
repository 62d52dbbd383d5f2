/* check's JSON: the verdict's fields read, strings quoted (the script's
 * verdict_field and json_quote). */
#include "check_json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

/* The length of the string body at s (after its opening '"') up to its
 * closing '"', or -1 when it has none. */
static long string_body(const char *s)
{
    const char *p = s;
    while (*p != '\0' && *p != '"') {
        if (*p == '\\') {
            if (p[1] == '\0')
                return -1;
            p++;
        }
        p++;
    }
    return *p == '"' ? p - s : -1;
}

/* s with every `from` made `to` (a new string). */
static char *replace_all(char *s, const char *from, const char *to)
{
    struct strbuf b = {0};
    size_t n = strlen(from);
    for (const char *p = s; *p != '\0';) {
        if (strncmp(p, from, n) == 0) {
            sb_adds(&b, to);
            p += n;
        } else {
            sb_addc(&b, *p++);
        }
    }
    free(s);
    return sb_take(&b);
}

static char *unescape(const char *body, size_t len)
{
    char *s = str_printf("%.*s", (int)len, body);
    s = replace_all(s, "\\/", "/");
    s = replace_all(s, "\\\"", "\"");
    return replace_all(s, "\\\\", "\\");
}

char *verdict_field(const char *v, const char *name)
{
    char *key = str_printf("\"%s\":", name);
    char *value = NULL;
    for (const char *k = strstr(v, key); k != NULL && value == NULL; k = strstr(k + 1, key)) {
        const char *p = k + strlen(key);
        if (*p == '"') {
            long len = string_body(p + 1);
            if (len >= 0)
                value = unescape(p + 1, (size_t)len);
        } else if (isdigit((unsigned char)*p)) {
            size_t len = strspn(p, "0123456789");
            value = str_printf("%.*s", (int)len, p);
        }
    }
    free(key);
    return value;
}

void json_quote(struct strbuf *b, const char *t)
{
    sb_addc(b, '"');
    for (const unsigned char *p = (const unsigned char *)t; *p != '\0'; p++) {
        if (*p == '\\' || *p == '"') {
            sb_addc(b, '\\');
            sb_addc(b, (char)*p);
        } else if (*p < 0x20 || *p == 0x7f) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            sb_adds(b, esc);
        } else {
            sb_addc(b, (char)*p);
        }
    }
    sb_addc(b, '"');
}
