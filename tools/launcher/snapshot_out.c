/* The output of a running process (the script's locate_output,
 * expand_component, output_in_place, output_files and first_new_file). */
#include "snapshot_out.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "proc.h"
#include "strbuf.h"

/* c as an fnmatch pattern that matches only itself. */
static void add_literal(struct strbuf *glob, char c)
{
    if (strchr("\\*?[", c) != NULL)
        sb_addc(glob, '\\');
    sb_addc(glob, c);
}

bool expand_component(const char *comp, const char *pid, const char *rank, const char *host, char **glob,
                      char **lit)
{
    struct strbuf g = {0}, l = {0};
    bool wild = false;
    for (size_t i = 0; comp[i]; i++) {
        char c = comp[i];
        const char *text = NULL;
        if (c == '%' && comp[i + 1] != '\0') {
            c = comp[++i];
            if (c == 'p')
                text = pid;
            else if (c == 'r')
                text = rank;
            else if ((c == 'h' && (host == NULL || *host == '\0')) || c == 'n' || c == 't') {
                sb_adds(&g, c == 'h' ? "*" : "[0-9]*");
                wild = true;
                continue;
            } else if (c == 'h')
                text = host;
            else if (c != '%') {
                sb_addc(&l, '%'); /* not a conversion: kept, as the library does */
                add_literal(&g, '%');
            }
        }
        if (text == NULL) {
            sb_addc(&l, c);
            add_literal(&g, c);
            continue;
        }
        sb_adds(&l, text);
        for (const char *t = text; *t; t++)
            add_literal(&g, *t);
    }
    *glob = sb_take(&g);
    *lit = sb_take(&l);
    return wild;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The pattern and the directory it is relative to, a directory given
 * its default names: *root and the rest, without a leading '/'. */
static char *pattern_rest(const char *pid, const char *tid, char **root)
{
    char *out = target_env(pid, "GPULEAK_OUTPUT");
    if (out == NULL || *out == '\0' || strlen(out) >= 4096) {
        free(out);
        out = str_printf("gpuleak.%%p.%%n.snap");
    }
    char *rest;
    if (out[0] == '/') {
        *root = str_printf("/");
        rest = str_printf("%s", out + 1);
    } else {
        char *cwd_link = str_printf("/proc/%s/task/%s/cwd", pid, tid);
        char buf[4096];
        ssize_t n = readlink(cwd_link, buf, sizeof buf - 1);
        free(cwd_link);
        if (n < 0)
            die("snapshot: cannot read the working directory of process %s", pid);
        *root = str_printf("%.*s", (int)n, buf);
        rest = str_printf("%s", out);
    }
    char *joined = str_printf("%s/%s", *root, rest);
    size_t len = strlen(out);
    if (out[len - 1] == '/' || is_dir(joined)) {
        size_t rl = strlen(rest);
        char *with = str_printf("%.*s/gpuleak.%%p.%%n.snap", (int)(rl && rest[rl - 1] == '/' ? rl - 1 : rl), rest);
        free(rest);
        rest = str_printf("%s", with[0] == '/' ? with + 1 : with);
        free(with);
    }
    free(joined);
    free(out);
    return rest;
}

/* root with its one trailing '/' taken off. */
static char *without_slash(const char *root)
{
    size_t n = strlen(root);
    return str_printf("%.*s", (int)(n && root[n - 1] == '/' ? n - 1 : n), root);
}

void out_search_free(struct out_search *s)
{
    free(s->root);
    free(s->glob);
    free(s->exact);
    memset(s, 0, sizeof *s);
}

struct out_search locate_output(const char *pid, const char *tid)
{
    struct out_search s = {0};
    char *root;
    char *rest = pattern_rest(pid, tid, &root);
    char *host = target_host(pid), *rank = target_rank(pid);
    struct strbuf globrest = {0};
    char *part = NULL;
    bool wild = false;
    char *save, *comp = strtok_r(rest, "/", &save);
    for (; comp != NULL; comp = strtok_r(NULL, "/", &save)) { /* (empty ones skipped) */
        char *g, *l;
        bool comp_wild = expand_component(comp, pid, rank, host, &g, &l);
        bool last = save == NULL || *save == '\0';
        if (!last && !wild && !comp_wild) { /* a fixed directory: search from there */
            char *base = without_slash(root);
            free(root);
            root = str_printf("%s/%s", base, l);
            free(base);
            free(g);
            free(l);
            continue;
        }
        wild |= comp_wild;
        if (globrest.len)
            sb_addc(&globrest, '/');
        sb_adds(&globrest, g);
        s.depth++;
        free(part);
        part = l;
        free(g);
    }
    if (s.depth < 1)
        die("snapshot: process %s has an output pattern without a file name", pid);
    if (!is_dir(root))
        die("snapshot: cannot find the output directory of process %s (%s)", pid, root);
    char *base = without_slash(root);
    struct strbuf g = {0};
    for (const char *c = base; *c; c++)
        add_literal(&g, *c);
    sb_addc(&g, '/');
    sb_adds(&g, globrest.s);
    s.glob = sb_take(&g);
    s.root = root;
    s.exact = wild ? NULL : str_printf("%s/%s", base, part);
    free(base);
    free(part);
    free(globrest.s);
    free(host);
    free(rank);
    free(rest);
    return s;
}

/* The descriptor a stream name spells out, as text ("1", "007"), or NULL:
 * the target's own descriptor, not one of ours. */
static char *spelled_stream(const char *out)
{
    const char *fd = NULL;
    if (strcmp(out, "/dev/stdout") == 0)
        fd = "1";
    else if (strcmp(out, "/dev/stderr") == 0)
        fd = "2";
    else if (strncmp(out, "/dev/fd/", 8) == 0 || strncmp(out, "/proc/self/fd/", 14) == 0)
        fd = strrchr(out, '/') + 1;
    size_t n = fd ? strspn(fd, "0123456789") : 0;
    if (n == 0 || n > 9 || fd[n] != '\0')
        return NULL;
    return str_printf("%s", fd);
}

bool output_in_place(const char *pid, const struct out_search *s, char **what)
{
    char *out = target_env(pid, "GPULEAK_OUTPUT");
    char *fd = out ? spelled_stream(out) : NULL;
    if (fd != NULL) {
        char *link = str_printf("/proc/%s/fd/%s", pid, fd);
        char buf[4096];
        ssize_t n = readlink(link, buf, sizeof buf - 1);
        *what = n < 0 ? str_printf("its descriptor %s (not open), as GPULEAK_OUTPUT=%s asks", fd, out)
                      : str_printf("its descriptor %s (%.*s), as GPULEAK_OUTPUT=%s asks", fd, (int)n, buf, out);
        free(link);
        free(fd);
        free(out);
        return true;
    }
    free(out);
    struct stat lst, st;
    if (s == NULL || s->exact == NULL || lstat(s->exact, &lst) != 0 || S_ISLNK(lst.st_mode) ||
        stat(s->exact, &st) != 0)
        return false;
    if (S_ISFIFO(st.st_mode))
        *what = str_printf("the FIFO %s", s->exact);
    else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        *what = str_printf("the device %s", s->exact);
    else
        return false;
    return true;
}

/* find ROOT -mindepth D -maxdepth D -type f -path GLOB, into l. */
static void find_files(const char *dir, int depth, const char *glob, struct strbuf *names, size_t *n)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = strcmp(dir, "/") == 0 ? str_printf("/%s", e->d_name) : str_printf("%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0) {
            if (depth > 1 && S_ISDIR(st.st_mode))
                find_files(path, depth - 1, glob, names, n);
            else if (depth == 1 && S_ISREG(st.st_mode) && fnmatch(glob, path, 0) == 0) {
                sb_addn(names, path, strlen(path) + 1);
                (*n)++;
            }
        }
        free(path);
    }
    closedir(d);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct file_list output_files(const struct out_search *s)
{
    struct strbuf names = {0};
    size_t n = 0;
    find_files(s->root, s->depth, s->glob, &names, &n);
    struct file_list l = {calloc(n + 1, sizeof(char *)), 0};
    if (l.names == NULL)
        die("out of memory");
    for (const char *p = names.s; l.n < n; p += strlen(p) + 1)
        l.names[l.n++] = str_printf("%s", p);
    free(names.s);
    qsort(l.names, l.n, sizeof *l.names, cmp_names);
    return l;
}

static bool listed(const struct file_list *l, const char *name)
{
    return bsearch(&name, l->names, l->n, sizeof *l->names, cmp_names) != NULL;
}

/* a modified before b (then by name, as sort -n's last resort). */
static bool written_before(const struct stat *a, const char *an, const struct stat *b, const char *bn)
{
    if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
        return a->st_mtim.tv_sec < b->st_mtim.tv_sec;
    if (a->st_mtim.tv_nsec != b->st_mtim.tv_nsec)
        return a->st_mtim.tv_nsec < b->st_mtim.tv_nsec;
    return strcmp(an, bn) < 0;
}

char *first_new_file(const struct file_list *after, const struct file_list *before)
{
    const char *best = NULL;
    struct stat best_st, st;
    for (size_t i = 0; i < after->n; i++) {
        const char *f = after->names[i];
        if (listed(before, f) || lstat(f, &st) != 0)
            continue;
        if (best == NULL || written_before(&st, f, &best_st, best)) {
            best = f;
            best_st = st;
        }
    }
    return best ? str_printf("%s", best) : NULL;
}
