/* Virtual memory management: physical handles (cuMemCreate), address
 * reservations, and mappings between them.
 *
 * A handle is a memfd of its size, charged against its device's memory.  A
 * reservation is a PROT_NONE anonymous mapping.  cuMemMap maps the memfd with
 * MAP_FIXED over the reserved addresses (still PROT_NONE: as on a GPU, the
 * range is unusable until cuMemSetAccess), cuMemUnmap puts PROT_NONE
 * anonymous memory back.  A handle lives while it is referenced (cuMemCreate,
 * cuMemRetainAllocationHandle) or mapped, so releasing a mapped handle keeps
 * the memory until the last unmap, like the real driver.
 *
 * Handles created with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR can be shared
 * with other processes (fc_driver_vmm_share.c): the memfd itself is the
 * physical memory, so an importer that maps it sees the same bytes.  An
 * imported handle is charged to no device: it is the exporter's memory. */
#include "fc_internal.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct fc_mh {
    int dev;
    size_t size;
    int fd;
    int refs;
    int maps;
    int imported;  /* from another process's fd: charged to no device */
    struct fc_mc *mc; /* a multicast object (fc_driver_multicast.c): charged to no device */
    /* dev is -1 for host memory (a host or host-NUMA location): charged to
     * no device either, as it is the machine's RAM */
    CUmemAllocationProp prop;
    struct fc_mh *next;
};
struct fc_vres {
    uintptr_t start;
    size_t size;
    struct fc_vres *next;
};
struct fc_vmap {
    uintptr_t start;
    size_t size;
    struct fc_mh *h;
    int prot;
    struct fc_vmap *next;
};

/* all under fc_lock */
static struct fc_mh *handles;
static struct fc_vres *reservations;
static struct fc_vmap *maps;
static uintptr_t next_hint = 0x600000000000ULL;

static struct fc_mh *mh_find(CUmemGenericAllocationHandle h)
{
    for (struct fc_mh *m = handles; m; m = m->next)
        if ((CUmemGenericAllocationHandle)(uintptr_t)m == h)
            return m;
    return NULL;
}

static struct fc_vres *res_find(uintptr_t p)
{
    for (struct fc_vres *r = reservations; r; r = r->next)
        if (p >= r->start && p - r->start < r->size)
            return r;
    return NULL;
}

static struct fc_vmap *map_find(uintptr_t p)
{
    for (struct fc_vmap *m = maps; m; m = m->next)
        if (p >= m->start && p - m->start < m->size)
            return m;
    return NULL;
}

static void mh_maybe_destroy(struct fc_mh *m)
{
    if (m->refs || m->maps)
        return;
    for (struct fc_mh **pp = &handles; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    if (!m->imported && !m->mc && m->dev >= 0)
        fc_uncharge(&fc_devs[m->dev], m->size);
    fc_mc_free(m->mc);
    close(m->fd);
    free(m);
}

int fc_vmm_lookup(uintptr_t p, uintptr_t *rstart, size_t *rsize, uintptr_t *mstart, size_t *msize,
                  int *dev, int *rw)
{
    struct fc_vres *r = res_find(p);
    *rstart = *mstart = 0;
    *rsize = *msize = 0;
    *dev = -1;
    *rw = 0;
    if (!r)
        return 0;
    *rstart = r->start;
    *rsize = r->size;
    struct fc_vmap *m = map_find(p);
    if (m) {
        *mstart = m->start;
        *msize = m->size;
        *dev = m->h->dev;
        *rw = (m->prot & PROT_WRITE) != 0;
    }
    return 1;
}

/* cuMemCreate's documented locations: a device; the host (id ignored); a
 * host NUMA node (this fake has one, node 0, as a machine without NUMA
 * must say).  HOST_NUMA_CURRENT is refused, as documented for 13.0. */
static int location_ok(const CUmemLocation *l)
{
    switch (l->type) {
    case CU_MEM_LOCATION_TYPE_DEVICE: return fc_dev_get(l->id) != NULL;
    case CU_MEM_LOCATION_TYPE_HOST: return 1;
    case CU_MEM_LOCATION_TYPE_HOST_NUMA: return l->id == 0;
    default: return 0;
    }
}

static int prop_ok(const CUmemAllocationProp *prop)
{
    return prop && prop->type == CU_MEM_ALLOCATION_TYPE_PINNED && location_ok(&prop->location);
}

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    (void)option; /* minimum and recommended are both 2 MiB */
    if (!granularity || !prop_ok(prop))
        return CUDA_ERROR_INVALID_VALUE;
    *granularity = FC_BIG;
    return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                     unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle || !prop_ok(prop) || flags != 0 || size == 0 || size % FC_BIG)
        return CUDA_ERROR_INVALID_VALUE;
    /* HOST allocations "are not IPC capable": any handle type is invalid. */
    if (prop->location.type == CU_MEM_LOCATION_TYPE_HOST && prop->requestedHandleTypes != 0)
        return CUDA_ERROR_INVALID_VALUE;
    /* Win32 and fabric handles do not exist here, nor exportable host-NUMA
     * memory (an importer would take its tag's node for a device). */
    if ((prop->requestedHandleTypes & ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ||
        (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE && prop->requestedHandleTypes != 0))
        return CUDA_ERROR_NOT_SUPPORTED;
    int exportable = (prop->requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != 0;
    struct fc_mh *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fc_dev *d = prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? fc_dev_get(prop->location.id) : NULL;
    fc_lock();
    int ok = !d || fc_charge(d, size) == 0;
    fc_unlock();
    if (!ok) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->fd = memfd_create("fakecuda-vmm", MFD_CLOEXEC);
    if (m->fd < 0 || ftruncate(m->fd, (off_t)(size + (exportable ? FC_VMM_TAG_SPACE : 0))) != 0 ||
        (exportable && fc_vmm_write_tag(m->fd, size, prop) != 0)) {
        if (m->fd >= 0)
            close(m->fd);
        free(m);
        fc_lock();
        if (d)
            fc_uncharge(d, size);
        fc_unlock();
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->dev = d ? d->ord : -1;
    m->size = size;
    m->refs = 1;
    m->prop = *prop;
    fc_lock();
    m->next = handles;
    handles = m;
    fc_unlock();
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)m;
    return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    fc_lock();
    struct fc_mh *m = mh_find(handle);
    int ok = m && m->refs > 0;
    if (ok) {
        m->refs--;
        mh_maybe_destroy(m);
    }
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_vmap *v = map_find((uintptr_t)addr);
    if (v) {
        v->h->refs++;
        *handle = (CUmemGenericAllocationHandle)(uintptr_t)v->h;
    }
    fc_unlock();
    return v ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_mh *m = mh_find(handle);
    if (m)
        *prop = m->prop;
    fc_unlock();
    return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

int fc_vmm_shareable_fd(CUmemGenericAllocationHandle handle)
{
    struct fc_mh *m = mh_find(handle);
    if (!m || m->refs == 0 || !(m->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return -1;
    return m->fd;
}

/* A live imported handle of the same memory (file) as fd, or NULL. */
static struct fc_mh *imported_same(int fd)
{
    struct stat a, b;
    if (fstat(fd, &a) != 0)
        return NULL;
    for (struct fc_mh *m = handles; m; m = m->next)
        if (m->imported && m->refs > 0 && fstat(m->fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return m;
    return NULL;
}

CUmemGenericAllocationHandle fc_vmm_adopt(int fd, size_t size, const CUmemAllocationProp *prop)
{
    if (fc_import_reuse) {
        fc_lock();
        struct fc_mh *old = imported_same(fd);
        if (old)
            old->refs++;
        fc_unlock();
        if (old) {
            close(fd); /* adopted: the handle keeps its own descriptor */
            return (CUmemGenericAllocationHandle)(uintptr_t)old;
        }
    }
    struct fc_mh *m = calloc(1, sizeof *m);
    if (!m)
        return 0;
    m->fd = fd;
    m->dev = prop->location.id;
    m->size = size;
    m->refs = 1;
    m->imported = 1;
    m->prop = *prop;
    fc_lock();
    m->next = handles;
    handles = m;
    fc_unlock();
    return (CUmemGenericAllocationHandle)(uintptr_t)m;
}

CUmemGenericAllocationHandle fc_vmm_add_multicast(size_t size, int dev, struct fc_mc *mc)
{
    struct fc_mh *m = calloc(1, sizeof *m);
    if (!m)
        return 0;
    m->fd = memfd_create("fakecuda-multicast", MFD_CLOEXEC);
    if (m->fd < 0 || ftruncate(m->fd, (off_t)size) != 0) {
        if (m->fd >= 0)
            close(m->fd);
        free(m);
        return 0;
    }
    m->dev = dev;
    m->size = size;
    m->refs = 1;
    m->mc = mc;
    m->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    m->prop.location.id = dev;
    fc_lock();
    m->next = handles;
    handles = m;
    fc_unlock();
    return (CUmemGenericAllocationHandle)(uintptr_t)m;
}

struct fc_mc *fc_vmm_multicast(CUmemGenericAllocationHandle h)
{
    struct fc_mh *m = mh_find(h);
    return m && m->refs > 0 ? m->mc : NULL;
}

int fc_vmm_memory(CUmemGenericAllocationHandle h, int *dev, size_t *size)
{
    struct fc_mh *m = mh_find(h);
    if (!m || m->refs == 0 || m->mc || m->imported)
        return 0;
    *dev = m->dev;
    *size = m->size;
    return 1;
}

int fc_vmm_memory_at(uintptr_t p, int *dev, size_t *room)
{
    struct fc_vmap *v = map_find(p);
    if (!v || v->h->mc || v->h->imported)
        return 0;
    *dev = v->h->dev;
    *room = v->start + v->size - p;
    return 1;
}

/* Reserved address space does not count against device memory. */
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!alignment)
        alignment = FC_BIG;
    if (!ptr || size == 0 || size % FC_BIG || (alignment & (alignment - 1)) || flags != 0 ||
        size > SIZE_MAX - alignment)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_vres *r = calloc(1, sizeof *r);
    if (!r)
        return CUDA_ERROR_OUT_OF_MEMORY;
    fc_lock();
    void *hint = addr ? (void *)(uintptr_t)addr : (void *)next_hint;
    next_hint += (size + alignment + FC_BIG) & ~(FC_BIG - 1);
    fc_unlock();
    size_t len = size + alignment;
    void *p = mmap(hint, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        free(r);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    uintptr_t raw = (uintptr_t)p, start = (raw + alignment - 1) & ~(uintptr_t)(alignment - 1);
    if (start > raw)
        munmap(p, start - raw);
    if (raw + len > start + size)
        munmap((void *)(start + size), raw + len - (start + size));
    r->start = start;
    r->size = size;
    fc_lock();
    r->next = reservations;
    reservations = r;
    fc_unlock();
    *ptr = (CUdeviceptr)start;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    fc_lock();
    struct fc_vres **pp = &reservations;
    while (*pp && (*pp)->start != (uintptr_t)ptr)
        pp = &(*pp)->next;
    struct fc_vres *r = *pp;
    int ok = r && r->size == size;
    for (struct fc_vmap *m = maps; ok && m; m = m->next) /* still mapped: refuse */
        if (m->start >= r->start && m->start - r->start < r->size)
            ok = 0;
    if (ok)
        *pp = r->next;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    munmap((void *)r->start, r->size);
    free(r);
    return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t p = (uintptr_t)ptr;
    if (flags != 0 || size == 0 || size % FC_BIG || offset % FC_BIG || p % FC_BIG || p + size < p)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_vmap *v = calloc(1, sizeof *v);
    if (!v)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = CUDA_SUCCESS;
    fc_lock();
    struct fc_mh *m = mh_find(handle);
    struct fc_vres *res = res_find(p);
    /* The real driver blocks a multicast map until the whole team has been
     * added; a one-process fake would block forever, so it refuses. */
    if (!m || m->refs == 0 || offset > m->size || size > m->size - offset || !res ||
        p + size > res->start + res->size || (m->mc && !fc_mc_team_complete(m->mc))) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        for (struct fc_vmap *x = maps; x; x = x->next)
            if (p < x->start + x->size && x->start < p + size)
                r = CUDA_ERROR_ALREADY_MAPPED;
    }
    if (r == CUDA_SUCCESS &&
        mmap((void *)p, size, PROT_NONE, MAP_SHARED | MAP_FIXED, m->fd, (off_t)offset) == MAP_FAILED)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        v->start = p;
        v->size = size;
        v->h = m;
        v->prot = PROT_NONE;
        v->next = maps;
        maps = v;
        m->maps++;
    }
    fc_unlock();
    if (r)
        free(v);
    return r;
}

/* [p, p+size) must consist of whole mappings (at least one), none cut. */
static int range_whole_maps(uintptr_t p, size_t size)
{
    size_t covered = 0;
    for (struct fc_vmap *x = maps; x; x = x->next) {
        if (!(p < x->start + x->size && x->start < p + size))
            continue;
        if (x->start < p || x->start + x->size > p + size)
            return 0;
        covered += x->size;
    }
    return covered > 0;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t p = (uintptr_t)ptr;
    fc_lock();
    int ok = size && p + size > p && range_whole_maps(p, size);
    for (struct fc_vmap **pp = &maps; ok && *pp;) {
        struct fc_vmap *x = *pp;
        if (x->start < p || x->start >= p + size) {
            pp = &x->next;
            continue;
        }
        *pp = x->next;
        /* Put the reservation's PROT_NONE placeholder back. */
        mmap((void *)x->start, x->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
             -1, 0);
        x->h->maps--;
        mh_maybe_destroy(x->h);
        free(x);
    }
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!desc || count == 0)
        return CUDA_ERROR_INVALID_VALUE;
    int prot = PROT_NONE;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || !fc_dev_get(desc[i].location.id))
            return CUDA_ERROR_INVALID_DEVICE;
        if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            prot = PROT_READ | PROT_WRITE;
        else if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ && prot == PROT_NONE)
            prot = PROT_READ;
        else if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ)
            return CUDA_ERROR_INVALID_VALUE;
    }
    uintptr_t p = (uintptr_t)ptr;
    fc_lock();
    int ok = size && p + size > p && range_whole_maps(p, size);
    for (struct fc_vmap *x = maps; ok && x; x = x->next)
        if (x->start >= p && x->start < p + size) {
            mprotect((void *)x->start, x->size, prot);
            x->prot = prot;
        }
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Every byte of [p, p+n) is mapped with write access (copies may span
 * adjacent mappings of one reservation). */
int fc_vmm_range_ok(uintptr_t p, size_t n)
{
    uintptr_t end = p + n;
    do {
        struct fc_vmap *m = map_find(p);
        if (!m || !(m->prot & PROT_WRITE))
            return 0;
        p = m->start + m->size;
    } while (p < end);
    return 1;
}
