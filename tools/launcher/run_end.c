/* `gpuleak run`'s end line (the script's tell_snapshots and the functions
 * it calls). */
#include "run_end.h"

#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher.h"
#include "parse.h"
#include "pattern.h"
#include "shquote.h"
#include "strbuf.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct file_list glob_files(const char *pattern)
{
    struct file_list l = {0};
    glob_t g;
    if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
        return l;
    l.names = calloc(g.gl_pathc + 1, sizeof *l.names);
    struct stat st;
    for (size_t i = 0; l.names && i < g.gl_pathc; i++)
        if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
            l.names[l.n++] = str_printf("%s", g.gl_pathv[i]);
    globfree(&g);
    qsort(l.names, l.n, sizeof *l.names, cmp_str);
    return l;
}

void file_list_free(struct file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->n = 0;
}

/* A character's weight in sort -V's comparison of non-digits: '~' first,
 * then the end, then letters, then the rest (Debian's verrevcmp). */
static int version_order(int c)
{
    if (isdigit(c))
        return 0;
    if (isalpha(c))
        return c;
    if (c == '~')
        return -1;
    return c ? c + 256 : 0;
}

int version_cmp(const char *a, const char *b)
{
    while (*a || *b) {
        int diff = 0;
        while ((*a && !isdigit((unsigned char)*a)) || (*b && !isdigit((unsigned char)*b))) {
            int ca = version_order((unsigned char)*a), cb = version_order((unsigned char)*b);
            if (ca != cb)
                return ca - cb;
            a++;
            b++;
        }
        while (*a == '0')
            a++;
        while (*b == '0')
            b++;
        while (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            if (!diff)
                diff = *a - *b;
            a++;
            b++;
        }
        if (isdigit((unsigned char)*a))
            return 1;
        if (isdigit((unsigned char)*b))
            return -1;
        if (diff)
            return diff;
    }
    return 0;
}

/* One new snapshot: its process (from %p, %r and %h; "-" without them),
 * its number (%n, else %t, else 0) and its name. */
struct snap {
    char *key;
    char *num;
    const char *file;
    char *line; /* "KEY NUM FILE": sort's last resort */
};

static int num_cmp(const char *a, const char *b)
{
    while (*a == '0' && a[1])
        a++;
    while (*b == '0' && b[1])
        b++;
    size_t la = strlen(a), lb = strlen(b);
    return la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
}

static int snap_cmp(const void *pa, const void *pb)
{
    const struct snap *a = pa, *b = pb;
    int c = version_cmp(a->key, b->key);
    if (c == 0)
        c = num_cmp(a->num, b->num);
    return c ? c : strcmp(a->line, b->line);
}

/* The key and number of file from the pattern's regular expression. */
static void read_snap(struct snap *s, const char *file, regex_t *re, const char *roles)
{
    size_t ng = strlen(roles);
    regmatch_t m[ng + 1];
    struct strbuf key = {0};
    s->file = file;
    s->num = NULL;
    if (regexec(re, file, ng + 1, m, 0) == 0) {
        for (size_t k = 0; k < ng; k++) {
            const char *t = file + m[k + 1].rm_so;
            int n = (int)(m[k + 1].rm_eo - m[k + 1].rm_so);
            if (strchr("prh", roles[k]) != NULL) {
                if (key.len)
                    sb_addc(&key, '.');
                sb_addn(&key, t, (size_t)n);
            } else if (roles[k] == 'n' || (roles[k] == 't' && strchr(roles, 'n') == NULL)) {
                free(s->num);
                s->num = str_printf("%.*s", n, t);
            }
        }
    }
    s->key = key.len ? sb_take(&key) : str_printf("-");
    free(key.s);
    if (s->num == NULL)
        s->num = str_printf("0");
    s->line = str_printf("%s %s %s", s->key, s->num, file);
}

/* The new files in the order they were written: by process, then number. */
static struct snap *order_snaps(const char *pattern, char **files, size_t n)
{
    char *roles = malloc(strlen(pattern) + 32);
    char *re_text = pattern_regex(pattern, roles);
    regex_t re;
    int bad = regcomp(&re, re_text, REG_EXTENDED);
    struct snap *s = calloc(n, sizeof *s);
    if (s == NULL || roles == NULL)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        if (bad)
            roles[0] = '\0';
        read_snap(&s[i], files[i], &re, roles);
    }
    if (!bad)
        regfree(&re);
    qsort(s, n, sizeof *s, snap_cmp);
    free(re_text);
    free(roles);
    return s;
}

/* "(A, B)" or "(A ... Z)". */
static char *name_span(const char *first, const char *last, size_t n)
{
    return str_printf(n == 2 ? "(%s, %s)" : "(%s ... %s)", first, last);
}

static int same_lists(const struct file_list *a, char **b, size_t n)
{
    char **sorted = malloc(n * sizeof *sorted);
    if (sorted == NULL)
        die("out of memory");
    memcpy(sorted, b, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_str);
    int same = a->n == n;
    for (size_t i = 0; same && i < n; i++)
        same = strcmp(a->names[i], sorted[i]) == 0;
    free(sorted);
    return same;
}

/* Each file quoted, after a space (the first without). */
static char *quoted_list(char **files, size_t n, const char *sep_first)
{
    struct strbuf b = {0};
    for (size_t i = 0; i < n; i++) {
        char *q = shell_quote(files[i]);
        sb_adds(&b, i ? " " : sep_first);
        sb_adds(&b, q);
        free(q);
    }
    return sb_take(&b);
}

/* How to diff one process's snapshots (in the order taken): two by name;
 * more as the process's glob when that names exactly them (the reporter
 * orders one process's snapshots itself), else each by name. */
static char *series_diff_args(const char *pattern, char **files, size_t n)
{
    char *quoted, *raw;
    if (n > 2 && series_glob(pattern, files[0], &quoted, &raw)) {
        struct file_list g = glob_files(raw);
        int same = same_lists(&g, files, n);
        file_list_free(&g);
        free(raw);
        if (same)
            return quoted;
        free(quoted);
    } else if (n > 2) {
        free(quoted);
        free(raw);
    }
    return quoted_list(files, n, "");
}

static void tell_one_process(const char *pattern, const char *self, char **files, size_t n)
{
    char *span = name_span(files[0], files[n - 1], n);
    char *args = series_diff_args(pattern, files, n);
    fprintf(stderr, "%s: wrote %zu snapshots of one process %s; see what grew with: %s diff %s\n",
            launcher()->prog, n, span, self, args);
    free(span);
    free(args);
}

static void tell_processes(const char *self, const struct snap *s, size_t n)
{
    char **lasts = malloc(n * sizeof *lasts);
    if (lasts == NULL)
        die("out of memory");
    size_t procs = 0;
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || strcmp(s[i].key, s[i + 1].key) != 0)
            lasts[procs++] = (char *)s[i].file;
    char *merge = quoted_list(lasts, procs, " ");
    const char *prog = launcher()->prog;
    if (procs == n) {
        char *span = name_span(lasts[0], lasts[procs - 1], procs);
        fprintf(stderr, "%s: wrote %zu snapshots, one per process %s; compare them with: %s merge%s\n", prog, n,
                span, self, merge);
        free(span);
    } else {
        fprintf(stderr, "%s: wrote %zu snapshots of %zu processes; compare the last of each with: %s merge%s\n",
                prog, n, procs, self, merge);
    }
    free(merge);
    free(lasts);
}

static size_t count_processes(const struct snap *s, size_t n)
{
    size_t procs = 0;
    for (size_t i = 0; i < n; i++)
        procs += i == 0 || strcmp(s[i].key, s[i - 1].key) != 0;
    return procs;
}

static void tell_several(const char *pattern, const char *self, char **files, size_t n)
{
    struct snap *s = order_snaps(pattern, files, n);
    if (count_processes(s, n) == 1) {
        char **ordered = malloc(n * sizeof *ordered);
        if (ordered == NULL)
            die("out of memory");
        for (size_t i = 0; i < n; i++)
            ordered[i] = (char *)s[i].file;
        tell_one_process(pattern, self, ordered, n);
        free(ordered);
    } else {
        tell_processes(self, s, n);
    }
    for (size_t i = 0; i < n; i++) {
        free(s[i].key);
        free(s[i].num);
        free(s[i].line);
    }
    free(s);
}

/* The final-snapshot mark of one process: its first line ("" when it
 * cannot be read). */
static char *first_line(const char *path)
{
    char *line = file_first_line(path);
    return line ? line : str_printf("%s", "");
}

static void tell_mark(const char *pid, const char *mark, const char *self)
{
    const char *prog = launcher()->prog;
    if (strncmp(mark, "written ", 8) == 0) {
        char *q = shell_quote(mark + 8);
        fprintf(stderr, "%s: process %s wrote its final snapshot to %s; read it with: %s report %s\n", prog, pid,
                mark + 8, self, q);
        free(q);
    } else if (strcmp(mark, "not written") == 0) {
        fprintf(stderr,
                "%s: no snapshot was written: process %s made CUDA calls, but its final snapshot could not be "
                "written (gpuleak's warning above says why)\n",
                prog, pid);
    } else {
        fprintf(stderr,
                "%s: no snapshot was written: process %s made CUDA calls, but it ended without a final snapshot\n",
                prog, pid);
    }
}

static int is_pid_name(const struct dirent *d)
{
    return d->d_name[0] != '\0' && strspn(d->d_name, "0123456789") == strlen(d->d_name);
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* No new file matches the pattern: what the marks in pending show. */
static void no_snapshot_lines(const char *pending, const char *pattern, const char *self)
{
    if (pending == NULL) {
        fprintf(stderr, "%s: no snapshot was written under %s\n", launcher()->prog, pattern);
        return;
    }
    struct dirent **ents = NULL;
    int n = scandir(pending, &ents, is_pid_name, name_cmp);
    int said = 0;
    for (int i = 0; i < n; i++) {
        char *path = str_printf("%s/%s", pending, ents[i]->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            char *mark = first_line(path);
            tell_mark(ents[i]->d_name, mark, self);
            free(mark);
            said = 1;
        }
        free(path);
        free(ents[i]);
    }
    free(ents);
    if (!said)
        fprintf(stderr, "%s: no snapshot was written: the command made no CUDA call gpuleak saw\n",
                launcher()->prog);
}

/* The files of after that are not in before (both sorted). */
static char **new_files(const struct file_list *before, const struct file_list *after, size_t *n)
{
    char **out = calloc(after->n + 1, sizeof *out);
    if (out == NULL)
        die("out of memory");
    size_t i = 0, j = 0;
    *n = 0;
    for (; j < after->n; j++) {
        while (i < before->n && strcmp(before->names[i], after->names[j]) < 0)
            i++;
        if (i >= before->n || strcmp(before->names[i], after->names[j]) != 0)
            out[(*n)++] = after->names[j];
    }
    return out;
}

void tell_snapshots(const char *pattern, const struct file_list *before, const struct file_list *after,
                    const char *pending)
{
    size_t n;
    char **files = new_files(before, after, &n);
    char *self = self_cmd();
    if (n == 0) {
        no_snapshot_lines(pending, pattern, self);
    } else if (n == 1) {
        char *q = shell_quote(files[0]);
        fprintf(stderr, "%s: wrote %s; read it with: %s report %s\n", launcher()->prog, files[0], self, q);
        free(q);
    } else {
        tell_several(pattern, self, files, n);
    }
    free(self);
    free(files);
}
