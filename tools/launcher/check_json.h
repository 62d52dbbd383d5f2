/* The JSON check reads and writes: a field of the one-line verdict
 * gpuleak-report --verdict writes (cli/verdict.c: flat, compact), and text
 * quoted as a JSON string for check --json's document. */
#ifndef GL_LAUNCHER_CHECK_JSON_H
#define GL_LAUNCHER_CHECK_JSON_H

#include "strbuf.h"

/* Field name of the verdict v, the first "name": whose value is a string
 * or digits: a number as it is, a string unquoted ('\/', '\"' then '\\'
 * undone in that order, as the script did; other escapes stay).  A new
 * string, or NULL when there is none ("rank":null). */
char *verdict_field(const char *v, const char *name);

/* t as a JSON string, quoted: '\' and '"' escaped, control bytes as
 * \u00XX, other bytes as they are. */
void json_quote(struct strbuf *b, const char *t);

#endif
