/* The fields of every fixed-size part of a snapshot file, listed ONCE, in
 * file order.  Everything that reads or writes the bytes is expanded from
 * these lists: the interposer's writer and the reporter's reader
 * (snapshot_codec.h), the test generator and the field patcher
 * (tests/report/snapgen.c, snapfields.c) and the field tables of
 * docs/snapshot-format.md (scripts/format-doc.py, checked by
 * tests/t_format_doc.sh).  So adding a field to an entry is one line here,
 * plus the line in the writer that gives it a value.
 *
 * Each list GL_FIELDS_<PART>(F, R) calls
 *   F(type, name, meaning)  for a field, or
 *   R(type, name, meaning)  for a reserved field: written as 0, ignored
 * where type is u16, u32, u64, i32 (little-endian) or b8 (8 raw bytes), and
 * meaning is the text of the docs table (empty: the name says it all).
 * Offsets are not written anywhere: they are the sums of the widths before
 * the field, and snapshot_codec.h asserts that each list adds up to the size
 * snapshot_format.h gives its part (GL_*_ENTRY_SIZE, GL_*_FIXED_SIZE), the
 * size the file format promises.
 *
 * Names are those of the reader's structs (report/snap_read.h declares its
 * members from these lists), which is why POOLS' byte counts are "reserved"
 * and "used" and its padding is "pad".  Entries may only ever be appended
 * to: readers accept entries longer than they know and ignore the tail, and
 * entries down to their minimum size (GL_ENTRY_MIN_<PART>, below) with the
 * fields appended since read as 0.  So a new field of an array entry goes
 * at the end of its list, and a zero in it must mean "not known". */
#ifndef GPULEAK_SNAPSHOT_FIELDS_H
#define GPULEAK_SNAPSHOT_FIELDS_H

#include "snapshot_format.h"

/* ---- the frame of the file -------------------------------------------- */

#define GL_FIELDS_FILE_HEADER(F, R)                                            \
    F(b8, magic, "`GPULEAK\\x1a`")                                             \
    F(u32, version, "1")                                                       \
    F(u32, flags, "0; a reader refuses any other value")

#define GL_FIELDS_RECORD_HEADER(F, R)                                          \
    F(u32, type, "`enum gl_record_type`; unknown types are skipped")           \
    F(u32, count, "entries, for array records; 1 otherwise")                  \
    F(u64, length, "payload bytes that follow the header")

#define GL_FIELDS_END(F, R)                                                    \
    F(u64, records, "records before END, PROCESS and unknown types included")  \
    F(u64, offset, "file offset of the END record's header")
#define GL_TAIL_END ""

/* ---- records with a fixed part and a variable tail -------------------- */

/* str = u32 length + that many bytes, no terminator (GL_SNAP_MAX_STRING). */
#define GL_FIELDS_PROCESS(F, R)                                                \
    F(u32, pid, "")                                                            \
    F(u32, ppid, "")                                                           \
    F(u32, rank, "from `RANK`, `OMPI_COMM_WORLD_RANK`, `PMIX_RANK`, `PMI_RANK`, `SLURM_PROCID`, `LOCAL_RANK` (the first set), else 0") \
    F(u32, reason, "0 exit, 1 signal, 2 out-of-memory, 3 request (`gpuleak_snapshot`), 4 fatal signal, 5 periodic (`GPULEAK_INTERVAL`), 6 detach (`gpuleak detach`), 7 exec (written before an `exec`; not final: a failed exec goes on)") \
    F(u64, index, "the snapshot's number, the `%n` of the file name: 0, 1, 2... within the process") \
    F(u64, start_unix_ns, "wall-clock time the library was loaded")           \
    F(u64, snapshot_unix_ns, "wall-clock time of the snapshot")               \
    F(u64, snapshot_mono_ns, "monotonic ns from load to snapshot, stamped once the state is copied: after every event, peak and allocation the snapshot holds (its own SNAPSHOT event included)") \
    F(u32, flags, "bit 0: FINAL (written at exit); bit 1: NO_RANK (no rank variable set: `rank` is 0 by default)")                            \
    F(u32, depth_limit, "`GPULEAK_DEPTH` in force")
#define GL_TAIL_PROCESS "str host, str exe, u32 argc, argc × str argv"

#define GL_FIELDS_MODULE(F, R)                                                 \
    F(u64, load_bias, "the dynamic loader's `dlpi_addr`; a pc's address in the file is `pc - load_bias`") \
    F(u64, start, "lowest address of its `PT_LOAD` segments, bias applied")   \
    F(u64, end, "highest address (exclusive); a pc belongs to the module whose `[start, end)` holds it") \
    F(u32, build_id_len, "bytes of GNU build-id that follow, up to 64, possibly 0")
#define GL_TAIL_MODULE "build_id_len bytes of build-id, str path"

#define GL_FIELDS_STACK(F, R)                                                  \
    F(u32, id, "from 1; id 0 means \"no stack captured\" and is never defined") \
    F(u32, depth, "pcs that follow, at most 1024")
#define GL_TAIL_STACK "depth × u64 pc, innermost first"

#define GL_FIELDS_PYFRAME(F, R)                                                \
    F(u32, id, "from 1; a pc `0xffffffff` followed by this id in its low 32 bits stands for it") \
    F(u32, line, "1-based line; 0 when unknown")
#define GL_TAIL_PYFRAME "str file (as in `co_filename`), str function (the qualified name)"

#define GL_FIELDS_LABEL(F, R)                                                  \
    F(u32, id, "what an ANNOTATION event's ptr holds")
#define GL_TAIL_LABEL "str label"

#define GL_FIELDS_ENV(F, R)                                                    \
    F(u32, count, "strings that follow, at most 64")
#define GL_TAIL_ENV "count × str \"NAME=value\""

#define GL_FIELDS_TORCH(F, R)                                                  \
    F(u32, status, "1 answered, 2 no answer in time (Python's main thread ran no bytecode within 2 s: blocked in C), 3 `_snapshot()` raised") \
    F(u32, segments, "segments PyTorch's allocator holds (all devices)")     \
    F(u64, reserved_bytes, "their `total_size`, summed: `torch.cuda.memory_reserved()` over every device") \
    F(u64, allocated_bytes, "the sizes of its `active_allocated` blocks, summed: `torch.cuda.memory_allocated()` over every device") \
    F(u64, blocks, "TORCH_BLOCKS entries that follow")                          \
    F(u64, age_us, "0: asked for this snapshot; else the last view PyTorch gave, taken this many microseconds before it (exit, fatal-signal and follow-up snapshots, which cannot ask; added in 2026-12, absent from older files: read as 0)") \
    F(u64, max_allocated_bytes, "`torch.cuda.max_memory_allocated()` summed over the devices, asked with the view; 0 when not known (records of 40 bytes, written before it existed)") \
    F(u64, max_reserved_bytes, "`torch.cuda.max_memory_reserved()` summed over the devices; 0 when not known")
#define GL_TAIL_TORCH ""

#define GL_FIELDS_TORCH_STEP(F, R)                                             \
    F(u64, step, "the step's number: optimizer steps (`optimizer.step()` of any optimizer) and time windows seen in the process, from 1") \
    F(u64, time_ns, "ns since the library was loaded, when the step ended")  \
    F(u64, allocated, "`torch.cuda.memory_allocated()` then, summed over the devices") \
    F(u64, reserved, "`torch.cuda.memory_reserved()` then, summed over the devices") \
    F(u32, flags, "bit 0: the lines that follow are known (PyTorch's recorder was on: `_snapshot()`'s live blocks by their first Python frame outside torch; else allocated and reserved only); bit 1: a time window's view (`GPULEAK_STEP_INTERVAL`), not an optimizer step; bit 2: recorded: PyTorch's recorder was on from the previous step's end to this one's (its tensors have lines); bit 3: sampled: the lines are from gpuleak's sampled recorder (`GPULEAK_STEP_LINES_EVERY`), the tensors made in the sampled steps only (bits 2 and 3 since 2026-12)") \
    F(u32, lines, "tail entries that follow, at most 16: the lines with the most live bytes")
#define GL_TAIL_TORCH_STEP "lines × (u64 bytes, u64 count, u32 line, str file, str function): live tensor bytes and tensors per Python line; then (since 2026-12) `u64 recorded_steps`, `u32 lines_every`, `u32` 0"

#define GL_FIELDS_TORCH_SETTINGS(F, R)                                         \
    F(u32, count, "strings that follow, at most 64")
#define GL_TAIL_TORCH_SETTINGS "count × str \"key=value\": `_snapshot()[\"allocator_settings\"]`, each value as Python's `str()` of it"

#define GL_FIELDS_TORCH_OOM(F, R)                                              \
    F(i32, device, "the device PyTorch could not allocate on")                \
    R(u32, reserved, "")                                                       \
    F(u64, request, "the bytes PyTorch asked CUDA for: the tensor's size rounded to PyTorch's block size, or the whole segment it makes for a tensor under 10 MiB (2 MiB up to 1 MiB, else 20 MiB)") \
    F(u64, allowed, "the memory PyTorch may use on the device: its total memory, or the limit `torch.cuda.set_per_process_memory_fraction` set (below the driver's total)") \
    F(u64, free, "the driver's free memory then (`cudaMemGetInfo`), after PyTorch freed its cache")
#define GL_TAIL_TORCH_OOM ""

/* ---- array entries ---------------------------------------------------- */

#define GL_FIELDS_ALLOCS(F, R)                                                 \
    F(u64, ptr, "device pointer (or handle, for arrays and VMM)")            \
    F(u64, size, "bytes requested")                                            \
    F(u64, seq, "global sequence number of the allocation, from 1")          \
    F(u64, time_ns, "ns since the library was loaded")                        \
    F(u64, stream, "stream handle for stream-ordered calls, else 0")          \
    F(u32, stack_id, "")                                                       \
    F(i32, device, "device ordinal; -1 for host memory")                      \
    F(u16, kind, "0 device, 1 pool, 2 managed, 3 host-pinned, 4 host-registered, 5 array, 6 virtual, 7 graph (a CUDA graph allocation, live from the launch that reached its node to its free; stream: the launch's; stack and api: where the node was created), 8 ipc (another process's memory mapped here: an IPC handle or an imported pool pointer, size from the driver; or a `cuMemMap` of an imported VMM handle, api `cuMemMap`, size from the call, ptr the mapped address; or an imported VMM handle not yet released, api `cuMemImportFromShareableHandle`, ptr the handle, size 0: the import does not say it), 9 external (another API's memory: an imported external memory object, ptr its handle, or a buffer or mipmapped array mapped from one, ptr its address or array handle; size from the call), 10 multicast (a `cuMulticastCreate` object not yet gone: ptr its handle, size what can be bound to it per device, device the creating context's; it lives by references and mappings like a `cuMemCreate` handle), 11 mempool (a pool made by `cuMemPoolCreate`, not yet destroyed: ptr the pool handle, size its idle reserve (its POOLS entry's reserved minus used, `CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT` - `USED_MEM_CURRENT`) when the snapshot was written, 0 where it has none: its live allocations are entries of their own; device its location's, -1 for a host pool), 12 module (a module or library still loaded: ptr its `CUmodule`/`CUlibrary` handle, size the device memory the driver took for it, measured as the drop of `cuMemGetInfo`'s free memory across the load (0 when it did not drop, e.g. a library loaded lazily), device the current context's)") \
    F(u16, api, "index into `GL_API_LIST` (1 cudaMalloc, 3 cudaMallocAsync, 5 cuMemAlloc_v2, ..., 41 cuMemMap, 42 cudaImportExternalMemory, 43 cuImportExternalMemory, 44 cudaExternalMemoryGetMappedBuffer, 45 cuExternalMemoryGetMappedBuffer, 46 cudaExternalMemoryGetMappedMipmappedArray, 47 cuExternalMemoryGetMappedMipmappedArray, 62 cuMemImportFromShareableHandle, 70 cuMulticastCreate, 71 cuMemPoolCreate, 72 cuModuleLoad, 73 cuModuleLoadData, 74 cuModuleLoadDataEx, 75 cuModuleLoadFatBinary, 76 cuLibraryLoadData, 77 cuLibraryLoadFromFile; 78 and 79 the unloads, in EVENTS); values are only ever appended, so a reader that does not know one names it `unknown`") \
    R(u32, tid, "")

#define GL_FIELDS_DEVICES(F, R)                                                \
    F(i32, device, "-1: host")                                                 \
    R(u32, reserved, "")                                                       \
    F(u64, live_bytes, "")                                                     \
    F(u64, live_count, "")                                                     \
    F(u64, peak_bytes, "the highest live_bytes ever reached")                 \
    F(u64, peak_seq, "sequence number of the allocation that reached it")     \
    F(u64, peak_time_ns, "")                                                   \
    F(u64, alloc_count, "successful allocations")                             \
    F(u64, free_count, "frees of known allocations")                          \
    F(u64, alloc_bytes_total, "")                                              \
    F(u64, failed_count, "allocations that failed with out-of-memory")        \
    F(u64, unknown_free_count, "frees of pointers gpuleak did not know (bogus or double frees)") \
    F(u64, mem_free, "the driver's view at snapshot time (through the device's primary context); 0 when not known. A snapshot at exit carries the view sampled when `exit()` began (before the CUDA libraries tear down; `atexit` handlers registered after the program's first CUDA allocation had run, those registered before it had not), or none if the driver did not answer within 1 s; a snapshot on a fatal signal never calls into CUDA") \
    F(u64, mem_total, "the same view's total memory; 0 when not known")       \
    F(u64, ctx_used_at_create, "the driver's used memory (total - free) on this device when its primary context was last created, asked in it right after the retain that created it, before the program could allocate: the context's own memory plus what other processes held then; 0 when not measured. Absent in entries of 104 bytes (written before it existed): not measured") \
    F(u32, ctx_creations, "how many creations of the primary context were measured (a reset and a new retain is one more); 0: none") \
    R(u32, pad, "")                                                            \
    F(u64, before_attach_used, "`gpuleak attach`: the driver's used memory (total - free) on this device at the attach, all of it made before (docs/attach.md); 0 when the process was not attached to, or the device not measured. Absent in entries of 120 bytes or less: 0") \
    F(u64, before_attach_freed, "bytes of memory made before the attach seen freed since (their size asked of the driver before the free)") \
    F(u64, before_attach_frees, "frees of memory made before the attach: addresses gpuleak never saw allocated, freed by CUDA without error in an attached process (not bad frees)") \
    F(u64, before_attach_torch_bytes, "of `before_attach_used`: the bytes of PyTorch's segments on this device made before the attach (reserved by its caching allocator then), as PyTorch listed them when the attach asked it (`torch.cuda.memory._snapshot()`, docs/attach.md); 0 when none or not known. Absent in entries of 144 bytes or less: 0") \
    F(u64, before_attach_torch_freed, "of `before_attach_freed`: the bytes of those segments seen freed since (`torch.cuda.memory.empty_cache()`)") \
    F(u32, before_attach_torch_segments, "how many segments `before_attach_torch_bytes` is") \
    F(u32, before_attach_torch_frees, "of `before_attach_frees`: frees (or unmaps) of those segments") \
    F(u32, before_attach_torch_status, "whether PyTorch was asked at the attach: 0 not (no PyTorch in the process, or not attached), 1 it answered, 2 it has not answered yet (Python's main thread ran no bytecode since: asked again when it does)") \
    R(u32, pad2, "")

#define GL_FIELDS_PEAK(F, R)                                                   \
    F(i32, device, "")                                                         \
    F(u32, stack_id, "")                                                       \
    F(u64, bytes, "live bytes of this stack on this device when the device's peak was reached") \
    F(u64, count, "live allocations of this stack then")

#define GL_FIELDS_EVENTS(F, R)                                                 \
    F(u64, seq, "sequence number (allocations and frees share the numbering with ALLOCS.seq)") \
    F(u64, time_ns, "ns since the library was loaded")                        \
    F(u64, ptr, "the pointer or handle; for ANNOTATION, the LABEL id")       \
    F(u64, size, "bytes; for OOM the requested size; for SNAPSHOT the snapshot index") \
    F(u64, stream, "stream of stream-ordered calls")                          \
    F(u32, stack_id, "the allocation's")                                       \
    F(i32, device, "")                                                         \
    F(u16, type, "1 alloc, 2 free, 3 oom, 4 snapshot, 5 annotation")          \
    F(u16, kind, "as in ALLOCS")                                               \
    F(u16, api, "as in ALLOCS")                                                \
    R(u16, reserved, "")                                                       \
    F(u64, mem_free, "OOM events: the driver's free memory at that moment (0 if unknown); FREE events: the free's own stack id, when the process ran with `GPULEAK_FREE_STACKS=1` (0 otherwise; at most 2^32-1, and a defined STACK; `stack_id` is the allocation's)") \
    F(u64, mem_total, "OOM events: the device's total memory (0 if unknown)")

#define GL_FIELDS_POOLS(F, R)                                                  \
    F(u64, handle, "the pool; `0xffffffffffffffff` (`GL_POOL_GRAPH_MEM`): the device's graph memory pool") \
    F(i32, device, "")                                                         \
    R(u32, pad, "")                                                            \
    F(u64, reserved, "bytes the pool reserves (`CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`)") \
    F(u64, used, "bytes its allocations use (`USED_MEM_CURRENT`)")            \
    F(u64, reserved_high, "high-water mark of reserved")                      \
    F(u64, used_high, "high-water mark of used")

#define GL_FIELDS_VMM(F, R)                                                    \
    F(u64, va, "start of the range")                                           \
    F(u64, size, "")                                                           \
    F(u64, handle, "the physical handle mapped; 0 for a reservation")         \
    F(u16, type, "1 reservation (`cuMemAddressReserve`), 2 mapping")          \
    R(u16, reserved, "")                                                       \
    F(i32, device, "a mapping's handle's (for a handle imported from another process, the one the driver reported at import); -1 when unknown")

#define GL_FIELDS_BAD_FREES(F, R)                                              \
    F(u64, ptr, "the address or handle of the first such free")              \
    F(u64, count, "how many frees of this kind (never 0)")                    \
    F(u64, time_ns, "when the first happened (since tracking started)")       \
    F(u32, stack_id, "the free's stack (0: none captured)")                   \
    F(i32, device, "the current device of the freeing thread")                \
    F(u16, api, "the free function (`cudaFree`, `cuMemFree_v2`, `cudaFreeHost`, `cudaFreeArray`, `cuIpcCloseMemHandle`, `cudaDestroyExternalMemory`, ...; the values from 48 on in `GL_API_LIST`)") \
    F(u16, flags, "1 = CUDA refused the free too (a double free, a pointer never allocated, or not the start of an allocation); 0 = CUDA accepted it (memory allocated where gpuleak could not see it)") \
    R(u32, reserved, "")

#define GL_FIELDS_CALLS(F, R)                                                  \
    F(u32, stack_id, "")                                                       \
    F(u16, api, "of the latest allocation")                                    \
    F(u16, kind, "of the latest allocation")                                   \
    F(u64, allocs, "successful allocations, imports, mappings and graph allocations made with this stack (never 0)") \
    F(u64, frees, "how many of those were freed")                             \
    F(u64, bytes, "bytes made in all")

#define GL_FIELDS_TEARDOWN(F, R)                                               \
    F(u64, bytes, "the allocations' sizes, summed (saturating)")              \
    F(u64, count, "how many allocations (never 0)")                           \
    F(u64, time_ns, "the first such teardown (since tracking started)")       \
    F(u32, stack_id, "the allocation's stack (0: none captured)")             \
    F(i32, device, "")                                                         \
    F(u16, kind, "as in ALLOCS")                                               \
    F(u16, api, "the allocation's")                                            \
    F(u16, teardown, "the call that released them (`cudaDeviceReset`, `cuDevicePrimaryCtxReset_v2`, `cuCtxDestroy_v2`, `cuDevicePrimaryCtxRelease_v2` (the last reference), and after them the v1 `cuDevicePrimaryCtxReset`, `cuDevicePrimaryCtxRelease`, `cuCtxDetach` (the last usage), `cuGreenCtxDestroy` (the primary context's last reference was the green context's) and the pre-4.0 `cuCtxDestroy`; values from 63 on in `GL_API_LIST`)") \
    R(u16, reserved, "")

#define GL_FIELDS_TORCH_BLOCKS(F, R)                                           \
    F(u64, segment, "the segment's address: an ALLOCS ptr when gpuleak saw its `cudaMalloc`") \
    F(u64, address, "the block's address, inside the segment")               \
    F(u64, size, "the block's size (rounded by the allocator)")              \
    F(u64, requested_size, "what the tensor asked for")                      \
    F(u32, stack_id, "a STACK of Python frames only, the allocation's; 0 when PyTorch recorded none") \
    F(i32, device, "")                                                         \
    F(u16, state, "1 `active_allocated`, 2 `active_pending_free`, 3 `inactive` (cached), 0 anything else") \
    F(u16, flags, "bit 0: the block's segment was made before `gpuleak attach` (PyTorch listed it when the attach asked, and it was not freed since); 0 in older files")                                                       \
    R(u32, reserved2, "")

/* The minimum size of each array entry: its size in the format's first
 * layout (the git history of snapshot_format.h), which an old snapshot may
 * hold.  Never changes once released, unlike GL_*_ENTRY_SIZE; the unit
 * test format_roundtrip checks that each ends at a field of its list, and
 * tests/t_report_old_layout.sh reads snapshots cut down to these sizes. */
#define GL_ENTRY_MIN_ALLOCS 56u
#define GL_ENTRY_MIN_DEVICES GL_DEVICE_ENTRY_MIN_SIZE /* 104 */
#define GL_ENTRY_MIN_PEAK 24u
#define GL_ENTRY_MIN_EVENTS GL_EVENT_ENTRY_MIN_SIZE /* 56 */
#define GL_ENTRY_MIN_POOLS 48u
#define GL_ENTRY_MIN_VMM 32u
#define GL_ENTRY_MIN_BAD_FREES 40u
#define GL_ENTRY_MIN_CALLS 32u
#define GL_ENTRY_MIN_TEARDOWN 40u
#define GL_ENTRY_MIN_TORCH_BLOCKS 48u

#define GL_FIELDS_SAMPLING(F, R)                                               \
    F(u32, mode, "1: stacks sampled by bytes, a per-thread countdown drawn from an exponential distribution (GPULEAK_MODE=light)") \
    F(u32, unsampled_stack_id, "the STACK that every allocation not sampled carries (one frame, 0xfffffffe00000000, no code address); 0 when none was made yet") \
    F(u64, sample_bytes, "the mean bytes between samples, R (GPULEAK_SAMPLE_BYTES): an allocation of s bytes was sampled with probability 1 - exp(-s/R)")
#define GL_TAIL_SAMPLING ""

/* ---- the parts and records -------------------------------------------- */

/* Every list above: X(PART, part, size the format promises). */
#define GL_PART_LIST(X)                                                        \
    X(FILE_HEADER, file_header, GL_SNAP_FILE_HEADER_SIZE)                      \
    X(RECORD_HEADER, record_header, GL_SNAP_RECORD_HEADER_SIZE)                \
    X(PROCESS, process, GL_PROCESS_FIXED_SIZE)                                 \
    X(MODULE, module, GL_MODULE_FIXED_SIZE)                                    \
    X(STACK, stack, GL_STACK_FIXED_SIZE)                                       \
    X(ALLOCS, allocs, GL_ALLOC_ENTRY_SIZE)                                     \
    X(DEVICES, devices, GL_DEVICE_ENTRY_SIZE)                                  \
    X(PEAK, peak, GL_PEAK_ENTRY_SIZE)                                          \
    X(EVENTS, events, GL_EVENT_ENTRY_SIZE)                                     \
    X(POOLS, pools, GL_POOL_ENTRY_SIZE)                                        \
    X(VMM, vmm, GL_VMM_ENTRY_SIZE)                                             \
    X(LABEL, label, GL_LABEL_FIXED_SIZE)                                       \
    X(PYFRAME, pyframe, GL_PYFRAME_FIXED_SIZE)                                 \
    X(ENV, env, GL_ENV_FIXED_SIZE)                                             \
    X(BAD_FREES, bad_frees, GL_BAD_FREE_ENTRY_SIZE)                            \
    X(CALLS, calls, GL_CALLS_ENTRY_SIZE)                                       \
    X(TEARDOWN, teardown, GL_TEARDOWN_ENTRY_SIZE)                              \
    X(TORCH, torch, GL_TORCH_FIXED_SIZE)                                       \
    X(TORCH_BLOCKS, torch_blocks, GL_TORCH_BLOCK_ENTRY_SIZE)                   \
    X(SAMPLING, sampling, GL_SAMPLING_FIXED_SIZE)                              \
    X(TORCH_STEP, torch_step, GL_TORCH_STEP_FIXED_SIZE)                        \
    X(TORCH_SETTINGS, torch_settings, GL_TORCH_SETTINGS_FIXED_SIZE)            \
    X(TORCH_OOM, torch_oom, GL_TORCH_OOM_FIXED_SIZE)                           \
    X(END, end, GL_END_SIZE)

/* Every record type, in type order, for the docs' table of records:
 * X(NAME, how often it occurs, ARRAY (count entries of its fields) or
 * FIXED (its fields, then GL_TAIL_<NAME>), what it holds). */
#define GL_RECORD_LIST(X)                                                      \
    X(PROCESS, "once, first", FIXED, "the process and why the snapshot was taken") \
    X(MODULE, "one per loaded object", FIXED, "module ids are 0, 1, 2... in file order") \
    X(STACK, "one per interned stack", FIXED, "")                              \
    X(ALLOCS, "zero or more", ARRAY, "the live allocations")                  \
    X(DEVICES, "once", ARRAY, "per-device counters")                          \
    X(PEAK, "once", ARRAY, "what each device's peak was made of")             \
    X(EVENTS, "zero or more", ARRAY, "the history, oldest first")             \
    X(POOLS, "zero or more", ARRAY, "memory pools at snapshot time")          \
    X(VMM, "zero or more", ARRAY, "VA reservations and mappings")             \
    X(LABEL, "one per annotation label", FIXED, "")                           \
    X(PYFRAME, "one per interned Python frame", FIXED, "")                    \
    X(ENV, "at most once", FIXED, "the allocator-related environment variables as they were at the process's first tracked allocation (when allocators read their configuration; a script that sets `os.environ[...]` before its first tensor is seen), or when tracking started if nothing was allocated (`PYTORCH_NO_CUDA_MEMORY_CACHING`, `PYTORCH_CUDA_ALLOC_CONF`, `CUDA_VISIBLE_DEVICES`, ...), so the reporter can tell a cache from a leak") \
    X(BAD_FREES, "zero or more", ARRAY, "frees of an address or handle that had no live allocation") \
    X(CALLS, "zero or more", ARRAY, "allocation calls and frees per stack")   \
    X(TEARDOWN, "zero or more", ARRAY, "allocations never freed that a context teardown released") \
    X(TORCH, "at most once", FIXED, "PyTorch's caching allocator, asked through `torch.cuda.memory._snapshot()` (docs/pytorch.md)") \
    X(TORCH_BLOCKS, "zero or more, after TORCH", ARRAY, "that allocator's blocks, with the Python stack of each live one") \
    X(SAMPLING, "at most once", FIXED, "stacks were captured for a sample of the allocations, by bytes (GPULEAK_MODE=light); absent: every allocation's stack was captured") \
    X(TORCH_STEP, "zero or more, oldest first", FIXED, "one view of a PyTorch optimizer step: the first view and the last 64, kept in memory and carried by every snapshot (docs/pytorch.md, \"Steps\")") \
    X(TORCH_SETTINGS, "at most once, after TORCH", FIXED, "PyTorch's allocator settings as it reports them, asked with its view (docs/pytorch.md)") \
    X(TORCH_OOM, "at most once", FIXED, "the out-of-memory PyTorch raised: only in the snapshot taken from PyTorch's out-of-memory observer (docs/pytorch.md)") \
    X(END, "once, last", FIXED, "")

#endif
