/* Where a running process writes its snapshots, read from outside it:
 * its GPULEAK_OUTPUT (or the settings an attach gave it) resolved as its
 * library resolved it, with its own %p, %r and %h, so that `gpuleak
 * snapshot` can wait for the new file and name it. */
#ifndef GL_LAUNCHER_SNAPSHOT_OUT_H
#define GL_LAUNCHER_SNAPSHOT_OUT_H

#include <stdbool.h>

#include "run_end.h"

/* The pattern's files as a find(1) search: under root, depth levels
 * below it, whose paths match glob (fnmatch, '/' not special); exact is
 * the one name when the pattern has neither %n nor %t, else NULL. */
struct out_search {
    char *root;
    int depth;
    char *glob;
    char *exact;
};

/* One component of a pattern (no '/') with pid, rank and host (NULL or
 * empty: unknown) put in: *glob an fnmatch pattern (%n, %t and an unknown
 * host as wildcards, the rest literal), *lit the text; true when it has a
 * wildcard. */
bool expand_component(const char *comp, const char *pid, const char *rank, const char *host, char **glob,
                      char **lit);

void out_search_free(struct out_search *s);

/* The search for process pid, whose writer thread tid keeps the working
 * directory the library resolved a relative pattern against; dies as
 * "snapshot: ..." when it cannot be made. */
struct out_search locate_output(const char *pid, const char *tid);

/* Whether pid writes its snapshots in place (a stream it spells out, or
 * the one name of s, when s is not NULL, being a FIFO or a device): then
 * *what says which, in words. */
bool output_in_place(const char *pid, const struct out_search *s, char **what);

/* The regular files of the search, sorted bytewise. */
struct file_list output_files(const struct out_search *s);

/* Of after's files not in before, the one modified first, or NULL. */
char *first_new_file(const struct file_list *after, const struct file_list *before);

#endif
