#include "capture/pyframes.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/libc_dl.h"
#include "base/log.h"
#include "base/modules.h"
#include "base/ut.h"
#include "capture/pyframes_layout.h"

#define MAX_STR 1024   /* longest file or function name kept */
#define MAX_FRAMES 256 /* deepest Python stack walked */
/* A walk's strings and text frames cut by GL_PY_MAX_TEXT (state/view_stacks.c)
 * are cut alike, so equal frames from either source are equal text. */
_Static_assert(GL_PY_MAX_TEXT == MAX_STR - 5, "a walk's cut and a text frame's agree");

typedef void *(*get_tstate_fn)(void);
typedef int (*addr2line_fn)(void *, int);

static const struct gl_py_layout *layout;
static get_tstate_fn get_tstate;      /* PyGILState_GetThisThreadState */
static addr2line_fn addr2line;        /* PyCode_Addr2Line */
static const void *code_type;         /* &PyCode_Type */
static const void *unicode_type;      /* &PyUnicode_Type */
static uintptr_t interp_start, interp_end;
static _Atomic int state; /* 0 not found yet, 1 active, -1 off */
static _Atomic uint64_t last_probe_ns;

/* ---- detection ---------------------------------------------------------- */

static void *find(const char *name) { return gl_libc_dlsym(RTLD_DEFAULT, name); }

static void detect_locked(void)
{
    static atomic_bool warned;
    const char *(*version)(void) = (const char *(*)(void))find("Py_GetVersion");
    if (version == NULL)
        return; /* not (yet) a Python process */
    const char *v = version();
    int major = 0, minor = 0;
    if (v == NULL || sscanf(v, "%d.%d", &major, &minor) != 2)
        return;
    const struct gl_py_layout *l = NULL;
    for (size_t i = 0; i < gl_py_layout_count; i++)
        if (gl_py_layouts[i].major == major && gl_py_layouts[i].minor == minor)
            l = &gl_py_layouts[i];
    /* Builds whose object layout differs from the default one. */
    bool odd_build = strstr(v, "free-threading") != NULL || find("_Py_RefTotal") != NULL ||
                     find("_Py_NegativeRefcount") != NULL;
    get_tstate = (get_tstate_fn)find("PyGILState_GetThisThreadState");
    addr2line = (addr2line_fn)find("PyCode_Addr2Line");
    code_type = find("PyCode_Type");
    unicode_type = find("PyUnicode_Type");
    if (l == NULL || odd_build || get_tstate == NULL || addr2line == NULL || code_type == NULL ||
        unicode_type == NULL) {
        gl_warn_once(&warned, "Python %d.%d%s is not supported; stacks show native frames only",
                     major, minor, odd_build ? " (debug or free-threaded build)" : "");
        atomic_store(&state, -1);
        return;
    }
    if (gl_module_range_of((uintptr_t)find("PyEval_EvalCode"), &interp_start, &interp_end) != 0)
        interp_start = interp_end = 0;
    layout = l;
    atomic_store(&state, 1);
}

void gl_py_detect(void)
{
    static struct gl_lock detect_lock = GL_LOCK_INIT(PY_DETECT);
    if (atomic_load_explicit(&state, memory_order_acquire) != 0 || !gl_config.python)
        return;
    /* Not found so far: Python may be loaded later (embedding); look again,
     * but only on every 1024th call and at most once a second, so a process
     * without Python pays one counter increment per allocation. */
    static GL_TLS uint32_t calls; /* per thread: no shared cache line */
    if ((calls++ & 1023) != 0 && atomic_load_explicit(&last_probe_ns, memory_order_relaxed) != 0)
        return;
    uint64_t now = gl_mono_ns(), last = atomic_load(&last_probe_ns);
    if (last != 0 && now - last < 1000000000u)
        return;
    atomic_store(&last_probe_ns, now);
    gl_lock(&detect_lock);
    if (atomic_load(&state) == 0)
        detect_locked();
    gl_unlock(&detect_lock);
}

void gl_py_interpreter_range(uintptr_t *start, uintptr_t *end)
{
    *start = interp_start;
    *end = interp_end;
}

/* ---- reading the interpreter's structures ------------------------------- */

static inline void *ptr_at(const void *base, size_t off)
{
    void *p;
    memcpy(&p, (const char *)base + off, sizeof p);
    return p;
}

static inline const void *type_of(const void *obj) { return ptr_at(obj, sizeof(void *)); }

/* UTF-8 of a str object into buf; returns the length, 0 if unreadable. */
static size_t read_str(const void *s, char *buf, size_t size)
{
    if (s == NULL || type_of(s) != unicode_type)
        return 0;
    int64_t length;
    uint32_t st;
    memcpy(&length, (const char *)s + layout->unicode_length, sizeof length);
    memcpy(&st, (const char *)s + layout->unicode_state, sizeof st);
    unsigned kind = (st >> 2) & 7, compact = (st >> 5) & 1, ascii = (st >> 6) & 1;
    if (!compact || length < 0)
        return 0; /* legacy strings: never code names in practice */
    const unsigned char *data = (const unsigned char *)s + (ascii ? layout->ascii_size : layout->compact_size);
    size_t out = 0;
    for (int64_t i = 0; i < length && out + 4 < size; i++) {
        uint32_t c = kind == 1 ? data[i] : kind == 2 ? ((const uint16_t *)data)[i] : ((const uint32_t *)data)[i];
        if (c < 0x80) {
            buf[out++] = (char)c;
        } else if (c < 0x800) {
            buf[out++] = (char)(0xc0 | (c >> 6));
            buf[out++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            buf[out++] = (char)(0xe0 | (c >> 12));
            buf[out++] = (char)(0x80 | ((c >> 6) & 0x3f));
            buf[out++] = (char)(0x80 | (c & 0x3f));
        } else {
            buf[out++] = (char)(0xf0 | (c >> 18));
            buf[out++] = (char)(0x80 | ((c >> 12) & 0x3f));
            buf[out++] = (char)(0x80 | ((c >> 6) & 0x3f));
            buf[out++] = (char)(0x80 | (c & 0x3f));
        }
    }
    buf[out] = '\0';
    return out;
}

/* ---- interning ---------------------------------------------------------- */

struct pyframe {
    UT_hash_handle hh;
    struct pyframe *older;
    uint32_t id, line;
    uint32_t file_len, func_len;
    char key[]; /* file '\0' func '\0' line(4 bytes) */
};

static struct gl_lock frames_lock = GL_LOCK_INIT(PY_FRAMES);
static struct pyframe *frames_by_key, *frames_newest;
static uint32_t frames_count;

static uint32_t intern(const char *file, size_t file_len, const char *func, size_t func_len, uint32_t line)
{
    char key[2 * MAX_STR + 8];
    size_t keylen = 0;
    memcpy(key, file, file_len);
    keylen += file_len;
    key[keylen++] = '\0';
    memcpy(key + keylen, func, func_len);
    keylen += func_len;
    key[keylen++] = '\0';
    memcpy(key + keylen, &line, 4);
    keylen += 4;
    unsigned hash;
    HASH_VALUE(key, keylen, hash);

    uint32_t id = 0;
    struct pyframe *f;
    gl_lock(&frames_lock);
    HASH_FIND_BYHASHVALUE(hh, frames_by_key, key, keylen, hash, f);
    if (f == NULL && (f = malloc(sizeof *f + keylen)) != NULL) {
        memcpy(f->key, key, keylen);
        f->id = frames_count + 1;
        f->line = line;
        f->file_len = (uint32_t)file_len;
        f->func_len = (uint32_t)func_len;
        gl_ut_oom = false;
        HASH_ADD_KEYPTR_BYHASHVALUE(hh, frames_by_key, f->key, keylen, hash, f);
        if (gl_ut_oom) {
            free(f);
            f = NULL;
        } else {
            f->older = frames_newest;
            frames_newest = f;
            frames_count++;
        }
    }
    if (f != NULL)
        id = f->id;
    gl_unlock(&frames_lock);
    return id;
}

void gl_py_for_each(void (*fn)(uint32_t, uint32_t, const char *, size_t, const char *, size_t, void *),
                    void *arg)
{
    gl_lock(&frames_lock);
    struct pyframe *f = frames_newest;
    gl_unlock(&frames_lock);
    /* Frames are immutable and only prepended: walk without the lock. */
    for (; f != NULL; f = f->older)
        fn(f->id, f->line, f->key, f->file_len, f->key + f->file_len + 1, f->func_len, arg);
}

void gl_py_for_ids(const uint32_t *ids, size_t n,
                   void (*fn)(uint32_t, uint32_t, const char *, size_t, const char *, size_t, void *),
                   void *arg)
{
    gl_lock(&frames_lock);
    struct pyframe *f = frames_newest;
    gl_unlock(&frames_lock);
    /* Newest first, ids strictly falling (each new frame gets the next id):
     * one merge with the wanted ids, stopped past the smallest. */
    size_t i = 0;
    while (f != NULL && i < n) {
        if (f->id > ids[i]) {
            f = f->older;
        } else {
            if (f->id == ids[i])
                fn(f->id, f->line, f->key, f->file_len, f->key + f->file_len + 1, f->func_len, arg);
            i++;
        }
    }
}

/* ---- per-thread cache ---------------------------------------------------- */

/* Most allocations come from frames seen before.  A frame is identified by
 * its code object, that object's file and name objects, and the instruction
 * offset: together they pin the text and the line, so a hit skips reading
 * strings, computing the line and the interning lock.  (A code object freed
 * and another allocated at the same address with the very same file and name
 * objects and offset would be taken for the old one: its text is then the
 * same anyway, only the line could differ.)  Each thread has its own
 * direct-mapped table, allocated on first use, so lookups take no lock. */
#define CACHE_SLOTS 512

struct cache_entry {
    const void *code, *file, *name;
    int lasti;
    uint32_t id;
};

/* The previous walk, depth by depth.  A loop that allocates from one Python
 * line meets the same frames at the same depths every time: the interpreter
 * frame at the same address, running the same code object (same file and
 * name objects) at the same instruction.  Compared first, it answers without
 * computing the instruction offset or hashing into the cache.  The whole
 * chain is still walked and every frame compared: the same frames near the
 * top can sit on different callers. */
#define MEMO_FRAMES 64

struct memo_entry {
    const void *frame, *code, *instr, *file, *name;
    uint32_t id;
};

struct thread_tables {
    struct cache_entry cache[CACHE_SLOTS];
    struct memo_entry memo[MEMO_FRAMES];
};

static GL_TLS struct thread_tables *thread_tables;
static GL_TLS bool thread_tables_failed;

static pthread_key_t thread_tables_key;
static pthread_once_t thread_tables_key_once = PTHREAD_ONCE_INIT;
static void thread_tables_free(void *p)
{
    free(p);
    thread_tables = NULL;
}
static void thread_tables_key_init(void) { pthread_key_create(&thread_tables_key, thread_tables_free); }

static struct thread_tables *tables(void)
{
    if (thread_tables == NULL && !thread_tables_failed) {
        /* Freed when the thread exits (thread_tables_key): a job that keeps
         * starting threads must not grow by a table per thread. */
        thread_tables = calloc(1, sizeof *thread_tables);
        if (thread_tables == NULL) {
            thread_tables_failed = true;
            return NULL;
        }
        pthread_once(&thread_tables_key_once, thread_tables_key_init);
        pthread_setspecific(thread_tables_key, thread_tables);
    }
    return thread_tables;
}

static struct cache_entry *cache_slot(struct thread_tables *t, const void *code, int lasti)
{
    uintptr_t h = (uintptr_t)code >> 4;
    h ^= (uintptr_t)lasti * 0x9e3779b1u;
    h ^= h >> 15;
    return &t->cache[h % CACHE_SLOTS];
}

/* A frame the cache did not know (c: its slot, or NULL): its text read and
 * interned.  Out of line, so that the walk's loop stays small and the name
 * buffers are on the stack only when needed. */
static __attribute__((noinline)) uint32_t frame_id(struct cache_entry *c, const void *code, int lasti,
                                                   const void *fobj, const void *nobj)
{
    char file[MAX_STR], func[MAX_STR];
    int line = addr2line((void *)code, lasti >= 0 ? lasti * 2 : -1);
    size_t file_len = read_str(fobj, file, sizeof file);
    size_t func_len = read_str(nobj, func, sizeof func);
    uint32_t id = intern(file, file_len, func, func_len, line > 0 ? (uint32_t)line : 0);
    if (c != NULL)
        *c = (struct cache_entry){code, fobj, nobj, lasti, id};
    return id;
}

/* ---- the walk ------------------------------------------------------------ */

void *gl_py_top_frame(void)
{
    gl_py_detect();
    if (atomic_load_explicit(&state, memory_order_acquire) != 1)
        return NULL;
    /* This thread's own state, found through thread-specific storage; it
     * exists whether or not this thread holds the GIL right now. */
    void *tstate = get_tstate();
    if (tstate == NULL)
        return NULL;
    const struct gl_py_layout *l = layout;
    void *frame = l->tstate_cframe ? ptr_at(tstate, l->tstate_cframe) : ptr_at(tstate, l->tstate_frame);
    if (l->tstate_cframe && frame != NULL)
        frame = ptr_at(frame, l->cframe_current);
    return frame;
}

size_t gl_py_capture(void *top, uintptr_t *out, size_t max)
{
    const struct gl_py_layout *l = layout; /* set before any top frame was found */
    void *frame = top;

    /* The layout's offsets in locals: the frames are read through char
     * pointers (ptr_at), which may alias anything, so without these the
     * compiler reloads every offset from *l for every frame. */
    const size_t off_previous = l->frame_previous, off_code = l->frame_code, off_instr = l->frame_instr;
    const size_t off_owner = l->frame_owner, off_adaptive = l->code_adaptive, off_file = l->code_filename;
    const size_t off_name = l->code_qualname ? l->code_qualname : l->code_name;
    const int owner_cstack = l->owner_cstack;
    const bool lasti_units = l->lasti_units;
    const void *const code_t = code_type;

    struct thread_tables *t = tables();
    size_t n = 0;
    for (int depth = 0; frame != NULL && depth < MAX_FRAMES && n < max; depth++) {
        void *here = frame;
        frame = ptr_at(here, off_previous);
        if (owner_cstack >= 0 && ((const unsigned char *)here)[off_owner] == owner_cstack)
            continue; /* a shim frame of the C stack: no Python code */
        void *code = ptr_at(here, off_code);
        if (code == NULL || type_of(code) != code_t)
            continue;
        const void *instr = ptr_at(here, off_instr); /* raw: only compared */
        const void *fobj = ptr_at(code, off_file);
        const void *nobj = ptr_at(code, off_name);
        struct memo_entry *m = t != NULL && depth < MEMO_FRAMES ? &t->memo[depth] : NULL;
        uint32_t id;
        if (m != NULL && m->frame == here && m->code == code && m->instr == instr && m->file == fobj &&
            m->name == nobj && m->id != 0) {
            id = m->id;
        } else {
            int lasti;
            if (lasti_units)
                memcpy(&lasti, (const char *)here + off_instr, sizeof lasti);
            else
                lasti = (int)(((const char *)instr - ((const char *)code + off_adaptive)) >> 1);
            struct cache_entry *c = t != NULL ? cache_slot(t, code, lasti) : NULL;
            if (c != NULL && c->code == code && c->lasti == lasti && c->file == fobj && c->name == nobj &&
                c->id != 0)
                id = c->id;
            else
                id = frame_id(c, code, lasti, fobj, nobj);
            if (m != NULL)
                *m = (struct memo_entry){here, code, instr, fobj, nobj, id};
        }
        if (id != 0)
            out[n++] = (uintptr_t)(GL_PYFRAME_TAG | id);
    }
    return n;
}

void gl_py_postfork_child(void)
{
    /* Interned frames stay valid (they are the same text in the child). */
    gl_lock_init(&frames_lock, GL_LOCK_PY_FRAMES, 0);
}
