#include "live_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void live_free(struct live *l)
{
    for (size_t i = 0; i < l->nmods; i++)
        free(l->mods[i].path.s);
    free(l->mods);
    for (size_t i = 0; i < l->npyframes; i++) {
        free(l->pyframes[i].file.s);
        free(l->pyframes[i].function.s);
    }
    free(l->pyframes);
    free(l->sites);
    free(l->stacks);
    memset(l, 0, sizeof *l);
}

/* ---- reading ------------------------------------------------------------- */

/* Room for one more element in *arr (n used of *cap), doubling; the new
 * element zeroed. */
static bool room(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        void *more = realloc(*arr, c * size);
        if (more == NULL)
            return false;
        *arr = more;
        *cap = c;
    }
    memset((char *)*arr + n * size, 0, size);
    return true;
}

static bool u64(const char *s, int base, uint64_t *out)
{
    if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}

static bool dev_num(const char *s, int *out)
{
    uint64_t v;
    if (s != NULL && s[0] == '-' && strcmp(s, "-1") == 0) {
        *out = -1;
        return true;
    }
    if (!u64(s, 10, &v) || v > 1024)
        return false;
    *out = (int)v;
    return true;
}

/* Reads at most MAX_FILE bytes of path; NULL with *why set on failure. */
char *live_slurp(const char *path, size_t *len, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = "not a regular file";
        return NULL;
    }
    char *buf = malloc(MAX_FILE + 1);
    size_t n = 0;
    while (buf != NULL && n < MAX_FILE) {
        ssize_t r = read(fd, buf + n, MAX_FILE - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (buf == NULL) {
        *why = "out of memory";
        return NULL;
    }
    if (n == MAX_FILE) {
        free(buf);
        *why = "larger than 16 MiB";
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

#define MAX_TOKENS (MAX_DEPTH + 4)

/* Splits the first n space-separated fields of line into f; the rest of
 * the line (a path, spaces allowed) is returned, NULL if fields are missing. */
static char *fields(char *line, char **f, int n)
{
    for (int i = 0; i < n; i++) {
        f[i] = line;
        line = strchr(line, ' ');
        if (line == NULL)
            return NULL;
        *line++ = '\0';
    }
    return line;
}

/* "module START END BIAS BUILDID PATH" (after the key).  false: *why set
 * (out of memory, too many), or NULL for a malformed line. */
static bool parse_module(char *line, struct live *l, size_t *cap, const char **why)
{
    *why = NULL;
    if (l->nmods == MAX_MODULES) {
        *why = "more than 4096 modules";
        return false;
    }
    if (!room((void **)&l->mods, cap, l->nmods, sizeof *l->mods)) {
        *why = "out of memory";
        return false;
    }
    char *f[4];
    char *p = fields(line, f, 4);
    struct snap_module *m = &l->mods[l->nmods];
    if (p == NULL || !u64(f[0], 16, &m->start) || !u64(f[1], 16, &m->end) || !u64(f[2], 16, &m->load_bias) ||
        m->end < m->start)
        return false;
    if (strcmp(f[3], "-") != 0) {
        size_t hex = strlen(f[3]);
        if (hex % 2 || hex / 2 > GL_SNAP_MAX_BUILD_ID)
            return false;
        for (size_t i = 0; i < hex / 2; i++) {
            unsigned v;
            if (sscanf(f[3] + 2 * i, "%2x", &v) != 1)
                return false;
            m->build_id[i] = (uint8_t)v;
        }
        m->build_id_len = (uint32_t)(hex / 2);
    }
    m->path.s = strdup(p);
    if (m->path.s == NULL) {
        *why = "out of memory";
        return false;
    }
    m->path.len = (uint32_t)strlen(p);
    l->nmods++;
    return true;
}

static bool owned_str(struct snap_str *out, const char *s)
{
    out->s = strdup(s);
    out->len = out->s ? (uint32_t)strlen(s) : 0;
    return out->s != NULL;
}

/* "pyframe ID LINE FUNCTION FILE" (version 2, after the key): the text of
 * the Python frame py:ID.  false as parse_module. */
static bool parse_pyframe(char *line, struct live *l, size_t *cap, const char **why)
{
    *why = NULL;
    if (l->npyframes == MAX_PYFRAMES) {
        *why = "more than 131072 Python frames";
        return false;
    }
    char *f[3];
    char *file = fields(line, f, 3);
    uint64_t id, lineno;
    if (file == NULL || !u64(f[0], 10, &id) || id == 0 || id > UINT32_MAX || !u64(f[1], 10, &lineno) ||
        lineno > UINT32_MAX || f[2][0] == '\0')
        return false;
    if (!room((void **)&l->pyframes, cap, l->npyframes, sizeof *l->pyframes)) {
        *why = "out of memory";
        return false;
    }
    struct snap_pyframe *py = &l->pyframes[l->npyframes];
    py->id = (uint32_t)id;
    py->line = (uint32_t)lineno;
    /* counted once both are owned: live_free frees what is counted */
    bool ok = owned_str(&py->function, f[2]) && owned_str(&py->file, file);
    if (!ok) {
        free(py->function.s);
        free(py->file.s);
        *why = "out of memory";
        return false;
    }
    l->npyframes++;
    return true;
}

/* A stack's frame: a return address (hex), or in version 2 py:ID, a Python
 * frame, kept as snapshots keep it (GL_PYFRAME_TAG | ID).  A hex value
 * with the tag is version 1's raw id, which nothing explains: *pc 0, the
 * frame dropped; in version 2 it is malformed. */
static bool stack_frame(const char *tok, int version, uint64_t *pc)
{
    uint64_t v;
    if (version >= 2 && strncmp(tok, "py:", 3) == 0) {
        if (!u64(tok + 3, 10, &v) || v == 0 || v > UINT32_MAX)
            return false;
        *pc = GL_PYFRAME_TAG | v;
        return true;
    }
    if (!u64(tok, 16, &v))
        return false;
    if (gl_pc_is_pyframe(v)) {
        *pc = 0;
        return version < 2;
    }
    *pc = v;
    return true;
}

static int pyframe_order(const void *a, const void *b)
{
    const struct snap_pyframe *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Every py:ID of the stacks has its pyframe line; the frames sorted by id
 * (the symbolizer's lookup). */
static bool pyframes_complete(struct live *l, char *whybuf, size_t whysize, const char **why)
{
    if (l->npyframes > 1) /* (qsort and bsearch take no NULL array, even empty) */
        qsort(l->pyframes, l->npyframes, sizeof *l->pyframes, pyframe_order);
    for (size_t i = 0; i < l->nstacks; i++)
        for (uint32_t k = 0; k < l->stacks[i].depth; k++) {
            uint64_t pc = l->stacks[i].pcs[k];
            struct snap_pyframe key = {.id = (uint32_t)(pc & 0xffffffffu)};
            if (gl_pc_is_pyframe(pc) &&
                (l->npyframes == 0 || !bsearch(&key, l->pyframes, l->npyframes, sizeof key, pyframe_order))) {
                snprintf(whybuf, whysize, "Python frame %u has no pyframe line", key.id);
                *why = whybuf;
                return false;
            }
        }
    return true;
}

/* Where live_parse is: the room of the arrays that grow, and the version
 * the header line gave (0 before it). */
struct live_parser {
    struct live *l;
    size_t sites_cap, stacks_cap, mods_cap, py_cap;
    int version;
};

/* Splits line at spaces into tok; the number of tokens, or -1 when there
 * are more than MAX_TOKENS. */
static int line_tokens(char *line, char **tok)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save)) {
        if (n == MAX_TOKENS)
            return -1;
        tok[n++] = t;
    }
    return n;
}

/* "gpuleak-live VERSION", the first line: the version, or 0 with *why. */
static int header_version(char **tok, int n, char *whybuf, size_t whysize, const char **why)
{
    if (n != 2 || strcmp(tok[0], "gpuleak-live") != 0) {
        *why = "not a gpuleak live file";
        return 0;
    }
    if (strcmp(tok[1], "1") == 0 || strcmp(tok[1], "2") == 0)
        return tok[1][0] - '0';
    snprintf(whybuf, whysize, "live file version %.20s: this gpuleak-top reads versions 1 and 2", tok[1]);
    *why = whybuf;
    return 0;
}

/* "pid N", "time_ns N", "uptime_ns N", "oom_total N", "sites_left_out N".
 * false: malformed. */
static bool parse_scalar(const char *key, const char *val, struct live *l)
{
    uint64_t v;
    if (strcmp(key, "pid") == 0) {
        if (!u64(val, 10, &v) || v == 0 || v > INT_MAX)
            return false;
        l->pid = (int)v;
        return true;
    }
    uint64_t *to = !strcmp(key, "time_ns") ? &l->time_ns : !strcmp(key, "uptime_ns") ? &l->uptime_ns
                   : !strcmp(key, "oom_total") ? &l->oom_total : &l->left_out;
    return u64(val, 10, to);
}

static bool is_scalar_key(const char *key)
{
    return !strcmp(key, "pid") || !strcmp(key, "time_ns") || !strcmp(key, "uptime_ns") ||
           !strcmp(key, "oom_total") || !strcmp(key, "sites_left_out");
}

/* "sampling R ID": R > 0, ID a stack id.  false: malformed. */
static bool parse_sampling(char **tok, struct live *l)
{
    uint64_t r, id;
    if (!u64(tok[1], 10, &r) || r == 0 || !u64(tok[2], 10, &id) || id > UINT32_MAX)
        return false;
    l->sample_bytes = r;
    l->unsampled_stack = (uint32_t)id;
    return true;
}

/* "device DEV live_bytes N live_count N peak_bytes N peak_time_ns N
 * alloc_count N free_count N failed_count N".  false: malformed. */
static bool parse_device(char **tok, struct live *l)
{
    if (l->ndevs == MAX_DEVICES)
        return false;
    struct live_dev *d = &l->devs[l->ndevs];
    static const char *const keys[] = {"live_bytes", "live_count", "peak_bytes", "peak_time_ns",
                                       "alloc_count", "free_count", "failed_count"};
    uint64_t *vals[] = {&d->live, &d->count, &d->peak, &d->peak_ns, &d->allocs, &d->frees, &d->failed};
    if (!dev_num(tok[1], &d->device))
        return false;
    for (int i = 0; i < 7; i++)
        if (strcmp(tok[2 + 2 * i], keys[i]) != 0 || !u64(tok[3 + 2 * i], 10, vals[i]))
            return false;
    l->ndevs++;
    return true;
}

/* "site STACK DEV BYTES COUNT".  false: *why set (out of memory), or NULL
 * for a malformed line. */
static bool parse_site(char **tok, struct live *l, size_t *cap, const char **why)
{
    *why = NULL;
    if (l->nsites == MAX_SITES)
        return false;
    if (!room((void **)&l->sites, cap, l->nsites, sizeof *l->sites)) {
        *why = "out of memory";
        return false;
    }
    struct live_site *s = &l->sites[l->nsites];
    uint64_t v;
    if (!u64(tok[1], 10, &v) || v > UINT32_MAX || !dev_num(tok[2], &s->device) || !u64(tok[3], 10, &s->bytes) ||
        !u64(tok[4], 10, &s->count))
        return false;
    s->stack = (uint32_t)v;
    l->nsites++;
    return true;
}

/* "oom AT_NS DEV SIZE STACK".  false: malformed. */
static bool parse_oom(char **tok, struct live *l)
{
    struct live_oom o;
    uint64_t v;
    if (!u64(tok[1], 10, &o.at_ns) || !dev_num(tok[2], &o.device) || !u64(tok[3], 10, &o.size) ||
        !u64(tok[4], 10, &v) || v > UINT32_MAX)
        return false;
    o.stack = (uint32_t)v;
    if (l->nooms == MAX_OOMS)
        return false;
    l->ooms[l->nooms++] = o;
    return true;
}

/* "stack ID FRAME..." (n tokens).  false as parse_site. */
static bool parse_stack(char **tok, int n, struct live_parser *lp, const char **why)
{
    struct live *l = lp->l;
    *why = NULL;
    if (n - 2 > MAX_DEPTH || l->nstacks == MAX_STACKS)
        return false;
    if (!room((void **)&l->stacks, &lp->stacks_cap, l->nstacks, sizeof *l->stacks)) {
        *why = "out of memory";
        return false;
    }
    struct live_stack *st = &l->stacks[l->nstacks];
    uint64_t v;
    if (!u64(tok[1], 10, &v) || v == 0 || v > UINT32_MAX)
        return false;
    st->id = (uint32_t)v;
    for (int i = 2; i < n; i++) {
        uint64_t pc;
        if (!stack_frame(tok[i], lp->version, &pc))
            return false;
        if (pc != 0)
            st->pcs[st->depth++] = pc;
    }
    l->nstacks++;
    return true;
}

/* A line after the header, split into n tokens: *end set by the end line.
 * Keys a newer library writes are skipped.  false as parse_site. */
static bool parse_keyed_line(char **tok, int n, struct live_parser *lp, bool *end, const char **why)
{
    *why = NULL;
    const char *key = tok[0];
    if (!strcmp(key, "end") && n == 1)
        *end = true;
    else if (is_scalar_key(key) && n == 2)
        return parse_scalar(key, tok[1], lp->l);
    else if (!strcmp(key, "device") && n == 16)
        return parse_device(tok, lp->l);
    else if (!strcmp(key, "site") && n == 5)
        return parse_site(tok, lp->l, &lp->sites_cap, why);
    else if (!strcmp(key, "oom") && n == 5)
        return parse_oom(tok, lp->l);
    else if (!strcmp(key, "stack") && n >= 2)
        return parse_stack(tok, n, lp, why);
    else if (!strcmp(key, "sampling") && n == 3)
        return parse_sampling(tok, lp->l);
    return true;
}

/* One line (NUL-terminated, no newline): *end set by the end line.  false
 * with *why for the whole file, or *why NULL for a malformed line. */
static bool parse_line(char *line, struct live_parser *lp, bool *end, char *whybuf, size_t whysize,
                       const char **why)
{
    *why = NULL;
    /* modules and Python frames keep their path, the rest of the line,
     * whole */
    if (strncmp(line, "module ", 7) == 0)
        return parse_module(line + 7, lp->l, &lp->mods_cap, why);
    if (lp->version >= 2 && strncmp(line, "pyframe ", 8) == 0)
        return parse_pyframe(line + 8, lp->l, &lp->py_cap, why);
    char *tok[MAX_TOKENS];
    int n = line_tokens(line, tok);
    if (n <= 0)
        return false;
    if (lp->version == 0) {
        lp->version = header_version(tok, n, whybuf, whysize, why);
        return lp->version != 0;
    }
    return parse_keyed_line(tok, n, lp, end, why);
}

/* Parses the live file's text.  false with *why (a static or into whybuf)
 * on anything malformed. */
bool live_parse(char *text, size_t len, struct live *l, char *whybuf, size_t whysize, const char **why)
{
    memset(l, 0, sizeof *l);
    l->pid = -1;
    if (memchr(text, '\0', len) != NULL) {
        *why = "not a gpuleak live file (binary data)";
        return false;
    }
    struct live_parser lp = {.l = l};
    bool end = false;
    unsigned lineno = 0;
    for (char *line = text, *next; line != NULL && *line != '\0' && !end; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next == NULL) {
            *why = "truncated (no end line)";
            return false;
        }
        *next++ = '\0';
        if (!parse_line(line, &lp, &end, whybuf, whysize, why)) {
            if (*why == NULL) {
                snprintf(whybuf, whysize, "malformed line %u", lineno);
                *why = whybuf;
            }
            return false;
        }
    }
    if (lp.version == 0) {
        *why = "empty";
        return false;
    }
    if (!end) {
        *why = "truncated (no end line)";
        return false;
    }
    return pyframes_complete(l, whybuf, whysize, why);
}
