/* Prints docs/reliability.md's lock table from the one list of every lock
 * (interpose/base/lock_rank.h), expanded by the compiler: run by
 * scripts/lock-doc.py, checked by tests/t_lock_doc.sh. */
#include <stdio.h>
#include <string.h>

#include "base/lock_rank.h"

static void row(const char *name, int rank, const char *rule, const char *file, const char *protects,
                const char *takers, const char *nesting)
{
    const char *how = strcmp(rule, "ORDERED") == 0     ? ", several in ascending key"
                      : strcmp(rule, "RECURSIVE") == 0 ? ", recursive"
                                                       : "";
    printf("| `%s` | %d%s | %s | %s | %s | %s |\n", name, rank, how, file, protects, takers, nesting);
}

int main(void)
{
    puts("| lock | rank | file | protects | taken by | nesting |");
    puts("|---|---|---|---|---|---|");
#define GL_LOCK_DOC_ROW(cls, rank, rule, name, file, protects, takers, nesting)                                     \
    row(name, rank, #rule, file, protects, takers, nesting);
    GL_LOCK_LIST(GL_LOCK_DOC_ROW)
#undef GL_LOCK_DOC_ROW
    return 0;
}
