/* Slots rewritten in place (slot_patch.h).  Runs on the thread gdb borrowed
 * for `gpuleak_attach_begin`/`_end`, never on a hook's path. */
#include "base/slot_patch.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/modules.h"
#include "base/self.h"

static bool push(struct gl_slots *s, void **slot, void *old, void *with)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].slot == slot)
            return true; /* found twice (an import slot is in a writable segment too) */
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct gl_slot *v = realloc(s->v, cap * sizeof *v);
        if (v == NULL) {
            s->overflow = true;
            return false;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (struct gl_slot){slot, old, with};
    return true;
}

/* glibc relocates PT_DYNAMIC's pointers in place on most architectures and
 * leaves them as offsets on a few (as elf_lookup.c). */
static uintptr_t dyn_ptr(ElfW(Addr) base, ElfW(Addr) v) { return v < base ? base + v : v; }

static bool is_own_object(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD)
            return gl_is_own_address(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return false;
}

struct imports_walk {
    struct gl_slots *s;
    gl_import_choice choose;
};

static void scan_relocs(struct imports_walk *w, ElfW(Addr) base, const ElfW(Rela) *rel, size_t bytes,
                        const ElfW(Sym) *symtab, const char *strtab)
{
    for (size_t i = 0; i < bytes / sizeof *rel; i++) {
        unsigned long type = ELF64_R_TYPE(rel[i].r_info);
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
            continue;
        const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(rel[i].r_info)];
        if (sym->st_name == 0)
            continue;
        void **slot = (void **)(base + rel[i].r_offset);
        void *with = w->choose(strtab + sym->st_name, *slot);
        if (with != NULL && with != *slot)
            push(w->s, slot, *slot, with);
    }
}

static int collect_imports(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct imports_walk *w = data;
    if (is_own_object(info) || (info->dlpi_name && strstr(info->dlpi_name, "linux-vdso")))
        return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return 0;
    ElfW(Addr) base = info->dlpi_addr;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmprel_bytes = 0, rela_bytes = 0;
    bool pltrel_is_rela = true;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmprel_bytes = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrel_is_rela = dyn->d_un.d_val == DT_RELA; break;
        case DT_RELA: rela = (const ElfW(Rela) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_RELASZ: rela_bytes = dyn->d_un.d_val; break;
        default: break;
        }
    }
    if (symtab == NULL || strtab == NULL)
        return 0;
    if (jmprel != NULL && pltrel_is_rela)
        scan_relocs(w, base, jmprel, jmprel_bytes, symtab, strtab);
    if (rela != NULL)
        scan_relocs(w, base, rela, rela_bytes, symtab, strtab);
    return 0;
}

void gl_slots_collect_imports(struct gl_slots *s, gl_import_choice choose)
{
    struct imports_walk w = {s, choose};
    gl_loader_walk(collect_imports, &w);
}

struct values_walk {
    struct gl_slots *s;
    const struct gl_swap_value *vals;
    size_t nvals;
};

static const struct gl_swap_value *find_value(const struct values_walk *w, uintptr_t v)
{
    size_t lo = 0, hi = w->nvals;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->vals[mid].value < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->nvals && w->vals[lo].value == v ? &w->vals[lo] : NULL;
}

static uintptr_t object_start(const struct dl_phdr_info *info)
{
    uintptr_t lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_addr + info->dlpi_phdr[i].p_vaddr < lo)
            lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    return lo;
}

/* Reads every word of other objects' data, whatever it is: a sanitizer's
 * redzones between their globals included, hence not instrumented. */
GL_NO_SANITIZE static int collect_values(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct values_walk *w = data;
    if (is_own_object(info) || w->nvals == 0)
        return 0;
    uintptr_t start = object_start(info);
    uintptr_t lo_val = w->vals[0].value, hi_val = w->vals[w->nvals - 1].value;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t a = (info->dlpi_addr + ph->p_vaddr + 7) & ~(uintptr_t)7;
        uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        for (; a + sizeof(void *) <= end; a += sizeof(void *)) {
            uintptr_t v = *(const uintptr_t *)a;
            if (v < lo_val || v > hi_val)
                continue;
            const struct gl_swap_value *sv = find_value(w, v);
            if (sv != NULL && sv->owner != start)
                push(w->s, (void **)a, (void *)v, (void *)sv->with);
        }
    }
    return 0;
}

void gl_slots_collect_values(struct gl_slots *s, const struct gl_swap_value *vals, size_t nvals)
{
    struct values_walk w = {s, vals, nvals};
    gl_loader_walk(collect_values, &w);
}

/* ---- writing ----------------------------------------------------------- */

/* The process's mappings with their protections, read once from
 * /proc/self/maps (the only place that says them) for a whole apply or
 * restore: a slot's page is opened for writing only if it is read-only, and
 * a slot whose object was unloaded since (dlclose) is no longer mapped and
 * is never touched. */
struct mapping {
    uintptr_t lo, hi;
    int prot;
};

struct mappings {
    struct mapping *v;
    size_t n, cap;
};

static void parse_mapping(struct mappings *m, const char *line)
{
    char *p;
    uintptr_t lo = strtoul(line, &p, 16);
    if (*p != '-')
        return;
    uintptr_t hi = strtoul(p + 1, &p, 16);
    if (*p != ' ' || p[1] == '\0' || p[2] == '\0' || p[3] == '\0')
        return;
    p++;
    int prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) | (p[2] == 'x' ? PROT_EXEC : 0);
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        struct mapping *v = realloc(m->v, cap * sizeof *v);
        if (v == NULL)
            return;
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = (struct mapping){lo, hi, prot};
}

static void read_mappings(struct mappings *m)
{
    *m = (struct mappings){0};
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[8192], line[512];
    size_t len = 0;
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] != '\n') {
                if (len < sizeof line - 1)
                    line[len++] = buf[i];
                continue;
            }
            line[len] = '\0';
            len = 0;
            parse_mapping(m, line);
        }
    }
    close(fd);
}

/* The protection of the page holding `addr`; -1 when it is not mapped.
 * /proc/self/maps lists mappings in address order. */
static int page_prot(const struct mappings *m, uintptr_t addr)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->v[lo].lo <= addr ? m->v[lo].prot : -1;
}

/* One slot written with `v`: its page opened for writing when it is not
 * already, and closed again. */
static int write_slot(const struct mappings *m, void **slot, void *v)
{
    int prot = page_prot(m, (uintptr_t)slot);
    if (prot < 0 || !(prot & PROT_READ))
        return -1;
    if (prot & PROT_WRITE) {
        __atomic_store_n(slot, v, __ATOMIC_RELEASE);
        return 0;
    }
    long pagesz = sysconf(_SC_PAGESIZE);
    void *page = (void *)((uintptr_t)slot & ~(uintptr_t)(pagesz - 1));
    if (mprotect(page, (size_t)pagesz, prot | PROT_WRITE) != 0)
        return -1;
    __atomic_store_n(slot, v, __ATOMIC_RELEASE);
    mprotect(page, (size_t)pagesz, prot);
    return 0;
}

int gl_slots_apply(struct gl_slots *s)
{
    struct mappings m;
    read_mappings(&m);
    int rc = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (write_slot(&m, s->v[i].slot, s->v[i].with) != 0) {
            while (i-- > 0)
                write_slot(&m, s->v[i].slot, s->v[i].old);
            rc = -1;
            break;
        }
    }
    free(m.v);
    return rc;
}

size_t gl_slots_restore(struct gl_slots *s)
{
    struct mappings m;
    read_mappings(&m);
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        /* Unloaded since (its page gone): nothing to put back, nothing to read. */
        int prot = page_prot(&m, (uintptr_t)s->v[i].slot);
        if (prot < 0 || !(prot & PROT_READ))
            continue;
        if (__atomic_load_n(s->v[i].slot, __ATOMIC_ACQUIRE) == s->v[i].with &&
            write_slot(&m, s->v[i].slot, s->v[i].old) == 0)
            n++;
    }
    free(m.v);
    return n;
}

bool gl_slots_append(struct gl_slots *s, struct gl_slots *more)
{
    if (more->n == 0)
        return true;
    struct gl_slot *v = realloc(s->v, (s->n + more->n) * sizeof *v);
    if (v == NULL)
        return false;
    memcpy(v + s->n, more->v, more->n * sizeof *v);
    s->v = v;
    s->n += more->n;
    s->cap = s->n;
    return true;
}

void gl_slots_free(struct gl_slots *s)
{
    free(s->v);
    *s = (struct gl_slots){0};
}
