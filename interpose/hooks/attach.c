/* `gpuleak attach PID` / `gpuleak detach PID`: the entry points gdb calls in
 * a process that was started without libgpuleak, after dlopen'ing it
 * (docs/attach.md has the exact commands).
 *
 * Loaded by dlopen, the library is not in front of the program's symbol
 * lookups, so its exported hooks interpose nothing.  The attach puts them
 * where the program's calls go instead: the import slots (GOT) of every
 * loaded object that imports an intercepted name, dlsym/dlvsym/dlclose
 * included, and every word of every object's writable segments holding the
 * address of an intercepted function (pointers fetched earlier through
 * dlsym, cuGetProcAddress or cudaGetDriverEntryPoint: NVIDIA's runtime's own
 * table of driver functions is one).  Each hook still finds its real
 * function by name (resolve.h), never in a slot, so it never calls itself.
 * The detach writes every slot back. */
#define __CUDA_API_VERSION_INTERNAL
#include <dlfcn.h>
#include <link.h>
#include <cuda.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/elf_lookup.h"
#include "base/internal.h"
#include "base/libc_dl.h"
#include "base/modules.h"
#include "base/self.h"
#include "base/slot_patch.h"
#include "control/lifecycle.h"
#include "control/trigger.h"
#include "control/torch_view.h"
#include "cuda/before_attach.h"
#include "gpuleak.h"
#include "hooks/attach.h"
#include "hooks/dlsym_hook.h"
#include "hooks/hook_table.h"
#include "resolve/hook_list.h"
#include "resolve/resolve.h"


/* The process whose thread runs an attach, a detach or a tick; 0: none.
 * A pid, not a flag: a fork child inherits the word but not the thread
 * holding it, and would otherwise find every later detach "busy". */
static _Atomic pid_t busy_pid;
static struct gl_slots patched;      /* what the attach wrote, for the detach (under busy) */
static _Atomic long patched_count;   /* patched.n, or -1 when not attached: read without busy */
static atomic_bool hooks_in_place;

static void *import_choice(const char *name, void *current)
{
    if (gl_is_own_address((uintptr_t)current))
        return NULL;
    if (strcmp(name, "dlsym") == 0)
        return (void *)gl_dlsym_trampoline;
    if (strcmp(name, "dlvsym") == 0)
        return (void *)gl_dlvsym_trampoline;
    if (strcmp(name, "dlclose") == 0)
        return (void *)gl_dlclose_hook;
    const struct gl_hook_entry *e = gl_hook_by_name(name);
    return e != NULL ? gl_hook_fn(e) : NULL;
}

/* ---- the addresses a fetch would have returned ------------------------- */

struct value_list {
    struct gl_swap_value *v;
    size_t n, cap;
};

static void add_value(struct value_list *l, void *fn, const struct gl_hook_entry *e)
{
    uintptr_t start, end;
    if (fn == NULL || gl_is_own_address((uintptr_t)fn) || gl_module_range_of((uintptr_t)fn, &start, &end) != 0)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        struct gl_swap_value *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (struct gl_swap_value){(uintptr_t)fn, (uintptr_t)gl_hook_fn(e), start};
    /* The driver's function becomes the hook's real one unless it has one
     * (as dlsym_hook.c does): a hook reached through this slot calls it. */
    if (strncmp(e->name, "cuda", 4) != 0) {
        void *expected = NULL;
        atomic_compare_exchange_strong(&e->real->fn, &expected, fn);
    }
}

static int by_value(const void *a, const void *b)
{
    uintptr_t x = ((const struct gl_swap_value *)a)->value, y = ((const struct gl_swap_value *)b)->value;
    return x < y ? -1 : x > y;
}

/* Sorted, one entry per value; a value two different hooks claim (two
 * ABIs answered with one function) is dropped: its ABI is not certain. */
static void sort_unique(struct value_list *l)
{
    qsort(l->v, l->n, sizeof *l->v, by_value);
    size_t out = 0;
    for (size_t i = 0; i < l->n;) {
        size_t j = i + 1;
        bool same_hook = true;
        while (j < l->n && l->v[j].value == l->v[i].value)
            same_hook &= l->v[j++].with == l->v[i].with;
        if (same_hook)
            l->v[out++] = l->v[i];
        i = j;
    }
    l->n = out;
}

/* The base name of a driver export: cuMemAlloc_v2 -> cuMemAlloc,
 * cuMemAllocAsync_ptsz -> cuMemAllocAsync, cuMemHostRegister_v2 ->
 * cuMemHostRegister. */
static void base_name(const char *name, char *out, size_t size)
{
    size_t len = strlen(name);
    if (len >= size)
        len = size - 1;
    memcpy(out, name, len);
    out[len] = '\0';
    static const char *const suffixes[] = {"_ptsz", "_ptds", "_v2", "_v3"};
    for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
        size_t sl = strlen(suffixes[k]);
        if (len > sl && strcmp(out + len - sl, suffixes[k]) == 0)
            out[len -= sl] = '\0';
    }
}

typedef CUresult (*procaddr_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* Every intercepted function's address as its library exports it, and, for
 * the driver, as cuGetProcAddress answers the queries runtimes make (a real
 * driver may answer with an internal address, not its export). */
static void collect_values(struct value_list *l)
{
    static const int versions[] = {12000, 12050, 13000};
    static const cuuint64_t flags[] = {0, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM};
    procaddr_fn procaddr = (procaddr_fn)gl_resolve_any("cuGetProcAddress_v2");
#define ONE(n)                                                                                     \
    do {                                                                                           \
        const struct gl_hook_entry *e = gl_hook_by_name(#n);                                       \
        if (e != NULL)                                                                             \
            add_value(l, gl_resolve_any(#n), e);                                                   \
    } while (0);
    GL_ALL_HOOKS(ONE)
#undef ONE
    if (procaddr == NULL)
        return;
    char base[96];
#define QUERY(n)                                                                                   \
    base_name(#n, base, sizeof base);                                                              \
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++)                              \
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {                              \
            void *fn = NULL;                                                                       \
            const struct gl_hook_entry *e = gl_hook_for_query(base, versions[v], flags[f]);        \
            if (e != NULL && procaddr(base, &fn, versions[v], flags[f], NULL) == CUDA_SUCCESS)      \
                add_value(l, fn, e);                                                               \
        }
    GL_DRIVER_HOOKS(QUERY)
#undef QUERY
}

/* ---- the entry points -------------------------------------------------- */

/* Another copy of libgpuleak (a copy or a link of it under another file
 * name), told by the entry points it exports, not by its name. */
struct other_copy {
    const char *name; /* the symbol looked for */
    void *found;      /* its address in the first other copy */
};

static int find_in_other_copy(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct other_copy *o = data;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0;
    if (gl_elf_find_in_object(info, "gpuleak_attach_start") == NULL)
        return 0;
    void *fn = gl_elf_find_in_object(info, o->name);
    if (fn == NULL || gl_is_own_address((uintptr_t)fn))
        return 0;
    o->found = fn;
    return 1;
}

/* A copy in front of the program's lookups (preloaded or linked in,
 * whatever its file is called): its hooks interpose already, and this
 * copy, taking them for the real functions, would call them from its own
 * (a program that preloaded a renamed copy crashed at the attach).  A copy
 * another attach dlopen'ed is not in that scope: another_copy_state. */
static bool another_copy_interposes(void)
{
    void *fn = gl_libc_dlsym(RTLD_DEFAULT, "gpuleak_attach_start");
    return fn != NULL && !gl_is_own_address((uintptr_t)fn);
}

/* Another copy loaded by an attach (another installation's library, or
 * this one's under another name): 1 when it is attached now, 0 when it is
 * loaded but detached, -1 when there is none.  Even a detached copy rules
 * an attach out: each copy's hooks would find the other's, exported under
 * the real names, as their real functions, and call each other for ever
 * (cuGetProcAddress, seen in t_attach_twocopies). */
static int another_copy_state(void)
{
    struct other_copy o = {"gpuleak_attach_slots", NULL};
    gl_loader_walk(find_in_other_copy, &o);
    if (o.found == NULL)
        return -1;
    return ((long (*)(void))o.found)() >= 0 ? 1 : 0;
}

static bool preloaded(void)
{
    const char *p = getenv("LD_PRELOAD");
    return (p != NULL && strstr(p, "libgpuleak") != NULL) || another_copy_interposes();
}

/* ---- libraries loaded after the attach --------------------------------- */

static int count_adds(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

static _Atomic unsigned long long loads_seen; /* dlpi_adds when the slots were last collected */

static unsigned long long loads_now(void)
{
    unsigned long long adds = 0;
    gl_loader_walk(count_adds, &adds);
    return adds;
}

/* Takes busy_pid when free, or when the process holding it is not this
 * one: a parent whose thread held it when this child was forked.
 * (getpid takes no lock: it may run inside gdb's call.) */
static bool try_busy(void)
{
    pid_t self = getpid(), held = 0;
    if (atomic_compare_exchange_strong(&busy_pid, &held, self))
        return true;
    return held != self && atomic_compare_exchange_strong(&busy_pid, &held, self);
}

static void release_busy(void) { atomic_store(&busy_pid, 0); }

/* What the tick runs first: the poll for a detach asked of the writer
 * (attach_async.c, which registers it with gl_attach_on_tick: the async
 * entry points are built on this file, never the other way). */
static void (*_Atomic tick_first)(void);

void gl_attach_on_tick(void (*fn)(void)) { atomic_store(&tick_first, fn); }

/* The writer's tick: when the loader has loaded anything since, the import
 * slots of every object that still binds an intercepted name to its real
 * function get the hook (the ones written already hold it, and are
 * skipped), and join the slots the detach puts back.  A call the new
 * library makes before the tick is not seen. */
static void reach_new_libraries(void)
{
    void (*first)(void) = atomic_load(&tick_first);
    if (first != NULL)
        first(); /* a detach asked for: it runs on a thread of its own */
    unsigned long long adds = loads_now();
    if (adds == loads_seen || !try_busy())
        return;
    if (atomic_load(&hooks_in_place)) {
        struct gl_slots more = {0};
        gl_slots_collect_imports(&more, import_choice);
        if (!more.overflow && gl_slots_apply(&more) == 0 && !gl_slots_append(&patched, &more))
            gl_slots_restore(&more); /* no room to remember them: not kept */
        gl_slots_free(&more);
        atomic_store(&patched_count, (long)patched.n);
        atomic_store(&loads_seen, adds);
    }
    release_busy();
}

/* Every slot found, then written: all or nothing. */
static int put_hooks_in_place(void)
{
    struct value_list values = {0};
    collect_values(&values);
    sort_unique(&values);
    struct gl_slots s = {0};
    gl_slots_collect_imports(&s, import_choice);
    gl_slots_collect_values(&s, values.v, values.n);
    free(values.v);
    if (s.overflow || gl_slots_apply(&s) != 0) {
        gl_slots_free(&s);
        return -1;
    }
    patched = s;
    atomic_store(&patched_count, (long)patched.n);
    atomic_store(&loads_seen, loads_now());
    atomic_store(&hooks_in_place, true);
    gl_trigger_set_tick(reach_new_libraries);
    return 0;
}

/* Takes `busy_pid`, waiting up to 2 s for a tick that holds it. */
static bool take_busy(void)
{
    struct timespec ms = {0, 1000 * 1000};
    for (int i = 0; i < 2000; i++) {
        if (try_busy())
            return true;
        nanosleep(&ms, NULL);
    }
    return false;
}

int gl_attach_begin(const char *config)
{
    gl_libc_dl_init();
    if (preloaded())
        return GPULEAK_ATTACH_PRELOADED;
    int other = another_copy_state();
    if (other >= 0)
        return other == 1 ? GPULEAK_ATTACH_ALREADY : GPULEAK_ATTACH_OTHER_COPY;
    if (!take_busy())
        return GPULEAK_ATTACH_BUSY;
    int rc = GPULEAK_ATTACH_OK;
    gl_hook_depth++; /* the CUDA calls made here are ours, never recorded */
    if (atomic_load(&hooks_in_place))
        rc = GPULEAK_ATTACH_ALREADY;
    else if (gl_config_set_overrides(config) != 0)
        rc = GPULEAK_ATTACH_BAD_CONFIG;
    else if (gl_libc_dl_init(), gl_lifecycle_attach() != 0)
        rc = gl_config.disabled ? GPULEAK_ATTACH_DISABLED : GPULEAK_ATTACH_ALREADY;
    if (rc == GPULEAK_ATTACH_OK) {
        gl_before_attach_measure();
        if (put_hooks_in_place() != 0) {
            gl_lifecycle_detach(false);
            rc = GPULEAK_ATTACH_NO_HOOKS;
        }
    }
    gl_hook_depth--;
    release_busy();
    if (rc == GPULEAK_ATTACH_OK)
        gl_torch_attach_ask(); /* PyTorch's view now: its segments made before (docs/attach.md) */
    return rc;
}

int gl_attach_end(void)
{
    if (!take_busy())
        return GPULEAK_ATTACH_BUSY;
    int rc = GPULEAK_ATTACH_OK;
    if (!atomic_load(&hooks_in_place)) {
        rc = GPULEAK_ATTACH_NOT_ATTACHED;
    } else {
        /* Slots first, so that no new call enters a hook; calls inside one
         * finish as they would have. */
        gl_trigger_set_tick(NULL);
        gl_slots_restore(&patched);
        gl_slots_free(&patched);
        atomic_store(&patched_count, -1);
        atomic_store(&hooks_in_place, false);
        gl_lifecycle_detach(true);
        gl_torch_detach(); /* PyTorch's recorder, if gpuleak turned it on: off again */
    }
    release_busy();
    return rc;
}

long gl_attach_slots(void) { return atomic_load(&hooks_in_place) ? atomic_load(&patched_count) : -1; }

/* The exported names are only entry points: the library's own calls go to
 * the gl_ functions.  A call to an exported name from inside the library
 * binds, as any default-visibility symbol does, to the first definition in
 * the process: another copy's, when one is preloaded under another file
 * name (the attach then ran that copy's gpuleak_attach_begin, and the
 * detach asked that copy whether it was attached). */
GL_EXPORT int gpuleak_attach_begin(const char *config) { return gl_attach_begin(config); }

GL_EXPORT int gpuleak_attach_end(void) { return gl_attach_end(); }

GL_EXPORT long gpuleak_attach_slots(void) { return gl_attach_slots(); }

GL_EXPORT const char *gpuleak_attach_last_snapshot(void) { return gl_detach_snapshot(); }
