/* Memory shared between processes: CUDA IPC handles (cuIpcGetMemHandle,
 * cuIpcOpenMemHandle, cuIpcCloseMemHandle) and memory-pool export/import
 * (cuMemPoolExportToShareableHandle / ImportFromShareableHandle for the pool,
 * cuMemPoolExportPointer / ImportPointer for one allocation in it).
 *
 * Two fakecuda processes share no driver, so an exporting process publishes
 * what it exports in an export table: a memfd mapped shared, one slot per
 * exported allocation (buffer id, size), cleared when the allocation ends.  A
 * handle names the exporter's pid, the table's descriptor and the slot; the
 * importer reads the slot through /proc/PID/fd/FD.  So opening a handle of a
 * freed allocation, or of a process that is gone (its descriptors go with
 * it), fails as on a GPU: CUDA_ERROR_INVALID_VALUE.  Opening a handle the
 * process exported itself gives CUDA_ERROR_INVALID_CONTEXT, as CUDA does.
 *
 * The importer gets a fresh block of the same size in its own device range,
 * charged to none of its devices (it is the exporter's memory): the address
 * is usable (copies, memsets, cuMemGetAddressRange, pointer attributes), but
 * the contents are NOT shared with the exporter. */
#include "fc_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TABLE_MAGIC "FCIPCTB"
#define TABLE_SLOTS 4096
#define WIRE_MAGIC 0x48495046u /* "FPIH" */
#define POOL_MAGIC 0x4c4f4f50u /* "POOL" */

struct table_head {
    char magic[8];
    int32_t pid;
    uint32_t nslots;
};

struct slot {
    uint64_t id;   /* the exporter's buffer id; 0: free */
    uint64_t size; /* requested bytes */
    int32_t dev;
    uint32_t live;
};

/* What a CUipcMemHandle / CUmemPoolPtrExportData carries. */
enum { WIRE_IPC = 1, WIRE_POOL_PTR = 2 };
struct wire {
    uint32_t magic, type;
    int32_t pid, fd; /* exporter, and its export table's descriptor */
    uint32_t slot;
    int32_t dev;
    uint64_t id, size, pool_id;
};
_Static_assert(sizeof(struct wire) <= sizeof(CUipcMemHandle), "fits a CUipcMemHandle");
_Static_assert(sizeof(struct wire) <= sizeof(CUmemPoolPtrExportData), "fits the export data");

/* What an exported pool's descriptor (a memfd) holds. */
struct pool_desc {
    uint32_t magic;
    int32_t pid, dev;
    uint64_t id;
};

/* This process's export table (under fc_lock). */
static int tbl_fd = -1;
static int tbl_pid;
static struct slot *tbl;

static size_t table_bytes(void) { return sizeof(struct table_head) + TABLE_SLOTS * sizeof(struct slot); }

/* A fork child inherits its parent's table, shared: it makes its own, and its
 * copies of the parent's exported blocks no longer name any slot. */
static int ensure_table(void)
{
    if (tbl && tbl_pid == getpid())
        return 0;
    if (tbl) {
        munmap((char *)tbl - sizeof(struct table_head), table_bytes());
        close(tbl_fd);
        tbl = NULL;
        for (int i = 0; i < fc_ndev; i++)
            for (struct fc_seg *s = fc_devs[i].segs; s; s = s->next)
                s->ipc_slot = 0;
    }
    int fd = memfd_create("fakecuda-ipc", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)table_bytes()) == 0)
        m = mmap(NULL, table_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return -1;
    }
    struct table_head *h = m;
    memcpy(h->magic, TABLE_MAGIC, sizeof h->magic);
    h->pid = getpid();
    h->nslots = TABLE_SLOTS;
    tbl_fd = fd;
    tbl_pid = h->pid;
    tbl = (struct slot *)(h + 1);
    return 0;
}

/* Publishes s (lock held); its slot index, or -1 when the table is full. */
static int export_seg(struct fc_seg *s, int dev)
{
    if (ensure_table() != 0)
        return -1;
    if (s->ipc_slot)
        return s->ipc_slot - 1;
    for (int i = 0; i < TABLE_SLOTS; i++) {
        if (tbl[i].live)
            continue;
        tbl[i].id = s->id;
        tbl[i].size = s->req;
        tbl[i].dev = dev;
        __atomic_store_n(&tbl[i].live, 1, __ATOMIC_RELEASE);
        s->ipc_slot = i + 1;
        return i;
    }
    return -1;
}

void fc_ipc_forget(struct fc_seg *s)
{
    if (tbl && tbl_pid == getpid() && s->ipc_slot > 0 && s->ipc_slot <= TABLE_SLOTS)
        __atomic_store_n(&tbl[s->ipc_slot - 1].live, 0, __ATOMIC_RELEASE);
    s->ipc_slot = 0;
}

static void fill_wire(void *out, uint32_t type, int slot, const struct fc_seg *s, int dev,
                      uint64_t pool_id)
{
    struct wire w = {WIRE_MAGIC, type, tbl_pid, tbl_fd, (uint32_t)slot, dev, s->id, s->req, pool_id};
    memset(out, 0, 64);
    memcpy(out, &w, sizeof w);
}

/* Is the allocation a handle names still exported by a live process?
 * CUDA_SUCCESS, CUDA_ERROR_INVALID_CONTEXT (our own handle) or
 * CUDA_ERROR_INVALID_VALUE.  No lock: only the exporter's table is read. */
static CUresult check_remote(const struct wire *w)
{
    if (w->pid == getpid())
        return CUDA_ERROR_INVALID_CONTEXT;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w->pid, (int)w->fd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_INVALID_VALUE; /* the exporter is gone */
    struct table_head h;
    struct slot sl;
    int ok = pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
             memcmp(h.magic, TABLE_MAGIC, sizeof h.magic) == 0 && h.pid == w->pid && w->slot < h.nslots &&
             pread(fd, &sl, sizeof sl, (off_t)(sizeof h + w->slot * sizeof sl)) == (ssize_t)sizeof sl &&
             sl.live && sl.id == w->id && sl.size == w->size;
    close(fd);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static int decode(const void *in, uint32_t type, struct wire *w)
{
    memcpy(w, in, sizeof *w);
    return w->magic == WIRE_MAGIC && w->type == type && w->size > 0;
}

/* A new mapping of w in context c's device (lock held). */
static struct fc_seg *map_new(struct fc_ctx *c, const struct wire *w, int pool)
{
    struct fc_seg *s = fc_heap_map(&fc_devs[c->dev], fc_round(w->size));
    if (!s)
        return NULL;
    s->req = w->size;
    s->ctx = c;
    s->ipc_pid = w->pid;
    s->ipc_src = w->id;
    s->ipc_refs = 1;
    s->ipc_pool = pool;
    return s;
}

/* ---- IPC handles ------------------------------------------------------- */

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!pHandle)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_dev *d;
    struct fc_seg *s = fc_heap_find((uintptr_t)dptr, 1, &d);
    int slot = -1;
    r = CUDA_ERROR_INVALID_VALUE; /* only cuMemAlloc'ed memory is exportable */
    if (s && (s->kind == FC_K_DEVICE || s->kind == FC_K_PITCH)) {
        slot = export_seg(s, d->ord);
        r = slot < 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    }
    if (r == CUDA_SUCCESS)
        fill_wire(pHandle->reserved, WIRE_IPC, slot, s, d->ord, 0);
    fc_unlock();
    return r;
}

/* The same handle opened again in the same context gives the same address
 * and one more reference, as documented. */
static CUresult ipc_open(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    struct wire w;
    if (!pdptr || (Flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ||
        !decode(handle.reserved, WIRE_IPC, &w))
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_remote(&w)))
        return r;
    fc_lock();
    struct fc_seg *s = fc_devs[c->dev].segs;
    for (; s; s = s->next)
        if (s->used && s->kind == FC_K_IPC && !s->ipc_pool && s->ctx == c && s->ipc_pid == w.pid &&
            s->ipc_src == w.id)
            break;
    if (s)
        s->ipc_refs++;
    else
        s = map_new(c, &w, 0);
    if (s)
        *pdptr = (CUdeviceptr)s->start;
    fc_unlock();
    return s ? CUDA_SUCCESS : CUDA_ERROR_MAP_FAILED;
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    return ipc_open(pdptr, handle, Flags);
}

/* The pre-11.0 ABI (cuGetProcAddress with an older version). */
CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    return ipc_open(pdptr, handle, Flags);
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    fc_lock();
    struct fc_dev *d;
    struct fc_seg *s = fc_heap_find((uintptr_t)dptr, 1, &d);
    r = CUDA_ERROR_INVALID_VALUE;
    if (s && s->kind == FC_K_IPC && !s->ipc_pool) {
        if (--s->ipc_refs == 0)
            fc_heap_free(d, s);
        r = CUDA_SUCCESS;
    }
    fc_unlock();
    return r;
}

/* ---- memory pools ------------------------------------------------------ */

/* The shareable handle of a pool is a file descriptor (a memfd naming the
 * exporter and the pool), owned by the caller like a real one. */
CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
                                          CUmemAllocationHandleType handleType, unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_pool *p = (struct fc_pool *)pool;
    if (!handle_out || flags || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    int ok = p && fc_pool_known(p) && p->alive && !p->imported &&
             (p->handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    struct pool_desc desc = {POOL_MAGIC, getpid(), ok ? p->dev : 0, ok ? p->id : 0};
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    int fd = memfd_create("fakecuda-pool", MFD_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (pwrite(fd, &desc, sizeof desc, 0) != (ssize_t)sizeof desc) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *(int *)handle_out = fd;
    return CUDA_SUCCESS;
}

/* Allocates nothing: the imported pool only maps pointers exported from the
 * original (cuMemAllocFromPoolAsync and cuDeviceSetMemPool refuse it). */
CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
                                            CUmemAllocationHandleType handleType, unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool_out || flags || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    struct pool_desc desc;
    int fd = (int)(intptr_t)handle;
    if (pread(fd, &desc, sizeof desc, 0) != (ssize_t)sizeof desc || desc.magic != POOL_MAGIC ||
        desc.pid == getpid() || (kill(desc.pid, 0) != 0 && errno == ESRCH))
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_pool *p = fc_pool_new(desc.dev >= 0 && desc.dev < fc_ndev ? desc.dev : 0);
    if (p) {
        p->imported = 1;
        p->handle_types = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        p->src_pid = desc.pid;
        p->src_id = desc.id;
    }
    fc_unlock();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pool_out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!shareData_out)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_dev *d;
    struct fc_seg *s = fc_heap_find((uintptr_t)ptr, 1, &d);
    int slot = -1;
    CUresult r = CUDA_ERROR_INVALID_VALUE; /* a live block of an exportable pool */
    if (s && s->kind == FC_K_POOL && !s->pool_free && s->pool->handle_types && !s->pool->imported) {
        slot = export_seg(s, d->ord);
        r = slot < 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    }
    if (r == CUDA_SUCCESS)
        fill_wire(shareData_out->reserved, WIRE_POOL_PTR, slot, s, d->ord, s->pool->id);
    fc_unlock();
    return r;
}

/* Freed with cuMemFree / cuMemFreeAsync, as documented. */
CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    struct wire w;
    if (!ptr_out || !shareData || !decode(shareData->reserved, WIRE_POOL_PTR, &w))
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_pool *p = (struct fc_pool *)pool;
    fc_lock();
    int ok = p && fc_pool_known(p) && p->alive && p->imported && p->src_pid == w.pid &&
             p->src_id == w.pool_id;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_remote(&w)))
        return r;
    fc_lock();
    struct fc_seg *s = map_new(c, &w, 1);
    if (s)
        *ptr_out = (CUdeviceptr)s->start;
    fc_unlock();
    return s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
