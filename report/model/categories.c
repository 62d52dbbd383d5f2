/* Category rules: a --categories file in the suppression syntax, then the
 * built-in categories.  The built-in ones reuse the built-in allocator-cache
 * rules of suppress.c (their patterns are maintained in one place) under a
 * category name, after two of their own: NCCL by any nccl* function, and
 * nothing else.  A category says who allocated, not whether the memory is
 * a cache, so the rules' environment gates (suppress.h) do not apply. */
#include "model/categories.h"

#include "snapshot_format.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char builtin_rules[] =
    "# NCCL linked in statically or called through its API: any nccl* function\n"
    "{\n"
    "   nccl\n"
    "   ...\n"
    "   fun:nccl*\n"
    "}\n";

/* The category a built-in allocator-cache rule of suppress.c files under. */
static const char *builtin_category(const char *rule)
{
    static const struct {
        const char *prefix, *category;
    } map[] = {
        {"pytorch-caching-allocator", "pytorch-caching-allocator"}, /* and -stripped */
        {"pytorch-caching-host-allocator", "pytorch-caching-host-allocator"},
        {"cublas", "cublas"},
        {"cudnn", "cudnn"},
        {"nccl", "nccl"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strncmp(rule, map[i].prefix, strlen(map[i].prefix)) == 0)
            return map[i].category;
    return "allocator-cache"; /* CuPy, TensorFlow, XLA, ONNX Runtime, RMM */
}

static uint32_t name_index(struct categories *c, const char *name)
{
    for (size_t i = 0; i < c->nnames; i++)
        if (strcmp(c->names[i], name) == 0)
            return (uint32_t)i;
    c->names = xrealloc(c->names, (c->nnames + 1) * sizeof *c->names);
    c->names[c->nnames] = xstrdup(name);
    return (uint32_t)c->nnames++;
}

/* "line N: problem" from supp_parse as "PATH:N: problem". */
static void file_error(char *err, size_t errlen, const char *path, const char *msg)
{
    unsigned long line;
    int used = 0;
    if (sscanf(msg, "line %lu: %n", &line, &used) == 1 && used > 0)
        snprintf(err, errlen, "%s:%lu: %s", path, line, msg + used);
    else
        snprintf(err, errlen, "%s: %s", path, msg);
}

int cat_init(struct categories *c, const char *path, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (path) {
        char msg[384];
        if (supp_load_file(&c->rules, path, msg, sizeof msg) != 0) {
            file_error(err, errlen, path, msg);
            supp_free(&c->rules);
            return -1;
        }
    }
    c->nuser = c->rules.n;
    char msg[128];
    if (supp_parse(&c->rules, builtin_rules, true, msg, sizeof msg) != 0) {
        fprintf(stderr, "gpuleak-report: built-in categories: %s\n", msg);
        abort(); /* a bug in the table above */
    }
    size_t own = c->rules.n;
    supp_add_defaults(&c->rules);
    c->cat_of_rule = xcalloc(c->rules.n ? c->rules.n : 1, sizeof *c->cat_of_rule);
    for (size_t i = 0; i < c->rules.n; i++)
        c->cat_of_rule[i] = name_index(c, i < own ? c->rules.rules[i].name
                                                  : builtin_category(c->rules.rules[i].name));
    c->graph = name_index(c, CAT_GRAPH_NAME);
    c->other = name_index(c, CAT_OTHER_NAME);
    c->pytorch = name_index(c, builtin_category("pytorch-caching-allocator"));
    return 0;
}

void cat_free(struct categories *c)
{
    supp_free(&c->rules);
    for (size_t i = 0; i < c->nnames; i++)
        free(c->names[i]);
    free(c->names);
    free(c->cat_of_rule);
    memset(c, 0, sizeof *c);
}

uint32_t cat_pick(const struct categories *c, int32_t rule, unsigned kind)
{
    if (rule >= 0 && (size_t)rule < c->nuser)
        return c->cat_of_rule[rule];
    if (kind == GL_KIND_GRAPH)
        return c->graph;
    if (rule >= 0 && (size_t)rule < c->rules.n)
        return c->cat_of_rule[rule];
    return c->other;
}
