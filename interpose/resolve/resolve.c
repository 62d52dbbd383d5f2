#include "resolve/resolve.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/elf_lookup.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/libc_dl.h"
#include "base/modules.h"
#include "base/self.h"
#include "resolve/real_table.h"

GL_TLS uintptr_t gl_caller_pc;

struct search {
    const char *name;
    void *found;
};

/* Read from the object's own symbol table, not through dlopen(RTLD_NOLOAD)
 * + dlsym: the first dlopen of an object loaded at startup builds its
 * search list and runs the initializers of everything in it that is not
 * marked initialized, and during exit glibc's _dl_fini has cleared that
 * mark on each object whose destructors ran.  A thread still calling CUDA
 * while another exits then ran libgpuleak's constructors again (and
 * libcudart's, libc's...): ASan saw libgpuleak's globals registered twice. */
static int search_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct search *s = data;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0; /* the main program: a definition there is not a library's */
    void *fn = gl_elf_find_in_object(info, s->name);
    if (fn != NULL && !gl_is_own_address((uintptr_t)fn)) {
        s->found = fn;
        return 1;
    }
    return 0;
}

/* The one dlopen left (lookup_in_scope, for the dependency order of one
 * caller's scope) has the same hazard.  It is closed when the process begins
 * to exit -- exit() called, or libgpuleak's destructor, the first of a
 * startup object's to run after main returned -- and the exiting thread
 * waits for the ones already inside to leave.  Closed, a lookup falls back
 * to the any-object search above. */
static _Atomic int scope_opens_closed;
static _Atomic int scope_opens_inside;

#define SCOPE_OPEN_DRAIN_MS 1000

void gl_resolve_close_loader(void)
{
    if (atomic_exchange(&scope_opens_closed, 1))
        return;
    struct timespec tick = {0, 1000 * 1000};
    for (int i = 0; i < SCOPE_OPEN_DRAIN_MS && atomic_load(&scope_opens_inside) > 0; i++)
        nanosleep(&tick, NULL);
}

/* Every cache gl_resolve_slow has filled, for gl_resolve_forget_unloaded
 * (the hooks' caches are in the hook table already). */
#define RESOLVED_MAX 256
static struct gl_real *resolved[RESOLVED_MAX];
static size_t nresolved;
static struct gl_lock resolved_lock = GL_LOCK_INIT(RESOLVED);

static void remember(struct gl_real *r)
{
    gl_lock(&resolved_lock);
    size_t i = 0;
    while (i < nresolved && resolved[i] != r)
        i++;
    if (i == nresolved && nresolved < RESOLVED_MAX)
        resolved[nresolved++] = r;
    gl_unlock(&resolved_lock);
}

static void forget_if_unloaded(struct gl_real *r)
{
    void *fn = atomic_load_explicit(&r->fn, memory_order_acquire);
    Dl_info info;
    if (fn != NULL && dladdr(fn, &info) == 0)
        atomic_compare_exchange_strong(&r->fn, &fn, NULL);
}

void gl_resolve_forget_scopes(void);

void gl_resolve_forget_unloaded(void)
{
    gl_resolve_forget_scopes();
    gl_real_table_each(forget_if_unloaded);
    gl_lock(&resolved_lock);
    for (size_t i = 0; i < nresolved; i++)
        forget_if_unloaded(resolved[i]);
    gl_unlock(&resolved_lock);
}

void *gl_resolve_slow(struct gl_real *r)
{
    void *fn = gl_libc_dlsym(RTLD_NEXT, r->name);
    if (fn == NULL || gl_is_own_address((uintptr_t)fn)) {
        struct search s = {r->name, NULL};
        gl_loader_walk(search_object, &s);
        fn = s.found;
    }
    if (fn != NULL) {
        remember(r);
        atomic_store_explicit(&r->fn, fn, memory_order_release);
    }
    return fn;
}

void *gl_resolve_any(const char *name)
{
    void *fn = gl_libc_dlsym(RTLD_NEXT, name);
    if (fn != NULL && !gl_is_own_address((uintptr_t)fn))
        return fn;
    struct search any = {name, NULL};
    gl_loader_walk(search_object, &any);
    return any.found;
}

/* ---- per calling object ------------------------------------------------ */

/* One calling object (its address range) and the real functions its calls
 * resolve to.  Append-only list; entries of unloaded objects are emptied by
 * gl_resolve_forget_unloaded. */
struct scope {
    _Atomic uintptr_t start, end;
    char *path;
    void *_Atomic fn[GL_REAL_COUNT];
    struct scope *next;
};

static struct scope *_Atomic scopes;
static struct gl_lock scopes_lock = GL_LOCK_INIT(SCOPES);
static GL_TLS struct scope *last_scope;

struct owner_query {
    uintptr_t pc;
    uintptr_t start, end;
    const char *name;
};

static int find_owner(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct owner_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->pc >= lo && q->pc < lo + ph->p_memsz) {
            uint64_t start = UINT64_MAX, end = 0;
            for (int k = 0; k < info->dlpi_phnum; k++) {
                const ElfW(Phdr) *p = &info->dlpi_phdr[k];
                if (p->p_type != PT_LOAD)
                    continue;
                if (info->dlpi_addr + p->p_vaddr < start)
                    start = info->dlpi_addr + p->p_vaddr;
                if (info->dlpi_addr + p->p_vaddr + p->p_memsz > end)
                    end = info->dlpi_addr + p->p_vaddr + p->p_memsz;
            }
            q->start = start;
            q->end = end;
            q->name = info->dlpi_name;
            return 1;
        }
    }
    return 0;
}

static struct scope *scope_of(uintptr_t pc)
{
    struct scope *s = last_scope;
    if (s != NULL && pc >= atomic_load(&s->start) && pc < atomic_load(&s->end))
        return s;
    for (s = atomic_load(&scopes); s != NULL; s = s->next)
        if (pc >= atomic_load(&s->start) && pc < atomic_load(&s->end))
            return last_scope = s;
    struct owner_query q = {.pc = pc};
    if (pc == 0 || gl_loader_walk(find_owner, &q) == 0)
        return NULL;
    gl_lock(&scopes_lock);
    for (s = atomic_load(&scopes); s != NULL; s = s->next)
        if (pc >= atomic_load(&s->start) && pc < atomic_load(&s->end))
            break;
    if (s == NULL && (s = calloc(1, sizeof *s)) != NULL) {
        /* The main program has no name: its scope is the global one,
         * which step 1 has searched already. */
        s->path = q.name && q.name[0] ? strdup(q.name) : NULL;
        atomic_store(&s->start, q.start);
        atomic_store(&s->end, q.end);
        s->next = atomic_load(&scopes);
        atomic_store(&scopes, s);
    }
    gl_unlock(&scopes_lock);
    return last_scope = s;
}

/* What `path` sees: the object and its dependencies, in the order the
 * dynamic linker searches them (dlsym on its handle). */
static void *lookup_in_scope(const char *path, const char *name)
{
    if (path == NULL)
        return NULL;
    atomic_fetch_add(&scope_opens_inside, 1);
    void *fn = NULL;
    if (!atomic_load(&scope_opens_closed)) {
        void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
        if (h != NULL) {
            fn = gl_libc_dlsym(h, name);
            gl_libc_dlclose(h);
        }
    }
    atomic_fetch_sub(&scope_opens_inside, 1);
    return fn != NULL && !gl_is_own_address((uintptr_t)fn) ? fn : NULL;
}

void *gl_resolve_scoped(struct gl_real *r, uintptr_t caller)
{
    if (!atomic_load_explicit(&r->no_global, memory_order_relaxed)) {
        void *fn = gl_libc_dlsym(RTLD_NEXT, r->name);
        if (fn != NULL && !gl_is_own_address((uintptr_t)fn)) {
            remember(r);
            atomic_store_explicit(&r->fn, fn, memory_order_release);
            return fn;
        }
        atomic_store(&r->no_global, 1);
    }
    struct scope *s = scope_of(caller);
    if (s == NULL || r->index < 0 || r->index >= GL_REAL_COUNT) {
        struct search any = {r->name, NULL};
        gl_loader_walk(search_object, &any);
        return any.found;
    }
    void *fn = atomic_load_explicit(&s->fn[r->index], memory_order_acquire);
    if (fn != NULL)
        return fn;
    fn = lookup_in_scope(s->path, r->name);
    if (fn == NULL) {
        /* Not among the caller's dependencies (a pointer handed over from
         * elsewhere, or our own query on the hook path): any loaded
         * definition. */
        struct search any = {r->name, NULL};
        gl_loader_walk(search_object, &any);
        fn = any.found;
    }
    if (fn != NULL)
        atomic_store_explicit(&s->fn[r->index], fn, memory_order_release);
    return fn;
}

void gl_resolve_forget_scopes(void);
void gl_resolve_forget_scopes(void)
{
    for (struct scope *s = atomic_load(&scopes); s != NULL; s = s->next) {
        Dl_info info;
        if (atomic_load(&s->end) != 0 && dladdr((void *)atomic_load(&s->start), &info) == 0) {
            atomic_store(&s->start, 0);
            atomic_store(&s->end, 0);
        }
        for (int i = 0; i < GL_REAL_COUNT; i++) {
            void *fn = atomic_load(&s->fn[i]);
            if (fn != NULL && dladdr(fn, &info) == 0)
                atomic_compare_exchange_strong(&s->fn[i], &fn, NULL);
        }
    }
}

void gl_resolve_postfork_child(void)
{
    /* The writer thread takes both when its own CUDA calls resolve (the
     * driver's view); it does not exist in the child. */
    gl_lock_init(&resolved_lock, GL_LOCK_RESOLVED, 0);
    gl_lock_init(&scopes_lock, GL_LOCK_SCOPES, 0);
}
