/* Suppression rules, in the spirit of valgrind's: a named list of frame
 * patterns matched against a stack from its innermost frame.  Built-in
 * rules describe memory that well-known allocators keep cached on purpose;
 * what they match is reported as "held by allocator caches", not hidden.
 * The file format is documented in docs/reporter.md. */
#ifndef GPULEAK_SUPPRESS_H
#define GPULEAK_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "symbolize.h"

enum supp_pat_type { SP_FUN, SP_OBJ, SP_SRC, SP_ANY };

struct supp_pat {
    enum supp_pat_type type;
    char *glob;    /* fnmatch(3) pattern; NULL for SP_ANY ("...") */
    unsigned line; /* SP_SRC with ":LINE": that line only; 0 = any */
};

struct supp_rule {
    char *name;
    bool builtin; /* a default allocator-cache rule */
    /* Built-in rules only: the rule does not apply to a snapshot whose
     * environment has this variable set to a true value (the allocator was
     * told not to cache). */
    const char *off_if_env;
    struct supp_pat *pats;
    size_t npats;
};

struct suppressions {
    struct supp_rule *rules;
    size_t n;
};

/* Appends the rules of a file.  0, or -1 with "LINE: problem" in err. */
int supp_parse(struct suppressions *sp, const char *text, bool builtin,
               char *err, size_t errlen);
int supp_load_file(struct suppressions *sp, const char *path, char *err,
                   size_t errlen);
/* Appends the built-in allocator-cache rules. */
void supp_add_defaults(struct suppressions *sp);

/* Whether rule r applies to a snapshot whose environment has env_value for
 * r->off_if_env (NULL: not set). */
bool supp_rule_applies(const struct supp_rule *r, const char *env_value);
/* The built-in rules as text (for --help-suppressions and the docs). */
const char *supp_default_text(void);
void supp_free(struct suppressions *sp);

/* Index of the first rule matching the frames (innermost first; the full
 * stack, nothing folded), or -1.  paths[i] is the full path of module i
 * (obj: patterns holding a '/' match it; others match the basename). */
int supp_match(const struct suppressions *sp, const struct sym_frame *const *fr,
               size_t n, const char *const *paths, size_t npaths);

#endif
