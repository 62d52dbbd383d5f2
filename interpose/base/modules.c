#include "base/modules.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/lock.h"

/* Every walk of the loader's list by libgpuleak goes through here, under
 * walk_lock, and the fork prepare handler takes walk_lock too.
 * dl_iterate_phdr holds the loader's dl_load_write_lock, which glibc (2.36)
 * does not reset in a forked child: a child forked while our writer thread
 * was collecting modules inherited it locked, and its own final snapshot
 * waited for it forever (and its parent, in waitpid, for the child).
 * Recursive: a callback may ask for our own range (gl_is_own_address) on
 * the same thread. */
static struct gl_lock walk_lock = GL_LOCK_INIT_RECURSIVE(WALK);

int gl_loader_walk(int (*callback)(struct dl_phdr_info *, size_t, void *), void *data)
{
    gl_lock(&walk_lock);
    int rc = dl_iterate_phdr(callback, data);
    gl_unlock(&walk_lock);
    return rc;
}

void gl_loader_walk_prefork(void)
{
    gl_lock(&walk_lock);
}

void gl_loader_walk_postfork_parent(void)
{
    gl_unlock(&walk_lock);
}

void gl_loader_walk_postfork_child(void)
{
    gl_lock_init(&walk_lock, GL_LOCK_WALK, 0);
}

static void read_build_id(const struct dl_phdr_info *info, struct gl_module *m)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) nh;
            memcpy(&nh, p, sizeof nh);
            size_t name_sz = (nh.n_namesz + 3u) & ~3u;
            size_t desc_sz = (nh.n_descsz + 3u) & ~3u;
            const char *name = p + sizeof nh;
            const char *desc = name + name_sz;
            if (desc + desc_sz > end || desc < name)
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                nh.n_descsz <= GL_BUILD_ID_MAX) {
                memcpy(m->build_id, desc, nh.n_descsz);
                m->build_id_len = nh.n_descsz;
                return;
            }
            p = desc + desc_sz;
        }
    }
}

static void load_range(const struct dl_phdr_info *info, uint64_t *start, uint64_t *end)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo)
            lo = s;
        if (s + ph->p_memsz > hi)
            hi = s + ph->p_memsz;
    }
    *start = lo == UINT64_MAX ? 0 : lo;
    *end = hi;
}

static int collect_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct gl_module_list *list = data;
    const char *name = info->dlpi_name;
    char exe[4096];
    if (name == NULL || name[0] == '\0') {
        /* The main program has an empty name; the vDSO too, but it comes
         * later and has no file, so only the first empty entry is kept. */
        if (list->count != 0)
            return 0;
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return 0;
        exe[n] = '\0';
        name = exe;
    }
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 64;
        struct gl_module *items = realloc(list->items, cap * sizeof *items);
        if (items == NULL)
            return 1;
        list->items = items;
        list->cap = cap;
    }
    struct gl_module *m = &list->items[list->count];
    memset(m, 0, sizeof *m);
    m->bias = info->dlpi_addr;
    load_range(info, &m->start, &m->end);
    read_build_id(info, m);
    m->path = strdup(name);
    if (m->path == NULL)
        return 1;
    list->count++;
    return 0;
}

int gl_modules_collect(struct gl_module_list *out)
{
    memset(out, 0, sizeof *out);
    if (gl_loader_walk(collect_one, out) != 0) {
        gl_modules_free(out);
        return -1;
    }
    return 0;
}

void gl_modules_free(struct gl_module_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].path);
    free(list->items);
    memset(list, 0, sizeof *list);
}

struct range_query {
    uintptr_t addr, start, end;
    int found;
};

static int find_range(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct range_query *q = data;
    uint64_t start, end;
    load_range(info, &start, &end);
    if (q->addr >= start && q->addr < end) {
        q->start = start;
        q->end = end;
        q->found = 1;
        return 1;
    }
    return 0;
}

int gl_module_range_of(uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
    struct range_query q = {.addr = addr};
    gl_loader_walk(find_range, &q);
    if (!q.found)
        return -1;
    *start = q.start;
    *end = q.end;
    return 0;
}
