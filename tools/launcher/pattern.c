/* Output patterns as globs and regular expressions (the script's
 * output_glob, pattern_regex and series_glob). */
#include "pattern.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher.h"
#include "shquote.h"
#include "strbuf.h"

char *with_default_names(const char *p)
{
    size_t len = strlen(p);
    struct stat st;
    if (len > 0 && p[len - 1] == '/')
        return str_printf("%.*s/gpuleak.%%p.%%n.snap", (int)(len - 1), p);
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
        return str_printf("%s/gpuleak.%%p.%%n.snap", p);
    return str_printf("%s", p);
}

char *output_glob(const char *pattern, const char *own_rank)
{
    char *p = with_default_names(pattern);
    struct strbuf g = {0};
    for (size_t i = 0; p[i]; i++) {
        char c = p[i];
        if (c == '%' && p[i + 1] != '\0') {
            c = p[++i];
            if (c == '%')
                sb_addc(&g, '%');
            else if (c == 'r' && own_rank != NULL)
                sb_adds(&g, own_rank);
            else
                sb_addc(&g, '*');
            continue;
        }
        if (strchr("[]*?\\", c) != NULL)
            sb_addc(&g, '\\');
        sb_addc(&g, c);
    }
    free(p);
    return sb_take(&g);
}

char *pattern_regex(const char *pattern, char *roles)
{
    char *p = with_default_names(pattern);
    struct strbuf re = {0};
    size_t nroles = 0;
    sb_addc(&re, '^');
    for (size_t i = 0; p[i]; i++) {
        char c = p[i];
        if (c == '%' && p[i + 1] != '\0') {
            c = p[++i];
            if (c == 'h' || strchr("prnt", c) != NULL) {
                sb_adds(&re, c == 'h' ? "([A-Za-z0-9._-]+)" : "([0-9]+)");
                roles[nroles++] = c;
                continue;
            }
        }
        if (strchr("].[()*+?{}|^$\\", c) != NULL)
            sb_addc(&re, '\\');
        sb_addc(&re, c);
    }
    roles[nroles] = '\0';
    sb_addc(&re, '$');
    free(p);
    return sb_take(&re);
}

/* The literal text gathered so far, quoted, onto the quoted glob. */
static void flush_literal(struct strbuf *quoted, struct strbuf *lit)
{
    if (lit->len == 0)
        return;
    char *q = shell_quote(lit->s);
    sb_adds(quoted, q);
    free(q);
    lit->len = 0;
    lit->s[0] = '\0';
}

/* series_glob's walk of the expanded pattern p, group texts in m. */
static bool spell_series(const char *p, const char *file, const regmatch_t *m, struct strbuf *quoted,
                         struct strbuf *raw)
{
    struct strbuf lit = {0};
    size_t k = 0;
    for (size_t i = 0; p[i]; i++) {
        const char *text = &p[i];
        size_t n = 1;
        if (p[i] == '%' && p[i + 1] != '\0') {
            char c = p[++i];
            text = &p[i];
            if (c == 'n' || c == 't') {
                k++;
                flush_literal(quoted, &lit);
                sb_addc(quoted, '*');
                sb_addc(raw, '*');
                continue;
            }
            if (c == 'p' || c == 'r' || c == 'h') {
                k++;
                text = file + m[k].rm_so;
                n = (size_t)(m[k].rm_eo - m[k].rm_so);
            } else if (c != '%') {
                free(lit.s);
                return false;
            }
        }
        sb_addn(&lit, text, n);
        sb_addn(raw, text, n);
    }
    flush_literal(quoted, &lit);
    free(lit.s);
    return true;
}

bool series_glob(const char *pattern, const char *file, char **quoted, char **raw)
{
    char *p = with_default_names(pattern);
    char *roles = malloc(strlen(p) + 1);
    char *re_text = pattern_regex(pattern, roles);
    size_t ngroups = strlen(roles);
    regex_t re;
    regmatch_t *m = calloc(ngroups + 1, sizeof *m);
    bool ok = m != NULL && strpbrk(p, "[]*?\\") == NULL && regcomp(&re, re_text, REG_EXTENDED) == 0;
    if (ok) {
        ok = regexec(&re, file, ngroups + 1, m, 0) == 0;
        regfree(&re);
    }
    struct strbuf q = {0}, r = {0};
    if (ok)
        ok = spell_series(p, file, m, &q, &r);
    *quoted = sb_take(&q);
    *raw = sb_take(&r);
    free(m);
    free(re_text);
    free(roles);
    free(p);
    return ok;
}
