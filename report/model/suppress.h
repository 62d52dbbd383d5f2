/* Suppression rules, in the spirit of valgrind's: a named list of frame
 * patterns matched against a stack from its innermost frame.  Built-in
 * rules describe memory that well-known allocators keep cached on purpose;
 * what they match is reported as "held by allocator caches", not hidden.
 * The file format is documented in docs/reporter.md. */
#ifndef GPULEAK_SUPPRESS_H
#define GPULEAK_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/symbolize.h"

enum supp_pat_type { SP_FUN, SP_OBJ, SP_SRC, SP_ANY };

struct supp_pat {
    enum supp_pat_type type;
    char *glob;    /* fnmatch(3) pattern; NULL for SP_ANY ("...") */
    unsigned line; /* SP_SRC with ":LINE": that line only; 0 = any */
};

enum supp_gate {
    SUPP_GATE_NONE,
    /* off when PYTORCH_NO_CUDA_MEMORY_CACHING is set and not 0 */
    SUPP_GATE_TORCH_CACHING,
    /* that, and off when PYTORCH_ALLOC_CONF or PYTORCH_CUDA_ALLOC_CONF picks
     * the cudaMallocAsync backend (whose allocations are tensors) */
    SUPP_GATE_TORCH_NATIVE_CACHING,
};

/* The recorded environment variables the gates read (NULL: not set). */
struct supp_env {
    const char *no_caching, *alloc_conf, *cuda_alloc_conf;
};

struct supp_rule {
    char *name;
    bool builtin; /* a default allocator-cache rule */
    /* Built-in rules only: when the snapshot's recorded environment turns
     * the rule off (the allocator was told not to cache). */
    enum supp_gate gate;
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

/* Whether rule r applies to a snapshot with this environment. */
bool supp_rule_applies(const struct supp_rule *r, const struct supp_env *env);
/* The built-in rules as text (for --help-suppressions and the docs). */
const char *supp_default_text(void);
void supp_free(struct suppressions *sp);

/* Index of the first rule matching the frames (innermost first; the full
 * stack, nothing folded), or -1.  paths[i] is the full path of module i
 * (obj: patterns holding a '/' match it; others match the basename). */
int supp_match(const struct suppressions *sp, const struct sym_frame *const *fr,
               size_t n, const char *const *paths, size_t npaths);

#endif
