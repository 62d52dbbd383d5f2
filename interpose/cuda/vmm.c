#include "cuda/vmm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/ut.h"
#include "snapshot_format.h"

/* A handle's memory lives while it has references (cuMemCreate's, one per
 * cuMemRetainAllocationHandle, each ended by a cuMemRelease) or mappings. */
struct handle_state {
    uint64_t handle; /* key */
    uint32_t mappings;
    uint32_t refs;
    int32_t device;
    bool imported; /* another process's memory: no record of ours */
    UT_hash_handle hh;
};

struct mapping {
    uint64_t va; /* key */
    uint64_t size;
    uint64_t handle;
    UT_hash_handle hh;
};

struct reservation {
    uint64_t va; /* key */
    uint64_t size;
    UT_hash_handle hh;
};

static struct gl_lock vmm_lock = GL_LOCK_INIT(VMM);
static struct handle_state *handles;
/* Imported handles known now: while 0 (nearly always), an unmap needs no
 * search for imported mappings. */
static _Atomic size_t nimported;
static struct mapping *mappings;
static struct reservation *reservations;

static struct handle_state *find_handle(uint64_t h)
{
    struct handle_state *s;
    HASH_FIND(hh, handles, &h, sizeof h, s);
    return s;
}

/* Takes s out of the table and frees it (lock held). */
static void forget(struct handle_state *s)
{
    if (s->imported)
        nimported--;
    HASH_DEL(handles, s);
    free(s);
}

void gl_vmm_created(uint64_t handle, int32_t device)
{
    struct handle_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return;
    s->handle = handle;
    s->device = device;
    s->refs = 1;
    gl_lock(&vmm_lock);
    struct handle_state *old = find_handle(handle);
    if (old != NULL)
        forget(old);
    gl_ut_oom = false;
    HASH_ADD(hh, handles, handle, sizeof s->handle, s);
    if (gl_ut_oom)
        free(s);
    gl_unlock(&vmm_lock);
}

bool gl_vmm_imported(uint64_t handle, int32_t device)
{
    struct handle_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return false; /* not known here: no record either, its release passes */
    s->handle = handle;
    s->device = device;
    s->refs = 1;
    s->imported = true;
    gl_lock(&vmm_lock);
    struct handle_state *old = find_handle(handle);
    bool fresh = false;
    if (old != NULL) {
        /* no reference left, only mappings: its record went at the release */
        bool unreferenced = old->refs++ == 0;
        fresh = old->imported && unreferenced;
        free(s);
    } else {
        gl_ut_oom = false;
        HASH_ADD(hh, handles, handle, sizeof s->handle, s);
        if (gl_ut_oom) {
            free(s);
        } else {
            nimported++;
            fresh = true;
        }
    }
    gl_unlock(&vmm_lock);
    return fresh;
}

bool gl_vmm_retained(uint64_t handle)
{
    gl_lock(&vmm_lock);
    struct handle_state *s = find_handle(handle);
    if (s != NULL)
        s->refs++;
    gl_unlock(&vmm_lock);
    return s != NULL;
}

enum gl_vmm_release gl_vmm_release_effect(uint64_t handle)
{
    gl_lock(&vmm_lock);
    struct handle_state *s = find_handle(handle);
    enum gl_vmm_release e = GL_VMM_RELEASE_KEEPS;
    if (s == NULL || (!s->imported && s->mappings == 0 && s->refs <= 1))
        e = GL_VMM_RELEASE_FREES;
    else if (s->imported && s->refs == 1)
        e = GL_VMM_RELEASE_ENDS_IMPORT;
    gl_unlock(&vmm_lock);
    return e;
}

bool gl_vmm_released(uint64_t handle)
{
    gl_lock(&vmm_lock);
    struct handle_state *s = find_handle(handle);
    bool gone = true;
    if (s != NULL) {
        if (s->refs > 0)
            s->refs--;
        if (s->mappings == 0 && s->refs == 0) {
            gone = !s->imported;
            forget(s);
        } else {
            gone = false;
        }
    }
    gl_unlock(&vmm_lock);
    return gone;
}

bool gl_vmm_mapped(uint64_t va, uint64_t size, uint64_t handle, int32_t *device)
{
    struct mapping *m = calloc(1, sizeof *m);
    gl_lock(&vmm_lock);
    struct handle_state *s = find_handle(handle);
    /* A mapping not stored (memory ran out) could never be unmapped here:
     * better not recorded at all than reported mapped forever. */
    bool imported = s != NULL && s->imported && m != NULL;
    *device = s != NULL ? s->device : -1;
    if (m != NULL) {
        m->va = va;
        m->size = size;
        m->handle = handle;
        if (s != NULL)
            s->mappings++;
        gl_ut_oom = false;
        HASH_ADD(hh, mappings, va, sizeof m->va, m);
        if (gl_ut_oom) {
            free(m);
            imported = false;
            if (s != NULL)
                s->mappings--;
        }
    }
    gl_unlock(&vmm_lock);
    return imported;
}

size_t gl_vmm_imported_in(uint64_t va, uint64_t size, uint64_t *out, size_t cap)
{
    if (nimported == 0)
        return 0;
    size_t n = 0;
    gl_lock(&vmm_lock);
    for (struct mapping *m = mappings; m != NULL; m = m->hh.next) {
        if (m->va < va || m->va - va >= size)
            continue;
        struct handle_state *s = find_handle(m->handle);
        if (s == NULL || !s->imported)
            continue;
        if (n < cap)
            out[n] = m->va;
        n++;
    }
    gl_unlock(&vmm_lock);
    return n;
}

uint64_t gl_vmm_unmapped(uint64_t va, uint64_t size, void (*gone)(uint64_t handle))
{
    /* Handles whose last mapping goes are settled by gone() outside the
     * lock (it updates the main table), DEAD_BATCH at a time: when a batch
     * is full, the scan stops, the batch is settled and the scan starts
     * again on what is left in the range (each pass removes what it saw),
     * so one unmap over any number of released handles frees them all
     * without allocating. */
    enum { DEAD_BATCH = 64 };
    uint64_t dead[DEAD_BATCH];
    uint64_t known = 0;
    bool more;
    do {
        size_t ndead = 0;
        more = false;
        gl_lock(&vmm_lock);
        struct mapping *m, *tmp;
        HASH_ITER(hh, mappings, m, tmp) {
            if (m->va < va || m->va - va >= size)
                continue;
            if (ndead == DEAD_BATCH) {
                more = true;
                break;
            }
            struct handle_state *s = find_handle(m->handle);
            if (s != NULL && --s->mappings == 0 && s->refs == 0) {
                if (!s->imported)
                    dead[ndead++] = s->handle;
                forget(s);
            }
            known += m->size;
            HASH_DEL(mappings, m);
            free(m);
        }
        gl_unlock(&vmm_lock);
        for (size_t i = 0; i < ndead; i++)
            gone(dead[i]);
    } while (more);
    return known;
}

void gl_vmm_reserved(uint64_t va, uint64_t size)
{
    struct reservation *r = calloc(1, sizeof *r);
    if (r == NULL)
        return;
    r->va = va;
    r->size = size;
    gl_lock(&vmm_lock);
    gl_ut_oom = false;
    HASH_ADD(hh, reservations, va, sizeof r->va, r);
    if (gl_ut_oom)
        free(r);
    gl_unlock(&vmm_lock);
}

void gl_vmm_unreserved(uint64_t va)
{
    gl_lock(&vmm_lock);
    struct reservation *r;
    HASH_FIND(hh, reservations, &va, sizeof va, r);
    if (r != NULL) {
        HASH_DEL(reservations, r);
        free(r);
    }
    gl_unlock(&vmm_lock);
}

struct gl_vmm_range *gl_vmm_copy(size_t *n)
{
    gl_lock(&vmm_lock);
    size_t count = HASH_COUNT(reservations) + HASH_COUNT(mappings);
    struct gl_vmm_range *out = count ? malloc(count * sizeof *out) : NULL;
    size_t i = 0;
    if (out != NULL) {
        for (struct reservation *r = reservations; r != NULL; r = r->hh.next)
            out[i++] = (struct gl_vmm_range){r->va, r->size, 0, GL_VMM_RESERVATION, -1};
        for (struct mapping *m = mappings; m != NULL; m = m->hh.next) {
            struct handle_state *h = find_handle(m->handle);
            out[i++] = (struct gl_vmm_range){m->va, m->size, m->handle, GL_VMM_MAPPING, h ? h->device : -1};
        }
    }
    gl_unlock(&vmm_lock);
    *n = i;
    return out;
}

/* Every handle, mapping and reservation forgotten (lock held, or fork's
 * child). */
static void forget_all(void)
{
    struct handle_state *s, *st;
    HASH_ITER(hh, handles, s, st) { HASH_DEL(handles, s); free(s); }
    nimported = 0;
    struct mapping *m, *mt;
    HASH_ITER(hh, mappings, m, mt) { HASH_DEL(mappings, m); free(m); }
    struct reservation *r, *rt;
    HASH_ITER(hh, reservations, r, rt) { HASH_DEL(reservations, r); free(r); }
}

void gl_vmm_reset(void)
{
    gl_lock(&vmm_lock);
    forget_all();
    gl_unlock(&vmm_lock);
}

void gl_vmm_postfork_child(void)
{
    /* The parent's handles are not the child's; drop everything. */
    gl_lock_init(&vmm_lock, GL_LOCK_VMM, 0);
    forget_all();
}
