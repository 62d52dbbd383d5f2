/* gpuleak snapshot file format, version 1: the one contract between the
 * interposer (writer) and the reporter (reader): record types, sizes, bounds
 * and enums.  The fields of each part, in file order, are listed once in
 * snapshot_fields.h; snapshot_codec.h encodes and decodes them, and the field
 * tables of docs/snapshot-format.md are generated from them
 * (scripts/format-doc.py), so no offset is written out by hand anywhere.
 *
 * Everything is little-endian and byte-packed.  Readers decode fields with
 * memcpy (never cast a pointer into the buffer).  Fields are only ever
 * appended to an array entry, so readers accept entries larger than the
 * size they know (older readers ignore the tail) and smaller ones down to
 * the entry's minimum (GL_ENTRY_MIN_<PART>, snapshot_fields.h), reading
 * the fields an older writer did not write as 0.
 */
#ifndef GPULEAK_SNAPSHOT_FORMAT_H
#define GPULEAK_SNAPSHOT_FORMAT_H

#include <stdint.h>

#define GL_SNAP_MAGIC "GPULEAK\x1a"   /* 8 bytes, no terminator in the file */
#define GL_SNAP_MAGIC_LEN 8
#define GL_SNAP_VERSION 1u
#define GL_SNAP_FILE_HEADER_SIZE 16u   /* GL_FIELDS_FILE_HEADER */
#define GL_SNAP_RECORD_HEADER_SIZE 16u /* GL_FIELDS_RECORD_HEADER */

/* Upper bounds a reader enforces so a hostile file cannot make it allocate
 * without limit.  Writers never exceed them. */
#define GL_SNAP_MAX_STRING (1u << 20)     /* one string field */
#define GL_SNAP_MAX_ARGS 65536u           /* argv entries in PROCESS */
#define GL_SNAP_MAX_DEPTH 1024u           /* frames in one STACK */
#define GL_SNAP_MAX_BUILD_ID 64u          /* bytes of a GNU build-id */
#define GL_SNAP_MAX_DEVICE 4095           /* device ordinals: -1 (host), 0..this */

enum gl_record_type {
    GL_REC_PROCESS = 1, /* exactly once, first record */
    GL_REC_MODULE = 2,  /* one per loaded object; ids are 0,1,2.. in order */
    GL_REC_STACK = 3,   /* one per interned stack */
    GL_REC_ALLOCS = 4,  /* array of live allocations (count entries) */
    GL_REC_DEVICES = 5, /* array of per-device counters */
    GL_REC_PEAK = 6,    /* array: composition of each device's peak */
    GL_REC_EVENTS = 7,  /* array: history ring buffer, oldest first */
    GL_REC_POOLS = 8,   /* array: memory pools queried at snapshot time */
    GL_REC_VMM = 9,     /* array: VA reservations and mappings */
    GL_REC_LABEL = 10,  /* one annotation label (see EVENTS) */
    GL_REC_PYFRAME = 11, /* one interned Python frame (see STACK) */
    GL_REC_ENV = 12,     /* allocator-related environment variables */
    GL_REC_BAD_FREES = 13, /* array: frees of addresses with no live allocation */
    GL_REC_CALLS = 14,     /* array: allocation calls and frees per stack */
    GL_REC_TEARDOWN = 15,  /* array: allocations freed only by a context teardown */
    GL_REC_TORCH = 16,        /* PyTorch's caching allocator as it saw itself (docs/pytorch.md) */
    GL_REC_TORCH_BLOCKS = 17, /* array: that allocator's blocks */
    GL_REC_SAMPLING = 18,     /* stacks were sampled (GPULEAK_MODE=light) */
    GL_REC_TORCH_STEP = 19,   /* one PyTorch optimizer step's light view (docs/pytorch.md, "Steps") */
    GL_REC_TORCH_SETTINGS = 20, /* PyTorch's allocator settings, as it reports them */
    GL_REC_TORCH_OOM = 21,      /* the out-of-memory PyTorch raised (its OOM observer) */
    GL_REC_END = 0xffffffffu, /* last record; nothing may follow it */
};

/* Each payload below: its fixed fields (GL_FIELDS_<RECORD>), then its
 * variable tail (GL_TAIL_<RECORD>), both in snapshot_fields.h, where
 * str = u32 length + that many bytes (no terminator). */
#define GL_PROCESS_FIXED_SIZE 56u
enum gl_snap_reason {
    GL_REASON_EXIT = 0,
    GL_REASON_SIGNAL = 1,
    GL_REASON_OOM = 2,
    GL_REASON_REQUEST = 3,
    GL_REASON_FATAL_SIGNAL = 4,
    GL_REASON_PERIODIC = 5, /* every GPULEAK_INTERVAL */
    GL_REASON_DETACH = 6,   /* gpuleak detach: tracking ends, the process goes on */
    GL_REASON_EXEC = 7,     /* an exec replaces the image: its end, unless the exec fails */
};
#define GL_SNAP_F_FINAL 0x1u /* written at process exit */
/* No rank variable was set: the rank field is 0 by default, not a rank
 * (torchrun's own agent, a tool process beside the ranks).  Older
 * snapshots never set it. */
#define GL_SNAP_F_NO_RANK 0x2u

/* MODULE: frames are attributed to the module whose [start,end) contains
 * them; file offsets are pc - load_bias. */
#define GL_MODULE_FIXED_SIZE 28u

/* STACK: pc[0] is the innermost
 * frame: the return address into the function that called the intercepted
 * API.  Every pc is a return address (a call precedes it): symbolize pc-1.
 * Stack id 0 means "no stack captured"; a STACK record never uses id 0. */
#define GL_STACK_FIXED_SIZE 8u

/* A pc whose top 32 bits are all ones is no code address (user space ends
 * far below): it stands for the interned Python frame whose id is the low 32
 * bits (PYFRAME). */
#define GL_PYFRAME_TAG 0xffffffff00000000ull
#define GL_PYFRAME_FIXED_SIZE 8u
static inline int gl_pc_is_pyframe(uint64_t pc) { return (pc & GL_PYFRAME_TAG) == GL_PYFRAME_TAG; }

/* SAMPLING: at most once, only when stacks were captured for a sample of
 * the allocations (GPULEAK_MODE=light): each thread samples by bytes, an
 * allocation of s bytes with probability 1 - exp(-s/sample_bytes).  Every
 * allocation is still in ALLOCS, DEVICES, PEAK, EVENTS and CALLS with its
 * exact size; those not sampled carry the stack unsampled_stack_id, whose
 * one frame is GL_UNSAMPLED_PC (0 when there was none yet).  Files
 * without this record captured every stack. */
#define GL_SAMPLING_FIXED_SIZE 16u
enum gl_sampling_mode { GL_SAMPLING_BYTES = 1 };
#define GL_UNSAMPLED_PC 0xfffffffe00000000ull

/* Array entries: the fields of each are GL_FIELDS_<RECORD> in
 * snapshot_fields.h, which must add up to these sizes. */
#define GL_ALLOC_ENTRY_SIZE 56u

/* DEVICES entry: device -1 is the host (pinned and registered host memory).
 * Entries grew from 104 bytes (ctx_used_at_create, ctx_creations appended),
 * then from 120 (before_attach_used, _freed, _frees appended), then from
 * 144 (before_attach_torch_*: PyTorch's segments made before the attach):
 * a reader accepts the shorter ones and reads the missing fields as 0. */
#define GL_DEVICE_ENTRY_SIZE 176u
#define GL_DEVICE_ENTRY_MIN_SIZE 104u

/* PEAK entry: the live memory of that device, grouped by stack, at the
 * moment its peak_bytes was reached. */
#define GL_PEAK_ENTRY_SIZE 24u

/* EVENTS entry: ptr is the label id for ANNOTATION events; mem_free and
 * mem_total are the driver's view at an OOM event (0 when unknown or for other events); a
 * FREE event's mem_free is the free's own stack id (GPULEAK_FREE_STACKS;
 * 0 when not recorded) -- its stack_id is the allocation's;
 * size is the requested size for OOM, the snapshot index for SNAPSHOT.
 * The format's first layout had 56-byte entries (mem_free, mem_total
 * appended since): a reader reads those as 0, "not known". */
#define GL_EVENT_ENTRY_SIZE 72u
#define GL_EVENT_ENTRY_MIN_SIZE 56u
enum gl_event_type {
    GL_EV_ALLOC = 1,
    GL_EV_FREE = 2,
    GL_EV_OOM = 3,
    GL_EV_SNAPSHOT = 4,
    GL_EV_ANNOTATION = 5,
};

/* POOLS entry: the pool's ReservedMemCurrent / UsedMemCurrent / ...High
 * attributes. */
#define GL_POOL_ENTRY_SIZE 48u
/* The pool handle of an entry that is a device's graph memory pool (what
 * cuDeviceGetGraphMemAttribute tells: the same four figures). */
#define GL_POOL_GRAPH_MEM 0xffffffffffffffffull

/* VMM entry: GL_VMM_RESERVATION: handle 0; GL_VMM_MAPPING: va..va+size maps
 * handle. */
#define GL_VMM_ENTRY_SIZE 32u
enum gl_vmm_type { GL_VMM_RESERVATION = 1, GL_VMM_MAPPING = 2 };

/* LABEL: an ANNOTATION event's ptr field holds the id of its label. */
#define GL_LABEL_FIXED_SIZE 4u

/* ENV: the variables that change how allocators behave (PYTORCH_NO_CUDA_MEMORY_CACHING,
 * PYTORCH_CUDA_ALLOC_CONF, ...), as they were at the process's first tracked
 * allocation (when allocators read their configuration), or when tracking
 * started if nothing was allocated, so the reporter can tell a cache from a
 * leak.  At most once. */
#define GL_ENV_FIXED_SIZE 4u
#define GL_ENV_MAX 64u

/* BAD_FREES entry: one per (stack, API, outcome) of frees whose address or
 * handle had no live allocation -- a double free, a pointer never allocated,
 * or memory allocated where gpuleak could not see it.  At most GL_BAD_FREE_MAX entries; later new sites are only counted in
 * DEVICES' unknown_free_count. */
#define GL_BAD_FREE_ENTRY_SIZE 40u

/* TEARDOWN entry: allocations the program never freed that a
 * context teardown released (cudaDeviceReset, cuDevicePrimaryCtxReset,
 * cuCtxDestroy, the last cuDevicePrimaryCtxRelease) -- what compute-sanitizer's leak check reports at
 * cudaDeviceReset.  One per (stack, kind, API, device, teardown call).
 * At most GL_TEARDOWN_MAX entries; later new groups are not kept. */
#define GL_TEARDOWN_ENTRY_SIZE 40u
#define GL_TEARDOWN_MAX 1024u
#define GL_BAD_FREE_MAX 256u
#define GL_BAD_FREE_F_REJECTED 0x1u /* CUDA refused the free too */

/* CALLS entry: for one stack, every call that made memory with it since
 * tracking started, and the frees of that memory.  Only stacks with allocs > 0; at most one entry per stack. */
#define GL_CALLS_ENTRY_SIZE 32u

/* TORCH: PyTorch's caching allocator asked, through its own Python API
 * (torch.cuda.memory._snapshot()), while the snapshot was taken: at most
 * once, only in a process where torch.cuda.memory was imported; a
 * CUDA-level out-of-memory snapshot carries the last view (age_us), the one
 * from PyTorch's out-of-memory observer its view then (docs/pytorch.md).  Exit and fatal-signal
 * snapshots, which cannot ask, carry the last view PyTorch gave (age_us
 * says how old).  status says whether it answered; TORCH_BLOCKS follow only
 * when it did.  Older files' records are 32 bytes, without age_us. */
#define GL_TORCH_FIXED_SIZE 56u
#define GL_TORCH_FIXED_SIZE_V1 32u
/* Before max_allocated_bytes and max_reserved_bytes (issue 45): 40 bytes. */
#define GL_TORCH_FIXED_SIZE_V2 40u

/* TORCH_SETTINGS: PyTorch's caching allocator's settings as PyTorch itself
 * reports them (`_snapshot()["allocator_settings"]`), one "key=value"
 * string each, at most GL_TORCH_SETTINGS_MAX; at most once, after TORCH,
 * in a snapshot whose TORCH view answered (the same answer). */
#define GL_TORCH_SETTINGS_FIXED_SIZE 4u
#define GL_TORCH_SETTINGS_MAX 64u

/* TORCH_OOM: written only in the snapshot gpuleak takes from PyTorch's
 * out-of-memory observer (torch._C._cuda_attach_out_of_memory_observer),
 * which PyTorch calls just before it raises torch.OutOfMemoryError, after
 * freeing its cache and trying cudaMalloc again; the TORCH view of that
 * snapshot is PyTorch's at that moment.  At most once. */
#define GL_TORCH_OOM_FIXED_SIZE 32u
enum gl_torch_status {
    GL_TORCH_ANSWERED = 1, /* segments and blocks below are PyTorch's view now */
    GL_TORCH_NO_ANSWER = 2, /* Python's main thread ran no bytecode in time */
    GL_TORCH_FAILED = 3,    /* torch.cuda.memory._snapshot() raised */
};

/* TORCH_BLOCKS entry: one block of a segment of PyTorch's allocator; a
 * segment is what the allocator got from cudaMalloc, so `segment` is the ptr
 * of an ALLOCS entry when gpuleak saw that call.  stack_id names a STACK of
 * Python frames only (the allocation's, innermost first; 0 when PyTorch kept
 * none: history recording was off when the block was allocated). */
#define GL_TORCH_BLOCK_ENTRY_SIZE 48u
/* TORCH_BLOCKS flags (the u16 was reserved, 0, before). */
/* TORCH_STEP: one record per view of an optimizer step gpuleak kept (the
 * first and the last GL_TORCH_STEPS_KEPT; after the first 64 steps, not
 * every step is viewed), oldest first; lines tail entries follow
 * the fixed part, each u64 bytes, u64 count, u32 line, str file, str
 * function. */
#define GL_TORCH_STEP_FIXED_SIZE 40u
#define GL_TORCH_STEPS_KEPT 64u /* the last views kept in memory, besides the first */
#define GL_TORCH_STEP_LINE_FIXED_SIZE 20u
#define GL_TORCH_STEP_MAX_LINES 16u /* lines per step, the largest by live bytes */
#define GL_TORCH_STEP_F_LINES 1u    /* lines known: PyTorch's recorder was on */
#define GL_TORCH_STEP_F_WINDOW 2u   /* a time window's view (GPULEAK_STEP_INTERVAL), not an optimizer step */
#define GL_TORCH_STEP_F_RECORDED 4u /* PyTorch's recorder was on from the previous step's end to this one's */
#define GL_TORCH_STEP_F_SAMPLED 8u  /* lines from gpuleak's sampled recorder (GPULEAK_STEP_LINES_EVERY) */
/* After the lines, since 2026-12: u64 recorded_steps, u32 lines_every, u32
 * reserved (older records end with the lines; readers before it ignore it). */
#define GL_TORCH_STEP_TRAILER_SIZE 16u
#define GL_TORCH_BLOCK_F_BEFORE_ATTACH 1u /* its segment was made before gpuleak attach */
/* DEVICES before_attach_torch_status. */
enum gl_before_attach_torch {
    GL_BEFORE_ATTACH_TORCH_NOT_ASKED = 0,
    GL_BEFORE_ATTACH_TORCH_ANSWERED = 1,
    GL_BEFORE_ATTACH_TORCH_NO_ANSWER = 2, /* asked at the attach, no answer yet */
};
enum gl_torch_block_state {
    GL_TORCH_BLOCK_UNKNOWN = 0,
    GL_TORCH_BLOCK_ALLOCATED = 1,    /* "active_allocated": a live tensor's */
    GL_TORCH_BLOCK_PENDING_FREE = 2, /* "active_pending_free": freed, a stream still uses it */
    GL_TORCH_BLOCK_INACTIVE = 3,     /* "inactive": cached, free for reuse */
};

/* Record multiplicity: PROCESS, DEVICES, PEAK, END once; MODULE, STACK,
 * LABEL, PYFRAME once per item; ALLOCS, EVENTS, POOLS, VMM, BAD_FREES, CALLS any number of times (the
 * reader concatenates them).  For non-array records `count` is 1 and is not
 * otherwise meaningful.  END's `records` counts every record before it,
 * unknown types included. */

/* END payload: GL_FIELDS_END. */
#define GL_END_SIZE 16u

/* What kind of memory an allocation is.  Reported separately. */
enum gl_kind {
    GL_KIND_DEVICE = 0,          /* cudaMalloc, cuMemAlloc, pitched, 3D */
    GL_KIND_POOL = 1,            /* stream-ordered: cudaMallocAsync, pools */
    GL_KIND_MANAGED = 2,         /* cudaMallocManaged, cuMemAllocManaged */
    GL_KIND_HOST_PINNED = 3,     /* cudaMallocHost, cudaHostAlloc, cuMemAllocHost */
    GL_KIND_HOST_REGISTERED = 4, /* cudaHostRegister: pinned, not allocated */
    GL_KIND_ARRAY = 5,           /* CUDA arrays and mipmapped arrays */
    GL_KIND_VIRTUAL = 6,         /* cuMemCreate physical handles */
    GL_KIND_GRAPH = 7,           /* CUDA graph memory nodes, while allocated */
    GL_KIND_IPC = 8,             /* another process's memory mapped here (IPC, pool import,
                                    imported VMM handle mapped) */
    GL_KIND_EXTERNAL = 9,        /* another API's memory (Vulkan, D3D, DMA-BUF) imported as
                                    CUDA external memory, and what is mapped of it */
    GL_KIND_MULTICAST = 10,      /* cuMulticastCreate objects: their size is what can be bound
                                    per device, memory cuMemCreate handles own (kind virtual) */
    GL_KIND_MEMPOOL = 11,        /* a pool made by cuMemPoolCreate, not yet destroyed: its size
                                    is its reserve at the snapshot, memory its allocations
                                    (kinds pool, managed) are counted in */
    GL_KIND_MODULE = 12,         /* a loaded module or library: its size is the device memory
                                    the driver took for it (measured around the load) */
    GL_KIND_COUNT
};

static inline const char *gl_kind_name(unsigned k)
{
    static const char *const names[GL_KIND_COUNT] = {
        "device", "pool", "managed", "host-pinned", "host-registered",
        "array", "virtual", "graph", "ipc", "external", "multicast", "mempool", "module",
    };
    return k < GL_KIND_COUNT ? names[k] : "unknown";
}

/* Kinds that are memory someone else allocated, mapped or imported here:
 * another process's (IPC handles, imported pool pointers, mappings of
 * imported VMM handles) or another API's (external memory).  Reported, live
 * or never released, by site, but not part of this process's device usage --
 * DEVICES counters, PEAK and the usage timeline leave them out. */
static inline int gl_kind_is_mapping(unsigned k) { return k == GL_KIND_IPC || k == GL_KIND_EXTERNAL; }

/* Kinds whose bytes are part of this process's device usage: all but the
 * mappings above, multicast objects, which hold no memory of their own
 * (what is bound to them is counted as the cuMemCreate handles it is), and
 * pool objects, whose reserve their allocations are counted in; counting
 * those would count the same memory twice.  A multicast object is
 * still reported, with its size, when it is never released. */
static inline int gl_kind_in_usage(unsigned k)
{
    return !gl_kind_is_mapping(k) && k != GL_KIND_MULTICAST && k != GL_KIND_MEMPOOL;
}

/* Which API made the allocation.  Append only: values are stored in files. */
#define GL_API_LIST(X)                                                    \
    X(UNKNOWN, "unknown")                                                 \
    X(CUDA_MALLOC, "cudaMalloc")                                          \
    X(CUDA_FREE, "cudaFree")                                              \
    X(CUDA_MALLOC_ASYNC, "cudaMallocAsync")                               \
    X(CUDA_FREE_ASYNC, "cudaFreeAsync")                                   \
    X(CU_MEM_ALLOC, "cuMemAlloc_v2")                                      \
    X(CU_MEM_FREE, "cuMemFree_v2")                                        \
    X(CU_MEM_ALLOC_ASYNC, "cuMemAllocAsync")                              \
    X(CU_MEM_FREE_ASYNC, "cuMemFreeAsync")                                \
    X(CUDA_MALLOC_FROM_POOL_ASYNC, "cudaMallocFromPoolAsync")             \
    X(CUDA_MALLOC_MANAGED, "cudaMallocManaged")                           \
    X(CUDA_MALLOC_PITCH, "cudaMallocPitch")                               \
    X(CUDA_MALLOC_3D, "cudaMalloc3D")                                     \
    X(CUDA_MALLOC_ARRAY, "cudaMallocArray")                               \
    X(CUDA_MALLOC_3D_ARRAY, "cudaMalloc3DArray")                          \
    X(CUDA_MALLOC_MIPMAPPED_ARRAY, "cudaMallocMipmappedArray")            \
    X(CUDA_MALLOC_HOST, "cudaMallocHost")                                 \
    X(CUDA_HOST_ALLOC, "cudaHostAlloc")                                   \
    X(CUDA_HOST_REGISTER, "cudaHostRegister")                             \
    X(CU_MEM_ALLOC_PITCH, "cuMemAllocPitch_v2")                           \
    X(CU_MEM_ALLOC_MANAGED, "cuMemAllocManaged")                          \
    X(CU_MEM_ALLOC_HOST, "cuMemAllocHost_v2")                             \
    X(CU_MEM_HOST_ALLOC, "cuMemHostAlloc")                                \
    X(CU_MEM_HOST_REGISTER, "cuMemHostRegister_v2")                       \
    X(CU_MEM_ALLOC_FROM_POOL_ASYNC, "cuMemAllocFromPoolAsync")            \
    X(CU_ARRAY_CREATE, "cuArrayCreate_v2")                                \
    X(CU_ARRAY_3D_CREATE, "cuArray3DCreate_v2")                           \
    X(CU_MIPMAPPED_ARRAY_CREATE, "cuMipmappedArrayCreate")                \
    X(CU_MEM_CREATE, "cuMemCreate")                                      \
    X(CUDA_MALLOC_ASYNC_PTSZ, "cudaMallocAsync_ptsz")                     \
    X(CUDA_MALLOC_FROM_POOL_ASYNC_PTSZ, "cudaMallocFromPoolAsync_ptsz")   \
    X(CU_MEM_ALLOC_ASYNC_PTSZ, "cuMemAllocAsync_ptsz")                    \
    X(CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ, "cuMemAllocFromPoolAsync_ptsz")   \
    X(CUDA_GRAPH_ADD_MEM_ALLOC_NODE, "cudaGraphAddMemAllocNode")         \
    X(CU_GRAPH_ADD_MEM_ALLOC_NODE, "cuGraphAddMemAllocNode")             \
    X(CUDA_IPC_OPEN_MEM_HANDLE, "cudaIpcOpenMemHandle")                  \
    X(CU_IPC_OPEN_MEM_HANDLE, "cuIpcOpenMemHandle_v2")                   \
    X(CUDA_MEM_POOL_IMPORT_POINTER, "cudaMemPoolImportPointer")          \
    X(CU_MEM_POOL_IMPORT_POINTER, "cuMemPoolImportPointer")            \
    X(CU_GRAPH_ADD_NODE, "cuGraphAddNode")                               \
    X(CU_GRAPH_ADD_NODE_V2, "cuGraphAddNode_v2")                         \
    X(CU_MEM_MAP, "cuMemMap") /* an imported VMM handle mapped (kind ipc) */ \
    X(CUDA_IMPORT_EXTERNAL_MEMORY, "cudaImportExternalMemory")           \
    X(CU_IMPORT_EXTERNAL_MEMORY, "cuImportExternalMemory")               \
    X(CUDA_EXTERNAL_MEMORY_GET_MAPPED_BUFFER, "cudaExternalMemoryGetMappedBuffer") \
    X(CU_EXTERNAL_MEMORY_GET_MAPPED_BUFFER, "cuExternalMemoryGetMappedBuffer")     \
    X(CUDA_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY, "cudaExternalMemoryGetMappedMipmappedArray") \
    X(CU_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY, "cuExternalMemoryGetMappedMipmappedArray") \
    X(CUDA_FREE_HOST, "cudaFreeHost") /* frees, named in BAD_FREES */       \
    X(CUDA_HOST_UNREGISTER, "cudaHostUnregister")                        \
    X(CUDA_FREE_ARRAY, "cudaFreeArray")                                  \
    X(CUDA_FREE_MIPMAPPED_ARRAY, "cudaFreeMipmappedArray")               \
    X(CUDA_FREE_ASYNC_PTSZ, "cudaFreeAsync_ptsz")                        \
    X(CUDA_IPC_CLOSE_MEM_HANDLE, "cudaIpcCloseMemHandle")                \
    X(CUDA_DESTROY_EXTERNAL_MEMORY, "cudaDestroyExternalMemory")         \
    X(CU_MEM_FREE_HOST, "cuMemFreeHost")                                 \
    X(CU_MEM_HOST_UNREGISTER, "cuMemHostUnregister")                     \
    X(CU_ARRAY_DESTROY, "cuArrayDestroy")                                \
    X(CU_MIPMAPPED_ARRAY_DESTROY, "cuMipmappedArrayDestroy")             \
    X(CU_MEM_FREE_ASYNC_PTSZ, "cuMemFreeAsync_ptsz")                     \
    X(CU_IPC_CLOSE_MEM_HANDLE, "cuIpcCloseMemHandle")                    \
    X(CU_DESTROY_EXTERNAL_MEMORY, "cuDestroyExternalMemory")             \
    X(CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE, "cuMemImportFromShareableHandle") /* kind ipc, size 0 */ \
    X(CUDA_DEVICE_RESET, "cudaDeviceReset") /* teardowns, named in TEARDOWN */ \
    X(CU_DEVICE_PRIMARY_CTX_RESET, "cuDevicePrimaryCtxReset_v2")          \
    X(CU_CTX_DESTROY, "cuCtxDestroy_v2")                                     \
    X(CU_DEVICE_PRIMARY_CTX_RELEASE, "cuDevicePrimaryCtxRelease_v2") /* its last reference */ \
    X(CU_DEVICE_PRIMARY_CTX_RESET_V1, "cuDevicePrimaryCtxReset") /* the pre-11.0 ABIs, */ \
    X(CU_DEVICE_PRIMARY_CTX_RELEASE_V1, "cuDevicePrimaryCtxRelease") /* what runtimes ask */ \
    X(CU_CTX_DETACH, "cuCtxDetach") /* its last usage */                   \
    X(CU_MULTICAST_CREATE, "cuMulticastCreate") /* kind multicast */         \
    X(CU_MEM_POOL_CREATE, "cuMemPoolCreate") /* kind mempool */            \
    X(CU_MODULE_LOAD, "cuModuleLoad") /* kind module, */                   \
    X(CU_MODULE_LOAD_DATA, "cuModuleLoadData") /* their loads ... */       \
    X(CU_MODULE_LOAD_DATA_EX, "cuModuleLoadDataEx")                         \
    X(CU_MODULE_LOAD_FAT_BINARY, "cuModuleLoadFatBinary")                   \
    X(CU_LIBRARY_LOAD_DATA, "cuLibraryLoadData")                            \
    X(CU_LIBRARY_LOAD_FROM_FILE, "cuLibraryLoadFromFile")                   \
    X(CU_MODULE_UNLOAD, "cuModuleUnload") /* ... and unloads */            \
    X(CU_LIBRARY_UNLOAD, "cuLibraryUnload")                                 \
    X(CU_GREEN_CTX_DESTROY, "cuGreenCtxDestroy") /* a teardown: the primary context's last release */ \
    X(CU_CTX_DESTROY_V1, "cuCtxDestroy") /* the pre-4.0 ABI: by bare name, or below 4000 */ \
    X(CU_IPC_OPEN_MEM_HANDLE_V1, "cuIpcOpenMemHandle") /* kind ipc: the pre-11.0 ABI */

enum gl_api {
#define GL_API_ENUM(id, name) GL_API_##id,
    GL_API_LIST(GL_API_ENUM)
#undef GL_API_ENUM
    GL_API_COUNT
};

static inline const char *gl_api_name(unsigned a)
{
    static const char *const names[GL_API_COUNT] = {
#define GL_API_NAME(id, name) name,
        GL_API_LIST(GL_API_NAME)
#undef GL_API_NAME
    };
    return a < GL_API_COUNT ? names[a] : "unknown";
}

#endif
