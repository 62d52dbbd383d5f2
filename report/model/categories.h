/* Categories: what kind of user an allocation serves (NCCL, cuBLAS, a
 * caching allocator, CUDA graphs, the user's own "weights", ...), for the
 * per-phase peak composition (analysis/phases.h).  A category is a rule in
 * the suppression syntax (model/suppress.h: fun:/obj:/src: globs and "...",
 * matched from the innermost frame) whose name is the category's; the
 * rules of a --categories file come first, in file order, then the
 * built-in ones; an allocation takes the first that matches its stack.
 * The file format is documented in docs/reporter.md. */
#ifndef GPULEAK_CATEGORIES_H
#define GPULEAK_CATEGORIES_H

#include <stddef.h>
#include <stdint.h>

#include "model/suppress.h"

#define CAT_GRAPH_NAME "cuda-graph-pool"
#define CAT_OTHER_NAME "other"

struct categories {
    struct suppressions rules; /* the file's, then the built-in ones */
    size_t nuser;              /* rules from the file */
    uint32_t *cat_of_rule;     /* by rule index: index into names */
    char **names;              /* distinct, in order of first appearance */
    size_t nnames;
    uint32_t graph, other;     /* memory of kind graph; what nothing matched */
    uint32_t pytorch;          /* PyTorch's cache: also a segment PyTorch named (TORCH_BLOCKS) */
};

/* The built-in categories, after the rules of path (NULL: none).  0, or -1
 * with "PATH:LINE: problem" (or "PATH: problem") in err, c left empty. */
int cat_init(struct categories *c, const char *path, char *err, size_t errlen);
void cat_free(struct categories *c);

/* The category of memory of `kind` whose stack matched rule (-1: none):
 * a user rule first, then kind graph, then the built-in rules, then other. */
uint32_t cat_pick(const struct categories *c, int32_t rule, unsigned kind);

#endif
