/* bash's printf %q (lib/sh/shquote.c: ansic_shouldquote, ansic_quote and
 * sh_backslash_quote as printf calls them), recorded against bash 5.2. */
#include "shquote.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

/* A control byte: bytes from 0x80 up are taken as text (a UTF-8 name). */
static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

static bool needs_ansic(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (is_control(*p))
            return true;
    return false;
}

static const char *ansic_escape(unsigned char c)
{
    switch (c) {
    case '\a': return "\\a";
    case '\b': return "\\b";
    case 0x1b: return "\\E";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\v': return "\\v";
    case '\\': return "\\\\";
    case '\'': return "\\'";
    default: return NULL;
    }
}

static char *ansic_quote(const char *s)
{
    char *out = malloc(strlen(s) * 4 + 4);
    if (out == NULL)
        die("out of memory");
    char *o = out;
    *o++ = '$';
    *o++ = '\'';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *esc = ansic_escape(*p);
        if (esc != NULL)
            o += sprintf(o, "%s", esc);
        else if (is_control(*p))
            o += sprintf(o, "\\%03o", *p);
        else
            *o++ = (char)*p;
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

/* Whether c at s[i] gets a backslash: the shell's metacharacters, quotes,
 * globs and expansions; '~' only where a tilde expands (first, after '='
 * or ':'), '#' only first. */
static bool needs_backslash(const char *s, size_t i)
{
    char c = s[i];
    if (c == '~')
        return i == 0 || s[i - 1] == '=' || s[i - 1] == ':';
    if (c == '#')
        return i == 0;
    return c != '\0' && strchr(" \t\n'\"\\|&;()<>!{}*[?]^$`,", c) != NULL;
}

char *shell_quote(const char *s)
{
    if (*s == '\0')
        return str_printf("''");
    if (needs_ansic(s))
        return ansic_quote(s);
    char *out = malloc(strlen(s) * 2 + 1);
    if (out == NULL)
        die("out of memory");
    char *o = out;
    for (size_t i = 0; s[i]; i++) {
        if (needs_backslash(s, i))
            *o++ = '\\';
        *o++ = s[i];
    }
    *o = '\0';
    return out;
}
