/* Every mutex of libgpuleak, once, with its rank (issue 22; the model is
 * jemalloc's witness).  A thread may take a lock only when its rank is above
 * the rank of every lock of ours it holds: ranks are the order the code nests
 * them in (read from the code, outermost first), so two threads can never
 * wait for each other in a circle.  Locks of equal rank are never held
 * together, except those of one class whose rule is ORDERED, which may be,
 * in ascending key only (the lanes, taken all at once by the exclusive
 * section in list order).
 *
 * Sanitizer builds (-DGL_LOCK_CHECK, set by the Makefile when SAN is) check
 * every lock taken against this list (base/lock.c) and abort on the first
 * lock taken out of order; docs/reliability.md's lock table is generated from
 * it (scripts/lock-doc.py, tests/t_lock_doc.sh).  A new lock goes here first:
 * its rank is the place it takes in the nesting (what it is taken inside of,
 * what is taken inside it), and its declaration names its class
 * (GL_LOCK_INIT(CLASS), base/lock.h).
 *
 * X(CLASS, rank, rule, name, file, protects, taken by, nesting)
 *   rule: ONE        one lock of this class at a time, none of equal rank
 *         ORDERED    several of this class at once, in ascending key
 *                    (gl_lock_init's key); none of another class of its rank
 *         RECURSIVE  the holder may take it again while it is the last lock
 *                    it took (a pthread recursive mutex)
 * Leaves (rank 100) take nothing of ours inside, so no two are ever nested:
 * they share the highest rank, and the check holds them to it. */
#ifndef GL_LOCK_RANK_H
#define GL_LOCK_RANK_H

#define GL_LOCK_LIST(X)                                                                                         \
    X(TICK, 5, ONE, "tick_lock", "control/watch.c", "one live-view and metrics tick at a time",                \
      "the trigger thread's tick; fork's prepare handler, first (a child never copies a tick in progress)",    \
      "outermost: held across the tick's exclusive section and loader walk")                                   \
    X(SNAP, 10, ONE, "snap_lock", "control/snapshot.c", "one snapshot at a time, the `%n` counter",             \
      "`gl_snapshot_write_with`: `gpuleak_snapshot`, the writer thread (signal, periodic), the failing "        \
      "thread (out-of-memory), the fatal thread (fatal signal), the final snapshot at exit",                    \
      "outermost: held across the whole snapshot (the exclusive section, the loader walk, the leaves' copies)," \
      " never while asking the driver or PyTorch")                                                              \
    X(GRAPH, 20, ONE, "graph_lock", "cuda/graph.c", "graph allocation nodes, executable graphs' allocations",   \
      "graph hooks: node added, instantiate, launch, destroy",                                                  \
      "held across tracking a launch's allocations and frees (stack capture, lanes); never with `ipc_lock`")    \
    X(IPC, 20, ONE, "ipc_lock", "cuda/ipc.c", "IPC opens counted per address", "IPC open and close hooks",      \
      "held across tracking the opened memory (stack capture, lanes, a shard); never with `graph_lock`")        \
    X(PY_DETECT, 30, ONE, "detect_lock", "capture/pyframes.c", "one Python detection at a time",                \
      "`gl_py_detect`: activation, a stack capture (at most once a second until found)",                        \
      "inside a stack capture (so inside `graph_lock`, `ipc_lock`); takes the loader walk")                     \
    X(UNWIND, 35, ONE, "unwind_lock", "capture/stack_cache.c",                                                 \
      "libunwind's generic address space and its per-IP rules: one recording walk at a time",                  \
      "a stack capture that misses the stack cache and has credit to record; fork's prepare handler, after `tick_lock`",    \
      "inside `graph_lock`, `ipc_lock` (a capture); takes nothing of ours (libunwind's lock and the loader's "  \
      "inside)")                                                                                                \
    X(WALK, 40, RECURSIVE, "walk_lock", "base/modules.c", "no walk of the loader's list of ours at fork",       \
      "`gl_loader_walk` (module collection, resolve.c's searches, Python detection); fork's prepare handler "  \
      "third",                                                                                                  \
      "recursive: a walk's callback may walk again; before `writer_mutex` at fork; never held while entering "  \
      "the exclusive section")                                                                                  \
    X(WRITER, 50, ONE, "writer_mutex", "state/lanes.c", "one exclusive section at a time",                      \
      "`gl_exclusive_enter`: a snapshot's copy, a context teardown, fork, an allocation that may set a new "    \
      "peak while lanes hold credit; a lane entered while a writer waits (taken and released at once); "      \
      "a merge of the lanes' events (`gl_events_merge`, state/events.c), by a thread out of its lane",         \
      "outermost of the tracking state")                                                                        \
    X(REGISTRY, 60, ONE, "registry_lock", "state/lanes.c", "the list of lanes and who owns each",               \
      "a thread's first event, thread exit (`lane_retire`), the exclusive section",                             \
      "inside `writer_mutex`; lanes inside it")                                                                 \
    X(LANE, 70, ORDERED, "lane", "state/lanes.c",                                                               \
      "the thread's in-progress event and its local accounting (credit, per-site net change)",                  \
      "every mutation, by its own thread only; the exclusive section takes all, in list order; a merge "        \
      "(inside `writer_mutex`) one at a time",                 \
      "one per thread and a shared fallback; several only in ascending key: a new lane gets a key below every " \
      "other and goes first in the list, the fallback (last) has the highest")                                  \
    X(DEVICE, 80, ONE, "device", "state/account.c", "one device's counters, peak sites, credit handed out",     \
      "an event that does not fit the lane's credit, a flush", "inside a lane; a shard inside it (an "          \
      "allocation accounted under the device lock)")                                                            \
    X(SHARD, 90, ONE, "shard", "state/track.c", "one of the 64 shards of the live table",                       \
      "mutations, inside the lane; a kind lookup alone; a snapshot's sizing, one at a time; a merge "          \
      "numbering records (inside `writer_mutex`, or the exclusive section)",                    \
      "inside a lane, a device lock, `ipc_lock`")                                                               \
    X(STACKS, 100, ONE, "stacks_lock", "state/stack_table.c", "the interned-stack table",                       \
      "`gl_stack_intern`; a snapshot's copy (in the exclusive section); fork's prepare handler, last", "leaf")  \
    X(VMM, 100, ONE, "vmm_lock", "cuda/vmm.c", "VMM reservations, mappings, handles",                           \
      "VMM hooks, a snapshot's copy", "leaf")                                                                   \
    X(POOLS, 100, ONE, "pools_lock", "cuda/pools.c", "the list of memory pools seen",                           \
      "pool hooks, an allocation from a default or graph pool", "leaf")                                         \
    X(POOL_KINDS, 100, ONE, "pool kinds", "cuda/pool_kinds.c", "which pools hold managed memory",               \
      "pool create and destroy hooks, a pool allocation", "leaf")                                               \
    X(LABELS, 100, ONE, "labels_lock", "state/history.c", "annotation labels", "`gpuleak_annotate`, snapshot",  \
      "leaf")                                                                                                   \
    X(BAD_FREE, 100, ONE, "bad-free table", "state/bad_free.c", "frees of unknown addresses, per site",         \
      "a free of an unknown address, a snapshot's copy", "leaf")                                                \
    X(TEARDOWN, 100, ONE, "teardown table", "state/teardown.c", "allocations dropped by a context teardown",    \
      "a context teardown (in the exclusive section), a snapshot's copy", "leaf")                               \
    X(PY_FRAMES, 100, ONE, "frames_lock", "capture/pyframes.c", "the interned Python frames",                   \
      "stack capture, a snapshot's frame table", "leaf")                                                        \
    X(RESOLVED, 100, ONE, "resolved_lock", "resolve/resolve.c", "the list of resolved real functions",          \
      "`gl_resolve_slow`, `gl_resolve_scoped`, the `dlclose` hook", "leaf")                                     \
    X(SCOPES, 100, ONE, "scopes_lock", "resolve/resolve.c", "the per-caller scopes",                            \
      "`gl_resolve_scoped`, a caller's first resolution", "leaf")                                               \
    X(RESTART, 100, ONE, "restart_lock", "control/trigger.c", "one start of the writer thread at a time",       \
      "`gl_trigger_check` (every hook's activation check, when the writer is not running)", "leaf")             \
    X(JOB, 100, ONE, "one_job", "base/worker.c", "one job for the writer thread at a time",                     \
      "`gl_worker_run_job`: the first allocation (the writer's warm-up), the driver's view at exit; held "      \
      "while the writer thread runs the job (which takes its locks on that thread)", "leaf")

#endif
