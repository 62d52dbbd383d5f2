/* The end line of `gpuleak run`: which snapshots the command wrote and the
 * command that reads them -- one snapshot, report; several of one process
 * (a long job), diff over all of them; several processes, merge of each
 * one's last -- or, when none was written, what each process's
 * final-snapshot mark shows (interpose/control/pending.c). */
#ifndef GL_LAUNCHER_RUN_END_H
#define GL_LAUNCHER_RUN_END_H

#include <stddef.h>

struct file_list {
    char **names; /* sorted bytewise */
    size_t n;
};

/* The regular files glob matches, sorted bytewise. */
struct file_list glob_files(const char *glob);
void file_list_free(struct file_list *l);

/* Version order of sort -V between two process keys. */
int version_cmp(const char *a, const char *b);

/* The end line, on stderr, for output pattern `pattern` (empty: the
 * default), before and after the command, and run's pending directory
 * (NULL: none of its own). */
void tell_snapshots(const char *pattern, const struct file_list *before, const struct file_list *after,
                    const char *pending);

#endif
