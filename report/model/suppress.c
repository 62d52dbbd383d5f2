/* Suppression files: parser, built-in rules and the matcher.
 *
 * Matching follows valgrind: the patterns are compared with the frames from
 * the innermost one outwards, "..." stands for any number of frames
 * (including none), and a rule matches when all its patterns are used up;
 * frames left over at the outer end do not matter.  "..." makes this a
 * glob over frames, matched with the classic backtrack-to-the-last-star
 * algorithm: linear in practice, never exponential. */
#include "model/suppress.h"

#include "util/path.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default rules: memory these allocators keep on purpose.  Function
 * names are matched demangled, with their parameter lists. */
static const char default_rules[] =
    "# PyTorch: blocks kept by the CUDA caching allocator for reuse (not its\n"
    "# cudaMallocAsync backend, CUDACachingAllocator::CudaMallocAsync, whose\n"
    "# allocations are tensors; and off when PYTORCH_NO_CUDA_MEMORY_CACHING is set)\n"
    "{\n"
    "   pytorch-caching-allocator\n"
    "   ...\n"
    "   fun:c10::cuda::CUDACachingAllocator::Native::*\n"
    "}\n"
    "# PyTorch built without symbols (no function names to go by): in\n"
    "# libc10_cuda.so only the allocators allocate; off, in addition, when\n"
    "# PYTORCH_ALLOC_CONF or PYTORCH_CUDA_ALLOC_CONF picks backend:cudaMallocAsync\n"
    "{\n"
    "   pytorch-caching-allocator-stripped\n"
    "   ...\n"
    "   obj:libc10_cuda.so*\n"
    "}\n"
    "# PyTorch: pinned host blocks kept by its caching host allocator\n"
    "# (at::cuda::(anonymous namespace)::CUDACachingHostAllocatorImpl; older\n"
    "# versions: CUDAHostAllocator), whether cudaHostAlloc'd or registered\n"
    "{\n"
    "   pytorch-caching-host-allocator\n"
    "   ...\n"
    "   fun:at::cuda::*HostAllocator*::*\n"
    "}\n"
    "# CuPy: the default memory pool (Cython module cupy/cuda/memory)\n"
    "{\n"
    "   cupy-memory-pool\n"
    "   ...\n"
    "   obj:*/cupy/cuda/memory.*\n"
    "}\n"
    "{\n"
    "   cupy-memory-pool-symbols\n"
    "   ...\n"
    "   fun:__pyx_*_4cupy_4cuda_6memory_*\n"
    "}\n"
    "# CuPy: the pinned (page-locked host) memory pool\n"
    "{\n"
    "   cupy-pinned-memory-pool\n"
    "   ...\n"
    "   obj:*/cupy/cuda/pinned_memory.*\n"
    "}\n"
    "{\n"
    "   cupy-pinned-memory-pool-symbols\n"
    "   ...\n"
    "   fun:__pyx_*_4cupy_4cuda_13pinned_memory_*\n"
    "}\n"
    "# TensorFlow and XLA (JAX): the BFC allocator's regions, device and pinned\n"
    "# host alike (tensorflow::BFCAllocator in older TensorFlow, tsl:: in newer\n"
    "# TensorFlow and in XLA)\n"
    "{\n"
    "   tensorflow-bfc-allocator\n"
    "   ...\n"
    "   fun:tensorflow::BFCAllocator::*\n"
    "}\n"
    "{\n"
    "   xla-bfc-allocator\n"
    "   ...\n"
    "   fun:tsl::BFCAllocator::*\n"
    "}\n"
    "# ONNX Runtime: the BFC arena of an execution provider (CUDA's by default)\n"
    "{\n"
    "   onnxruntime-bfc-arena\n"
    "   ...\n"
    "   fun:onnxruntime::BFCArena::*\n"
    "}\n"
    "# RAPIDS Memory Manager: pool, arena and stream-ordered resources\n"
    "{\n"
    "   rmm-pool\n"
    "   ...\n"
    "   fun:rmm::mr::*pool_memory_resource*\n"
    "}\n"
    "{\n"
    "   rmm-arena\n"
    "   ...\n"
    "   fun:rmm::mr::*arena_memory_resource*\n"
    "}\n"
    "{\n"
    "   rmm-stream-ordered\n"
    "   ...\n"
    "   fun:rmm::mr::detail::stream_ordered_memory_resource*\n"
    "}\n"
    "# cuBLAS / cuBLASLt and cuDNN: workspaces allocated inside the library\n"
    "{\n"
    "   cublas-workspace\n"
    "   ...\n"
    "   obj:libcublas*\n"
    "}\n"
    "{\n"
    "   cudnn-workspace\n"
    "   ...\n"
    "   obj:libcudnn*\n"
    "}\n"
    "# NCCL: a communicator's buffers (cudaMalloc'd or cuMem* memory), kept until\n"
    "# ncclCommDestroy -- which a job exiting without destroying its\n"
    "# communicators (torch.distributed without destroy_process_group) never\n"
    "# calls; by file name, and by function name where NCCL is linked in statically\n"
    "{\n"
    "   nccl-communicator\n"
    "   ...\n"
    "   obj:libnccl.so*\n"
    "}\n"
    "{\n"
    "   nccl-communicator-static\n"
    "   ...\n"
    "   fun:ncclCommInit*\n"
    "}\n";

const char *supp_default_text(void) { return default_rules; }

static void free_rule(struct supp_rule *r)
{
    for (size_t i = 0; i < r->npats; i++)
        free(r->pats[i].glob);
    free(r->pats);
    free(r->name);
}

static int perr(char *err, size_t errlen, unsigned line, const char *msg)
{
    snprintf(err, errlen, "line %u: %s", line, msg);
    return -1;
}

/* valgrind's second line of a rule: a tool's name, capitalised as
 * valgrind writes them (Memcheck, Helgrind, DRD), ':', a kind (letters,
 * digits, '_', '*'): "Memcheck:Leak", "Memcheck:Addr8".  A mistyped
 * "fnu:alloc" keeps the general message. */
static bool looks_like_kind(const char *s, size_t n)
{
    const char *c = memchr(s, ':', n);
    if (!c || !isupper((unsigned char)s[0]) || c + 1 == s + n)
        return false;
    for (const char *q = s; q < s + n; q++)
        if (q != c && !isalnum((unsigned char)*q) && *q != '_' && *q != '*')
            return false;
    return true;
}

/* One pattern line (already trimmed) into r. */
static int add_pat(struct supp_rule *r, const char *s, size_t n, unsigned lineno,
                   char *err, size_t errlen)
{
    struct supp_pat p = {0};
    if (n == 3 && memcmp(s, "...", 3) == 0) {
        p.type = SP_ANY;
    } else if (n > 4 && (memcmp(s, "fun:", 4) == 0 || memcmp(s, "obj:", 4) == 0 ||
                         memcmp(s, "src:", 4) == 0)) {
        p.type = s[0] == 'f' ? SP_FUN : s[0] == 'o' ? SP_OBJ : SP_SRC;
        const char *g = s + 4;
        size_t gn = n - 4;
        if (p.type == SP_SRC) { /* optional ":LINE" */
            const char *c = memrchr(g, ':', gn);
            if (c && c + 1 < g + gn) {
                char *end;
                errno = 0;
                unsigned long v = strtoul(c + 1, &end, 10);
                if (end == g + gn && !errno && v > 0 && v < 0x7fffffff && c[1] >= '0' &&
                    c[1] <= '9') {
                    p.line = (unsigned)v;
                    gn = (size_t)(c - g);
                }
            }
        }
        if (gn == 0)
            return perr(err, errlen, lineno, "empty pattern");
        p.glob = xstrndup(g, gn);
    } else if (r->npats == 0 && looks_like_kind(s, n)) {
        /* valgrind's "Memcheck:Leak": gpuleak's rules have no kind (each
         * moves leaked memory to "suppressed"), and a file written for
         * host memory would not match GPU stacks anyway: said, not guessed */
        return perr(err, errlen, lineno,
                    "a TOOL:KIND line (valgrind's Memcheck:Leak) is not taken: a rule is '{', "
                    "a name, then fun:, obj:, src: patterns or '...', then '}'");
    } else {
        return perr(err, errlen, lineno,
                    "expected fun:PATTERN, obj:PATTERN, src:PATTERN[:LINE], '...' or '}'");
    }
    r->pats = xrealloc(r->pats, (r->npats + 1) * sizeof *r->pats);
    r->pats[r->npats++] = p;
    return 0;
}

int supp_parse(struct suppressions *sp, const char *text, bool builtin,
               char *err, size_t errlen)
{
    struct supp_rule cur = {0};
    int state = 0; /* 0 outside, 1 expecting the name, 2 in patterns */
    unsigned lineno = 0, start_line = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const char *e = nl ? nl : p + strlen(p);
        const char *next = nl ? nl + 1 : e;
        lineno++;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        size_t n = (size_t)(e - p);
        if (n == 0 || *p == '#') {
            p = next;
            continue;
        }
        if (state == 0) {
            if (n != 1 || *p != '{') {
                free_rule(&cur);
                return perr(err, errlen, lineno, "expected '{' to start a rule");
            }
            state = 1;
            start_line = lineno;
        } else if (state == 1) {
            if (n == 1 && (*p == '{' || *p == '}')) {
                free_rule(&cur);
                return perr(err, errlen, lineno, "a rule needs a name on its first line");
            }
            cur.name = xstrndup(p, n);
            cur.builtin = builtin;
            state = 2;
        } else if (n == 1 && *p == '}') {
            if (cur.npats == 0) {
                free_rule(&cur);
                return perr(err, errlen, lineno, "a rule needs at least one pattern");
            }
            sp->rules = xrealloc(sp->rules, (sp->n + 1) * sizeof *sp->rules);
            sp->rules[sp->n++] = cur;
            memset(&cur, 0, sizeof cur);
            state = 0;
        } else if (add_pat(&cur, p, n, lineno, err, errlen)) {
            free_rule(&cur);
            return -1;
        }
        p = next;
    }
    if (state != 0) {
        free_rule(&cur);
        return perr(err, errlen, start_line, "rule not closed with '}'");
    }
    return 0;
}

int supp_load_file(struct suppressions *sp, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *buf = xrealloc(NULL, cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            if (cap > (64u << 20)) {
                fclose(f);
                free(buf);
                snprintf(err, errlen, "file too large");
                return -1;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    int bad = ferror(f);
    fclose(f);
    buf[len] = '\0';
    if (bad || memchr(buf, '\0', len)) {
        free(buf);
        snprintf(err, errlen, bad ? "read error" : "not a text file (NUL byte)");
        return -1;
    }
    int rc = supp_parse(sp, buf, false, err, errlen);
    free(buf);
    return rc;
}

void supp_add_defaults(struct suppressions *sp)
{
    char err[128];
    size_t first = sp->n;
    if (supp_parse(sp, default_rules, true, err, sizeof err) != 0) {
        fprintf(stderr, "gpuleak-report: built-in suppressions: %s\n", err);
        abort(); /* a bug in the table above */
    }
    /* With caching off, PyTorch's allocator hands every cudaMalloc straight
     * to a tensor: what is live is the program's, not a cache. */
    for (size_t i = first; i < sp->n; i++) {
        if (strcmp(sp->rules[i].name, "pytorch-caching-allocator") == 0)
            sp->rules[i].gate = SUPP_GATE_TORCH_CACHING;
        else if (strcmp(sp->rules[i].name, "pytorch-caching-allocator-stripped") == 0)
            sp->rules[i].gate = SUPP_GATE_TORCH_NATIVE_CACHING;
    }
}

/* PyTorch reads PYTORCH_NO_CUDA_MEMORY_CACHING as "set and not 0". */
static bool torch_caching_off(const char *v) { return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0; }

/* Whether an allocator configuration ("key:value,key:value", spaces
 * ignored) says backend:cudaMallocAsync. */
static bool torch_async_backend(const char *conf)
{
    if (conf == NULL)
        return false;
    char key[16], value[32];
    size_t nk = 0, nv = 0;
    bool in_value = false;
    for (const char *c = conf;; c++) {
        if (*c == ',' || *c == '\0') {
            key[nk < sizeof key ? nk : 0] = '\0';
            value[nv < sizeof value ? nv : 0] = '\0';
            if (nk < sizeof key && nv < sizeof value && strcmp(key, "backend") == 0 &&
                strcmp(value, "cudaMallocAsync") == 0)
                return true;
            if (*c == '\0')
                return false;
            nk = nv = 0;
            in_value = false;
        } else if (*c == ':' && !in_value) {
            in_value = true;
        } else if (*c != ' ' && *c != '\t') {
            if (in_value && nv < sizeof value)
                value[nv++] = *c;
            else if (!in_value && nk < sizeof key)
                key[nk++] = *c;
            else if (in_value)
                nv = sizeof value; /* too long: not the value we look for */
            else
                nk = sizeof key;
        }
    }
}

bool supp_rule_applies(const struct supp_rule *r, const struct supp_env *env)
{
    switch (r->gate) {
    case SUPP_GATE_NONE:
        return true;
    case SUPP_GATE_TORCH_CACHING:
        return !torch_caching_off(env->no_caching);
    case SUPP_GATE_TORCH_NATIVE_CACHING:
        return !torch_caching_off(env->no_caching) && !torch_async_backend(env->alloc_conf) &&
               !torch_async_backend(env->cuda_alloc_conf);
    }
    return true;
}

void supp_free(struct suppressions *sp)
{
    for (size_t i = 0; i < sp->n; i++)
        free_rule(&sp->rules[i]);
    free(sp->rules);
    memset(sp, 0, sizeof *sp);
}


/* An unknown name or file matches only the pattern "*". */
static bool glob_ok(const char *glob, const char *s)
{
    if (!s)
        return strcmp(glob, "*") == 0;
    return fnmatch(glob, s, 0) == 0;
}

static bool pat_ok(const struct supp_pat *p, const struct sym_frame *f,
                   const char *const *paths, size_t npaths)
{
    switch (p->type) {
    case SP_FUN:
        return glob_ok(p->glob, f->function);
    case SP_OBJ:
        if (strchr(p->glob, '/')) {
            const char *path = f->module_index >= 0 && (size_t)f->module_index < npaths
                                   ? paths[f->module_index] : NULL;
            return glob_ok(p->glob, path);
        }
        return glob_ok(p->glob, f->module);
    case SP_SRC:
        if (p->line && f->line != p->line)
            return false;
        if (!f->file)
            return glob_ok(p->glob, NULL);
        return glob_ok(p->glob, strchr(p->glob, '/') ? f->file : path_base(f->file));
    case SP_ANY:
        return true;
    }
    return false;
}

static bool rule_ok(const struct supp_rule *r, const struct sym_frame *const *fr,
                    size_t n, const char *const *paths, size_t npaths)
{
    size_t pi = 0, fi = 0;
    size_t star_p = (size_t)-1, star_f = 0;
    for (;;) {
        if (pi == r->npats)
            return true; /* every pattern used: outer frames do not matter */
        if (r->pats[pi].type == SP_ANY) {
            star_p = pi++;
            star_f = fi;
            continue;
        }
        if (fi < n && pat_ok(&r->pats[pi], fr[fi], paths, npaths)) {
            pi++;
            fi++;
            continue;
        }
        /* mismatch: let the last "..." swallow one more frame */
        if (star_p == (size_t)-1 || star_f >= n)
            return false;
        pi = star_p + 1;
        fi = ++star_f;
    }
}

int supp_match(const struct suppressions *sp, const struct sym_frame *const *fr,
               size_t n, const char *const *paths, size_t npaths)
{
    for (size_t i = 0; i < sp->n; i++)
        if (rule_ok(&sp->rules[i], fr, n, paths, npaths))
            return (int)i;
    return -1;
}
