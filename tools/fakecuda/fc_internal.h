/* fakecuda driver internals: shared by the fc_driver_*.c files of libcuda.so.1.
 *
 * __CUDA_API_VERSION_INTERNAL makes cuda.h declare every real ABI name
 * (cuMemAlloc_v2, cuMemAllocAsync_ptsz, the legacy cuCtxDestroy, ...) without
 * the renaming macros, so each definition below is checked by the compiler
 * against NVIDIA's own prototype. */
#ifndef FC_INTERNAL_H
#define FC_INTERNAL_H

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define FC_MAX_DEVICES 16
#define FC_DRIVER_VERSION 13000
#define FC_ALIGN ((size_t)512)              /* cudaMalloc guarantees >= 256 */
#define FC_BIG ((size_t)2 << 20)            /* large-page granularity */
#define FC_DEFAULT_MEM ((size_t)1 << 30)
#define FC_DEFAULT_CTX_BYTES (4ull << 20) /* FAKECUDA_CTX_BYTES: a context's own memory */

/* What a heap segment holds.  The heap itself only knows free/used. */
enum fc_kind {
    FC_K_DEVICE = 1, /* cuMemAlloc */
    FC_K_PITCH,      /* cuMemAllocPitch */
    FC_K_MANAGED,    /* cuMemAllocManaged */
    FC_K_POOL,       /* a block owned by a stream-ordered pool */
    FC_K_ARRAY,      /* backing store of a CUarray / CUmipmappedArray */
    FC_K_IPC,        /* another process's allocation mapped here (not charged) */
    FC_K_GRAPH,      /* a graph allocation node's address (not charged: launches
                        charge the device's graph pool) */
    FC_K_EXTERNAL,   /* a buffer mapped from external memory (not charged) */
    FC_K_MODULE,     /* a loaded module's or library's code and data (fc_driver_module.c) */
};

struct fc_pool;
struct fc_green;

struct fc_ctx {
    int dev;
    int primary;   /* the device's primary context (never freed) */
    int alive;     /* 0 after cuCtxDestroy / primary reset-to-inactive */
    int refs;      /* primary retain count */
    int attached;  /* user context: cuCtxAttach usages beyond its creation */
    unsigned flags;
    unsigned long long id;
    size_t cost_charged;     /* the context's own memory, charged while it lives (fc_ctx_charge) */
    struct fc_ctx *next_all; /* every context ever made, for handle checks */
    /* Green contexts (fc_driver_green.c).  A primary context's life counts
     * the times it went inactive (reset, or its last release).  The CUcontext
     * cuCtxFromGreenCtx hands out is a context of its own (its handle is not
     * the primary's) whose memory is the primary context's: `owner` is that
     * primary, `life` the owner's life when the green context retained it,
     * `green` the green context. */
    unsigned long long life;
    struct fc_ctx *owner;
    struct fc_green *green;
};

/* One address-ordered segment of a device's range; free or used.  Used
 * segments carry the allocation's metadata, so the heap is also the
 * allocation registry (lookups by start and by containing address). */
struct fc_seg {
    uintptr_t start;
    size_t size;               /* reserved bytes (rounded) */
    int used;
    int charged;               /* its size is counted in the device's `used` */
    struct fc_seg *prev, *next;
    /* metadata, valid when used */
    int kind;
    size_t req;                /* requested bytes */
    struct fc_ctx *ctx;
    struct fc_pool *pool;      /* FC_K_POOL: owning pool */
    int pool_free;             /* FC_K_POOL: held by the pool, not by a user */
    struct fc_seg *pool_next;  /* FC_K_POOL: pool's block list */
    unsigned long long id;     /* process-unique buffer id */
    int ipc_slot;              /* exported: export-table slot + 1, else 0 */
    /* FC_K_IPC: where the mapping comes from, and how it goes away */
    int ipc_pid;               /* exporting process */
    unsigned long long ipc_src;/* exporter's buffer id */
    int ipc_refs;              /* cuIpcOpenMemHandle references */
    int ipc_pool;              /* cuMemPoolImportPointer: freed like a pool block */
    /* FC_K_GRAPH (fc_driver_graph*.c) */
    int graph_live;            /* a launch reached the node; not freed since */
    int graph_refs;            /* nodes and executable graphs naming it */
    void *graph_owner;         /* the graph of its allocation node */
    int graph_freed;           /* a free node exists: 1 in the owner, 2 elsewhere */
    int graph_sim;             /* scratch: live during a launch's dry run */
};

struct fc_pool {
    int dev;
    int alive;                 /* 0 once destroyed (struct kept for handle checks) */
    int is_default;
    uint64_t threshold;        /* CU_MEMPOOL_ATTR_RELEASE_THRESHOLD */
    int reuse[3];              /* the three REUSE_* attributes, stored only */
    uint64_t reserved, used, reserved_high, used_high;
    struct fc_seg *blocks;
    struct fc_pool *next_all;
    unsigned long long id;     /* process-unique, named in exported handles */
    unsigned handle_types;     /* CUmemAllocationHandleType mask: exportable */
    int imported;              /* from another process: maps, never allocates */
    int managed;               /* CU_MEM_ALLOCATION_TYPE_MANAGED (CUDA 13): its blocks are managed */
    int no_location;           /* managed, CU_MEM_LOCATION_TYPE_NONE (held by dev here) */
    int src_pid;               /* imported: the exporting process ... */
    unsigned long long src_id; /* ... and its pool's id */
};

/* FAKECUDA_MEMINFO_DELAY_MS: how long cuMemGetInfo takes (a driver stuck at
 * exit, for the interposer's time limits); 0 normally. */
extern unsigned long long fc_meminfo_delay_ms;
/* FAKECUDA_MEMINFO_DELAY_SKIP: the first this many calls answer at once (a
 * driver that gets stuck later, at exit); fc_meminfo_calls counts them. */
extern unsigned long long fc_meminfo_delay_skip, fc_meminfo_calls;
extern unsigned long long fc_free_delay_ms;
extern int fc_free_delay_locked; /* FAKECUDA_FREE_DELAY_LOCKED: the delay inside fc_lock */
/* FAKECUDA_IMPORT_REUSE=1: importing memory this process already holds a
 * live imported handle of returns that handle again, one more reference
 * (CUDA allows either; the default is a new handle per import). */
extern int fc_import_reuse;
extern int fc_drop_copies; /* FAKECUDA_DROP_COPIES: copies and memsets into device memory do nothing */

struct fc_dev {
    int ord;
    uintptr_t base;
    size_t va_size;            /* address space of the range */
    size_t total;              /* FAKECUDA_MEM_BYTES */
    size_t used;               /* bytes charged: allocations, pools, VMM, arrays */
    struct fc_seg *segs;       /* address-ordered */
    struct fc_pool *default_pool, *cur_pool;
    struct fc_ctx primary;
    /* the graph memory pool: used by live graph allocations, reserved
     * (charged to `used`) until cuDeviceGraphMemTrim */
    size_t graph_used, graph_reserved, graph_used_high, graph_reserved_high;
    /* FAKECUDA_OTHER_USED_LATER: another process's memory not yet charged;
     * charged by this device's first cuMemAlloc (fc_state.c) */
    size_t other_later;
};

/* fc_state.c: one lock for all driver state; a fake needs correctness, not
 * scalability. */
extern struct fc_dev fc_devs[FC_MAX_DEVICES];
extern int fc_ndev;
void fc_lock(void);
void fc_unlock(void);
int fc_initialized(void);
CUresult fc_do_init(void);
unsigned long long fc_next_id(void);
struct fc_dev *fc_dev_get(CUdevice d); /* NULL when out of range */
/* A context's own device memory (fc_state.c, README "Environment"):
 * charged when it becomes active, given back when it goes; under fc_lock.
 * fc_ctx_charge returns -1 when the device has not that much free. */
int fc_ctx_charge(struct fc_ctx *c);
void fc_ctx_uncharge(struct fc_ctx *c);
/* Charges FAKECUDA_OTHER_USED_LATER on d if it is still due; under fc_lock. */
void fc_other_later_charge(struct fc_dev *d);

/* fc_heap.c */
size_t fc_round(size_t n);
int fc_heap_setup(struct fc_dev *d);
struct fc_seg *fc_heap_alloc(struct fc_dev *d, size_t rsize); /* charges d->used */
struct fc_seg *fc_heap_map(struct fc_dev *d, size_t rsize);   /* FC_K_IPC: charges nothing */
struct fc_seg *fc_heap_reserve(struct fc_dev *d, size_t rsize); /* FC_K_GRAPH: charges nothing */
void fc_heap_free(struct fc_dev *d, struct fc_seg *s);         /* uncharges */
struct fc_seg *fc_heap_find(uintptr_t p, int exact, struct fc_dev **dout);
int fc_heap_in_range(uintptr_t p);
int fc_charge(struct fc_dev *d, size_t n);   /* 0 ok, -1 out of memory */
void fc_uncharge(struct fc_dev *d, size_t n);

/* fc_driver_ctx.c */
/* Checks init + current + alive; gives the context that owns what is made
 * now: a green context's CUcontext gives its primary context. */
CUresult fc_cur_ctx(struct fc_ctx **out);
int fc_ctx_valid(struct fc_ctx *c);          /* handle is one of ours and alive */
CUresult fc_release_ctx_check(void);         /* frees: init, and no dead current context */
void fc_ctx_release_memory(struct fc_ctx *c);/* fc_driver_mem.c; lock held */
/* (lock held) One more reference to / one less on the device's primary
 * context; the last release resets it (its memory goes), as
 * cuDevicePrimaryCtxRelease's does.  Release: CUDA_ERROR_INVALID_CONTEXT when
 * no reference is held. */
CUresult fc_primary_retain_locked(struct fc_dev *d);
CUresult fc_primary_release_locked(struct fc_dev *d);
/* (takes the lock) A context made elsewhere (a green context's CUcontext)
 * joins the list of known handles. */
void fc_ctx_register(struct fc_ctx *c);
/* The green context of this thread's current context, or NULL. */
struct fc_green *fc_cur_green(void);

/* fc_driver_green.c (lock held): a green context not destroyed. */
int fc_green_live(const struct fc_green *g);
/* (lock held) The primary context a live green context uses, else NULL. */
struct fc_ctx *fc_green_primary(const struct fc_green *g);

/* fc_driver_array.c (lock held): destroy the context's arrays */
void fc_array_release_ctx(struct fc_ctx *c);
/* (takes the lock) A mipmapped array in the current context over memory
 * that is not its device's (external memory): charged to nothing; its texels
 * must fit in `room` bytes. */
CUresult fc_array_map(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels, size_t room);

/* fc_driver_module.c (lock held): the context's modules end with it. */
void fc_module_release_ctx(struct fc_ctx *c);

/* fc_driver_extmem.c (lock held): the context's imported external memory
 * objects end with it. */
void fc_extmem_release_ctx(struct fc_ctx *c);

/* fc_driver_stream.c */
CUresult fc_stream_dev(CUstream s, int *dev);/* device a stream belongs to */

/* fc_driver_pool.c (takes the lock): what a synchronize of the device
 * does observably, fc_pool_sync_device. */
void fc_pool_sync_locking(int dev);

/* fc_driver_pool.c (lock held) */
struct fc_pool *fc_pool_new(int dev);
int fc_pool_known(struct fc_pool *p);
void fc_pool_init_device(struct fc_dev *d);
void fc_pool_sync_device(int dev);           /* trim every pool to threshold */
void fc_pool_block_free(struct fc_seg *s);   /* user returns a pool block */
void fc_pool_trim(struct fc_pool *p, uint64_t keep);
void fc_pool_empty_device(int dev);          /* trim every pool to 0 */

/* fc_driver_vmm.c (lock held): 1 when p lies in a cuMemAddressReserve'd
 * range (rstart/rsize); mstart/msize/dev/rw describe the mapping at p, msize 0
 * when nothing is mapped there. */
int fc_vmm_lookup(uintptr_t p, uintptr_t *rstart, size_t *rsize,
                  uintptr_t *mstart, size_t *msize, int *dev, int *rw);
int fc_vmm_range_ok(uintptr_t p, size_t n);   /* mapped read-write throughout */
/* Sharing VMM handles between processes (fc_driver_vmm_share.c).  An
 * exportable handle's memfd is FC_VMM_TAG_SPACE bytes longer than the
 * allocation: a tag there (written by fc_vmm_write_tag; 0 ok) says what the
 * importer needs, since the fd alone carries no properties. */
#define FC_VMM_TAG_SPACE ((size_t)4096)
int fc_vmm_write_tag(int fd, size_t size, const CUmemAllocationProp *prop);
/* (lock held) The memfd of a live handle created exportable as a POSIX fd,
 * else -1. */
int fc_vmm_shareable_fd(CUmemGenericAllocationHandle handle);
/* (takes the lock) A new handle for another process's memory: owns fd,
 * charged to no device.  0 when memory ran out. */
CUmemGenericAllocationHandle fc_vmm_adopt(int fd, size_t size, const CUmemAllocationProp *prop);

/* Multicast objects (fc_driver_multicast.c) are VMM handles with a team.
 * (takes the lock) A new handle of size bytes for mc, charged to no device
 * (its memory is what is bound to it); 0 when memory ran out. */
struct fc_mc;
CUmemGenericAllocationHandle fc_vmm_add_multicast(size_t size, int dev, struct fc_mc *mc);
/* (lock held) The multicast object of a live handle, else NULL. */
struct fc_mc *fc_vmm_multicast(CUmemGenericAllocationHandle h);
/* (lock held) 1 when h is a live cuMemCreate handle of this process's, with
 * its device and size. */
int fc_vmm_memory(CUmemGenericAllocationHandle h, int *dev, size_t *size);
/* (lock held) 1 when p is mapped from such a handle: its device, and the
 * bytes from p to the end of that mapping. */
int fc_vmm_memory_at(uintptr_t p, int *dev, size_t *room);
int fc_mc_team_complete(const struct fc_mc *mc); /* lock held */
void fc_mc_free(struct fc_mc *mc);                /* with its handle; NULL ok */

/* fc_driver_ipc.c (lock held): an exported allocation ends (freed, or its
 * pool block handed back), so importers can no longer open it. */
void fc_ipc_forget(struct fc_seg *s);

/* fc_driver_graph.c (lock held; the rest is in fc_graph.h) */
struct fc_graph;
void fc_graph_free_alloc(struct fc_seg *s);  /* a live graph allocation is freed */
void fc_graph_release_ctx(struct fc_ctx *c); /* its context is torn down */
/* Stream capture: the stream-ordered calls add nodes to graph g instead. */
CUresult fc_capture_alloc(struct fc_graph *g, struct fc_ctx *c, int dev, size_t bytesize, CUdeviceptr *dptr);
CUresult fc_capture_free(struct fc_graph *g, CUdeviceptr dptr);
/* fc_driver_stream.c (lock held): where the capture into stream hs is kept
 * (per_thread: NULL means the per-thread default stream); NULL for the
 * legacy stream, which cannot be captured, and for an unknown stream. */
struct fc_graph **fc_stream_capture_slot(CUstream hs, int per_thread);
/* The graph stream hs is capturing into, or NULL (lock held). */
struct fc_graph *fc_capturing(CUstream hs, int per_thread);

/* fc_driver_mem.c */
int fc_host_lookup(uintptr_t p, uintptr_t *start, size_t *size, struct fc_ctx **ctx,
                   int *registered);
/* fc_driver_copy.c: 1 when [p, p+n) may be touched; an address in a device
 * range or VMM reservation must lie inside one live allocation/mapping. */
int fc_access_ok(uintptr_t p, size_t n, int *is_device);

#endif
