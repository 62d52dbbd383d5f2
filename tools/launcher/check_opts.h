/* gpuleak check's options: read and checked before the command starts
 * (exit 2 naming the flag), the reporter's own passed on as they are. */
#ifndef GL_LAUNCHER_CHECK_OPTS_H
#define GL_LAUNCHER_CHECK_OPTS_H

#include <stdbool.h>

#include "strbuf.h"

struct check_opts {
    const char *exitcode; /* NULL or "": none */
    const char *dir;      /* --output, NULL or "": a directory of check's own */
    const char *depth;
    const char *wait;
    const char *json_file; /* --json=FILE, or NULL */
    const char *supp;      /* --suppressions, or NULL */
    bool free_stacks, full, sections;
    struct strv ropts; /* the reporter's options */
    struct strv joined; /* "--flag=value" of each option given apart: the values above point into them */
    char **command;    /* NULL-terminated */
};

/* Reads argv (the arguments after "check"); dies on a bad one. */
void parse_check(int argc, char **argv, struct check_opts *o);

/* --wait: 1 to 5 digits, up to 3 decimals, at most 86400; NULL or why. */
char *check_wait(const char *v);

/* --json=FILE: a target output files may have (a stream open here, a
 * device or FIFO, or a file in a writable directory); NULL or why. */
char *check_json_file(const char *v);

/* --error-exitcode: 1 to 255 in at most 3 digits. */
bool valid_exitcode(const char *v);

#endif
