# Test and demo programs: built like users build CUDA programs (real CUDA
# headers, -g, frame pointers), linked against fakecuda.  They find fakecuda
# at run time through LD_LIBRARY_PATH (tests/lib.sh, make demo), exactly as a
# real program finds the real libraries.
FC_DIR = $(BUILD)/fakecuda
TPROG_DIR = $(BUILD)/tests
TEST_PROGS = $(TPROG_DIR)/scenarios $(TPROG_DIR)/driver_scenarios $(TPROG_DIR)/demo_train \
	$(TPROG_DIR)/churn $(TPROG_DIR)/peak_threads $(TPROG_DIR)/stack_cache

all: $(TEST_PROGS)

$(TPROG_DIR)/scenarios $(TPROG_DIR)/demo_train $(TPROG_DIR)/churn $(TPROG_DIR)/peak_threads $(TPROG_DIR)/stack_cache: $(TPROG_DIR)/%: tests/programs/%.c $(FC_DIR)/libcudart.so | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $< -L$(FC_DIR) -lcudart

$(TPROG_DIR)/driver_scenarios: tests/programs/driver_scenarios.c $(FC_DIR)/libcuda.so | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcuda

# The interception matrix (tests/t_paths_*.sh): the same runtime code against
# the shared runtime, the static runtime, and as a plugin loaded RTLD_LOCAL;
# the driver families through every way of getting driver entry points.
TEST_PROGS += $(TPROG_DIR)/runtime_kinds $(TPROG_DIR)/runtime_kinds_static $(TPROG_DIR)/runtime_kinds_ptds \
	$(TPROG_DIR)/runtime_kinds_plugin.so $(TPROG_DIR)/plugin_host $(TPROG_DIR)/driver_paths
all: $(TEST_PROGS)

$(TPROG_DIR)/runtime_kinds: tests/programs/runtime_kinds.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart

$(TPROG_DIR)/runtime_kinds_ptds: tests/programs/runtime_kinds.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -DCUDA_API_PER_THREAD_DEFAULT_STREAM -o $@ $< -L$(FC_DIR) -lcudart

$(TPROG_DIR)/runtime_kinds_static: tests/programs/runtime_kinds.c $(FAKECUDA_STATIC_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(FC_DIR)/libcudart_static.a -ldl -lpthread

$(TPROG_DIR)/runtime_kinds_plugin.so: tests/programs/runtime_kinds.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -DRUNTIME_KINDS_PLUGIN -fPIC -shared -o $@ $< -L$(FC_DIR) -lcudart

$(TPROG_DIR)/plugin_host: tests/programs/plugin_host.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl

$(TPROG_DIR)/driver_paths: tests/programs/driver_paths.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda -ldl

# The same built for the per-thread default stream: its runtime calls are the
# _ptsz exports (cudaGetDriverEntryPoint_ptsz, ...).
TEST_PROGS += $(TPROG_DIR)/driver_paths_ptds
$(TPROG_DIR)/driver_paths_ptds: tests/programs/driver_paths.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -DCUDA_API_PER_THREAD_DEFAULT_STREAM -o $@ $< -L$(FC_DIR) -lcudart -lcuda -ldl

TEST_PROGS += $(TPROG_DIR)/other_interposer.so
all: $(TEST_PROGS)
$(TPROG_DIR)/other_interposer.so: tests/programs/other_interposer.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -Wno-missing-prototypes -fPIC -shared -o $@ $< -ldl

TEST_PROGS += $(TPROG_DIR)/cross_device $(TPROG_DIR)/cross_device_static
$(TPROG_DIR)/cross_device: tests/programs/cross_device.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda

$(TPROG_DIR)/cross_device_static: tests/programs/cross_device.c $(FAKECUDA_STATIC_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(FC_DIR)/libcudart_static.a -L$(FC_DIR) -lcuda -ldl -lpthread

TEST_PROGS += $(TPROG_DIR)/ctx_teardown
$(TPROG_DIR)/ctx_teardown: tests/programs/ctx_teardown.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda

TEST_PROGS += $(TPROG_DIR)/driver_lifecycle
all: $(TEST_PROGS)
$(TPROG_DIR)/driver_lifecycle: tests/programs/driver_lifecycle.c $(FAKECUDA_DRV_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $< -L$(FC_DIR) -lcuda

TEST_PROGS += $(TPROG_DIR)/multicast
$(TPROG_DIR)/multicast: tests/programs/multicast.c $(FAKECUDA_DRV_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcuda

TEST_PROGS += $(TPROG_DIR)/vmm_host
$(TPROG_DIR)/vmm_host: tests/programs/vmm_host.c $(FAKECUDA_DRV_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcuda

TEST_PROGS += $(TPROG_DIR)/managed_pool
$(TPROG_DIR)/managed_pool: tests/programs/managed_pool.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda

TEST_PROGS += $(TPROG_DIR)/pool_owner
$(TPROG_DIR)/pool_owner: tests/programs/pool_owner.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda

TEST_PROGS += $(TPROG_DIR)/module_load
$(TPROG_DIR)/module_load: tests/programs/module_load.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda

# A C extension module for the Python-frames tests, built against the
# machine's python3 headers like any extension.
PY_INCLUDE := $(shell python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT_SUFFIX := $(shell python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
ifneq ($(PY_INCLUDE),)
TEST_PROGS += $(TPROG_DIR)/python/gpuleak_testext$(PY_EXT_SUFFIX)
all: $(TEST_PROGS)
$(TPROG_DIR)/python/gpuleak_testext$(PY_EXT_SUFFIX): tests/programs/pyext.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -Wno-missing-prototypes -fPIC -shared -isystem $(PY_INCLUDE) -o $@ $< -L$(FC_DIR) -lcudart
endif

# Hostile environments and interposer robustness (tests/t_hostile_*.sh,
# tests/t_robust_*.sh): a CUDA program that closes its descriptors, lowers
# its limits, calls CUDA from constructors, frames without unwind info,
# cancelled threads, dlclose; a malloc that fails inside libgpuleak; a write
# that fails with ENOSPC; a statically linked program.
TEST_PROGS += $(TPROG_DIR)/hostile $(TPROG_DIR)/failmalloc.so $(TPROG_DIR)/enospc.so \
	$(TPROG_DIR)/static_hello
all: $(TEST_PROGS)
$(TPROG_DIR)/hostile: tests/programs/hostile.c $(FC_DIR)/libcudart.so | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $< -L$(FC_DIR) -lcudart -ldl
$(TPROG_DIR)/failmalloc.so $(TPROG_DIR)/enospc.so: $(TPROG_DIR)/%.so: tests/programs/%.c
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -Wno-missing-prototypes -fPIC -shared -o $@ $< -ldl
# Static: LD_PRELOAD does nothing to it (no sanitizer either: those need the
# dynamic runtime).
$(TPROG_DIR)/static_hello: tests/programs/static_hello.c
	@mkdir -p $(@D)
	$(CC) -O1 -static -o $@ $<
TEST_PROGS += $(TPROG_DIR)/dlclose_host
all: $(TEST_PROGS)
$(TPROG_DIR)/dlclose_host: tests/programs/dlclose_host.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl

# Two runtimes in one process (tests/t_two_runtimes.sh): a second copy of the
# fake runtime under another soname, and a plugin built against each.
RT12_DIR = $(TPROG_DIR)/rt12
TEST_PROGS += $(RT12_DIR)/libcudart.so.12 $(TPROG_DIR)/plugin13.so $(TPROG_DIR)/plugin12.so $(TPROG_DIR)/multi_host
all: $(TEST_PROGS)
$(RT12_DIR)/libcudart.so.12: $(FC_RT_OBJS) tools/fakecuda/libcudart.map
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) -Wl,-soname,libcudart.so.12 -Wl,--version-script=tools/fakecuda/libcudart.map \
	  -o $@ $(FC_RT_OBJS) -ldl -lpthread
$(TPROG_DIR)/plugin13.so: tests/programs/rt_plugin.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $< -L$(FC_DIR) -lcudart
$(TPROG_DIR)/plugin12.so: tests/programs/rt_plugin.c $(RT12_DIR)/libcudart.so.12 | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $< $(RT12_DIR)/libcudart.so.12 -Wl,-rpath,'$$ORIGIN/rt12'
$(TPROG_DIR)/multi_host: tests/programs/multi_host.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl

TEST_PROGS += $(TPROG_DIR)/fake_torch
all: $(TEST_PROGS)
$(TPROG_DIR)/fake_torch: tests/programs/fake_torch.cc $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O0 -g -fno-omit-frame-pointer -Wall -Wextra -Werror $(SAN_FLAGS) $(CUDA_INC) -o $@ $< -L$(FC_DIR) -lcudart

TEST_PROGS += $(TPROG_DIR)/cache_growth
all: $(TEST_PROGS)
$(TPROG_DIR)/cache_growth: tests/programs/cache_growth.cc $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O0 -g -fno-omit-frame-pointer -Wall -Wextra -Werror $(SAN_FLAGS) $(CUDA_INC) -o $@ $< -L$(FC_DIR) -lcudart

# The same allocators in a libc10_cuda.so without symbols (hidden functions,
# symbol table stripped at link time: -s), as a stripped PyTorch would be.
TEST_PROGS += $(TPROG_DIR)/stripped/libc10_cuda.so $(TPROG_DIR)/fake_torch_stripped
$(TPROG_DIR)/stripped/libc10_cuda.so: tests/programs/fake_c10_cuda.cc $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O1 -g0 -fno-omit-frame-pointer -fvisibility=hidden -fPIC -shared -s -Wall -Wextra -Werror $(SAN_FLAGS) $(CUDA_INC) -o $@ $< -L$(FC_DIR) -lcudart
$(TPROG_DIR)/fake_torch_stripped: tests/programs/fake_torch_stripped.c $(TPROG_DIR)/stripped/libc10_cuda.so
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(TPROG_DIR)/stripped -lc10_cuda -Wl,-rpath,'$$ORIGIN/stripped'

# Other frameworks' caching allocators (tests/t_framework_caches.sh): C++
# names in the program, file names for the modules it loads.
FAKE_MODULES = $(TPROG_DIR)/fw/cupy/cuda/memory.cpython-311-x86_64-linux-gnu.so \
               $(TPROG_DIR)/fw/cupy/cuda/pinned_memory.cpython-311-x86_64-linux-gnu.so \
               $(TPROG_DIR)/fw/libcublasLt.so.12 $(TPROG_DIR)/fw/libnccl.so.2
TEST_PROGS += $(TPROG_DIR)/fake_frameworks $(FAKE_MODULES)
$(TPROG_DIR)/fake_frameworks: tests/programs/fake_frameworks.cc $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O0 -g -fno-omit-frame-pointer -Wall -Wextra -Werror $(SAN_FLAGS) $(CUDA_INC) -o $@ $< -L$(FC_DIR) -lcudart -ldl
$(FAKE_MODULES): tests/programs/fake_module.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fPIC -shared -o $@ $< -L$(FC_DIR) -lcudart

# Memory shared between two processes (tests/t_ipc.sh): an exporter and a
# forked importer, the importer through the shared runtime, the driver, or
# the static runtime.
TEST_PROGS += $(TPROG_DIR)/ipc_share $(TPROG_DIR)/ipc_share_static
all: $(TEST_PROGS)
$(TPROG_DIR)/ipc_share: tests/programs/ipc_share.c tests/programs/ipc_channel.h $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda
$(TPROG_DIR)/ipc_share_static: tests/programs/ipc_share.c tests/programs/ipc_channel.h $(FAKECUDA_STATIC_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(FC_DIR)/libcudart_static.a -L$(FC_DIR) -lcuda -ldl -lpthread

# CUDA graph memory nodes (tests/t_graph_memory.sh): the shared runtime, the
# static runtime (seen at the driver layer) and the per-thread default stream.
TEST_PROGS += $(TPROG_DIR)/graph_memory $(TPROG_DIR)/graph_memory_static $(TPROG_DIR)/graph_memory_ptds
all: $(TEST_PROGS)
$(TPROG_DIR)/graph_memory: tests/programs/graph_memory.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS))
$(TPROG_DIR)/graph_memory_ptds: tests/programs/graph_memory.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,-DCUDA_API_PER_THREAD_DEFAULT_STREAM $(FAKECUDA_RT_LDFLAGS))
$(TPROG_DIR)/graph_memory_static: tests/programs/graph_memory.c $(FAKECUDA_STATIC_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_STATIC_LDFLAGS))

# VMM memory shared between two processes (tests/t_vmm_import.sh): an
# exporter and a forked importer that maps the imported handle; the importer
# reaches the driver linked, through dlsym or through cuGetProcAddress.
TEST_PROGS += $(TPROG_DIR)/vmm_import
all: $(TEST_PROGS)
$(TPROG_DIR)/vmm_import: tests/programs/vmm_import.c tests/programs/ipc_channel.h $(FAKECUDA_DRV_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_DRV_LDFLAGS) -ldl)

# External memory (tests/t_external_memory.sh): another API's memory imported
# and mapped, through the runtime (shared and static) and the driver (linked,
# dlsym, cuGetProcAddress).
TEST_PROGS += $(TPROG_DIR)/external_mem $(TPROG_DIR)/external_mem_static
all: $(TEST_PROGS)
$(TPROG_DIR)/external_mem: tests/programs/external_mem.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS) -lcuda -ldl)
$(TPROG_DIR)/external_mem_static: tests/programs/external_mem.c $(FAKECUDA_STATIC_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,-DEXTMEM_STATIC $(FAKECUDA_STATIC_LDFLAGS))

# What answers each kind of dlsym lookup (scripts/check-aarch64.sh).
TEST_PROGS += $(TPROG_DIR)/dlsym_probe
all: $(TEST_PROGS)
$(TPROG_DIR)/dlsym_probe: tests/programs/dlsym_probe.c | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,-ldl)

# Frees of pointers with no live allocation (tests/t_bad_free.sh).
TEST_PROGS += $(TPROG_DIR)/bad_free
all: $(TEST_PROGS)
$(TPROG_DIR)/bad_free: tests/programs/bad_free.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS) -lcuda)

# Allocation calls on both sides of a snapshot (tests/t_alloc_calls.sh).
TEST_PROGS += $(TPROG_DIR)/call_window
all: $(TEST_PROGS)
$(TPROG_DIR)/call_window: tests/programs/call_window.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS))

# NVIDIA's real runtime against a recording driver (tests/t_real_runtime.sh,
# tests/realcuda/): the recording libcuda.so.1 and the request replayer.
TEST_PROGS += $(BUILD)/realcuda/libcuda.so.1 $(TPROG_DIR)/replay_requests
all: $(BUILD)/realcuda/libcuda.so.1 $(TPROG_DIR)/replay_requests
$(BUILD)/realcuda/libcuda.so.1: tests/realcuda/rec_driver.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fvisibility=hidden -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $< -ldl -lpthread
$(TPROG_DIR)/replay_requests: tests/realcuda/replay.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl

# Processes exiting together under one shared output pattern
# (tests/t_output_race.sh); a running target for `gpuleak snapshot`
# (tests/t_launcher_snapshot.sh).
TEST_PROGS += $(TPROG_DIR)/exit_together $(TPROG_DIR)/snapshot_target
all: $(TEST_PROGS)
$(TPROG_DIR)/exit_together: tests/programs/exit_together.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS))
$(TPROG_DIR)/snapshot_target: tests/programs/snapshot_target.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS))

# How a tracked process ends: fork, exit from two threads, fatal signals
# (tests/t_process_end.sh).
TEST_PROGS += $(TPROG_DIR)/process_end
all: $(TEST_PROGS)
$(TPROG_DIR)/process_end: tests/programs/process_end.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS) -lcuda -pthread)

# A long job driven from stdin, for the live view and the metrics file
# (tests/t_live_top.sh).
TEST_PROGS += $(TPROG_DIR)/live_job
all: $(TEST_PROGS)
$(TPROG_DIR)/live_job: tests/programs/live_job.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS))

# The snapshot format's field lists as data (tests/report/snapfields.c: the
# docs tables, tests that set or read a field by name) and the format's unit
# test (tests/unit/format_roundtrip.c: every record through the writer's
# encoding and the reporter's reader, in process).  Each is built in one
# step, the reader from wherever report/ lists its source, so they need none
# of report/'s rules.
FORMAT_HDRS = common/snapshot_format.h common/snapshot_fields.h common/snapshot_codec.h
FORMAT_READER_SRC = $(filter %/snap_read.c,$(REPORT_SRCS))
UNIT_CFLAGS = -std=gnu11 -O1 -g -fno-omit-frame-pointer $(WARN) $(SAN_FLAGS)
TEST_PROGS += $(TPROG_DIR)/snapfields $(TPROG_DIR)/unit/format_roundtrip
all: $(TPROG_DIR)/snapfields $(TPROG_DIR)/unit/format_roundtrip
$(TPROG_DIR)/snapfields: tests/report/snapfields.c $(FORMAT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(CPPFLAGS_COMMON) $< -o $@
# docs/reliability.md's lock table, printed from interpose/base/lock_rank.h
# (scripts/lock-doc.py, tests/t_lock_doc.sh).
TEST_PROGS += $(TPROG_DIR)/unit/lock_table
all: $(TPROG_DIR)/unit/lock_table
$(TPROG_DIR)/unit/lock_table: tests/unit/lock_table.c interpose/base/lock_rank.h
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -Iinterpose $< -o $@

# The lock-order check's unit test (tests/unit/lock_rank.c): base/lock.c
# with the check on in every build, against the real ranks.
TEST_PROGS += $(TPROG_DIR)/unit/lock_rank
all: $(TPROG_DIR)/unit/lock_rank
$(TPROG_DIR)/unit/lock_rank: tests/unit/lock_rank.c interpose/base/lock.c interpose/base/lock.h \
		interpose/base/lock_rank.h interpose/base/internal.h
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(CPPFLAGS_COMMON) -DGL_LOCK_CHECK -Iinterpose $(filter %.c,$^) -o $@ -lpthread

$(TPROG_DIR)/unit/format_roundtrip: tests/unit/format_roundtrip.c $(FORMAT_READER_SRC) $(FORMAT_HDRS) \
		$(wildcard $(dir $(FORMAT_READER_SRC))*.h)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(CPPFLAGS_COMMON) -Ireport $(addprefix -I,$(dir $(FORMAT_READER_SRC))) \
		$(filter %.c,$^) -o $@

# The interposer's unit tests (tests/unit/*.c, issue 22): each is linked from
# the objects of the layer it tests and the layers below it only
# (interpose/LAYERS), named here, so that a change to one module is rebuilt
# and tested in seconds.  No fakecuda, no libgpuleak.so.
GL_OBJ = $(BUILD)/obj/interpose
# The interposer's flags that change its structs (struct gl_lock with the
# lock check) must be the test's too: the test reads the structs it links.
UNIT_GL_CFLAGS = $(UNIT_CFLAGS) $(CUDA_INC) -Iinterpose $(CPPFLAGS_COMMON) $(GL_LOCK_CHECK_FLAGS)
UNIT_GL_NAMES = procaddr_rules live_table outfile
UNIT_GL_PROGS = $(UNIT_GL_NAMES:%=$(TPROG_DIR)/unit/%)
TEST_PROGS += $(UNIT_GL_PROGS)
all: $(UNIT_GL_PROGS)
# Compiled apart from the link: a change to the module under test then
# rebuilds its object and relinks, without compiling the test again.
$(UNIT_GL_NAMES:%=$(BUILD)/obj/tests/unit/%.o): $(BUILD)/obj/tests/unit/%.o: tests/unit/%.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(UNIT_GL_CFLAGS) -MMD -MP -c $< -o $@
define unit_gl_link
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $^ -o $@ $(1)
endef

# The entry-point ABI rules: resolve/ alone.
$(TPROG_DIR)/unit/procaddr_rules: $(BUILD)/obj/tests/unit/procaddr_rules.o $(GL_OBJ)/resolve/entry_abi.o
	$(call unit_gl_link)

# The live table, the accounting, the lanes and the bad frees: state/, and
# the capture/ and base/ objects they need.
UNIT_STATE_OBJS = $(addprefix $(GL_OBJ)/,state/track.o state/account.o state/lanes.o state/history.o \
	state/stack_table.o state/stack_tally.o state/teardown.o state/bad_free.o \
	capture/stacks.o capture/stack_cache.o capture/stack_check.o capture/stack_regs.o capture/pyframes.o capture/pyframes_layout.o \
	base/self.o base/modules.o base/log.o base/ut.o base/config.o base/libc_dl.o base/elf_lookup.o base/lock.o base/xfsz.o)
$(TPROG_DIR)/unit/live_table: $(BUILD)/obj/tests/unit/live_table.o $(UNIT_STATE_OBJS)
	$(call unit_gl_link,-pthread $(GL_LDLIBS))

# Snapshot file names and creation: control/outfile.o, whose file-system
# calls the test replaces (gl_outfile_io), and the base/ objects it needs.
$(TPROG_DIR)/unit/outfile: $(BUILD)/obj/tests/unit/outfile.o \
		$(addprefix $(GL_OBJ)/,control/outfile.o base/config.o base/log.o)
	$(call unit_gl_link)

-include $(UNIT_GL_NAMES:%=$(BUILD)/obj/tests/unit/%.d)

# Memory by phase: annotated load, epochs, eval (tests/t_report_phases.sh).
TEST_PROGS += $(TPROG_DIR)/phases
all: $(TEST_PROGS)
$(TPROG_DIR)/phases: tests/programs/phases.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS))

# NVTX ranges as phases through the injection library (tests/t_nvtx_phases.sh).
TEST_PROGS += $(TPROG_DIR)/nvtx_phases
all: $(TEST_PROGS)
$(TPROG_DIR)/nvtx_phases: tests/programs/nvtx_phases.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS) -ldl)

# The ledger of used memory (tests/t_ledger.sh): runtime and driver calls.
TEST_PROGS += $(TPROG_DIR)/ledger
$(TPROG_DIR)/ledger: tests/programs/ledger.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FC_DIR) -lcudart -lcuda
all: $(TEST_PROGS)

# Known memory and growth between two snapshots, for --pprof
# (tests/t_report_pprof.sh).
TEST_PROGS += $(TPROG_DIR)/pprof_growth
all: $(TPROG_DIR)/pprof_growth
$(TPROG_DIR)/pprof_growth: tests/programs/pprof_growth.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	$(call fakecuda_prog,$(FAKECUDA_RT_LDFLAGS))
# The protobuf wire writer behind --pprof (tests/t_unit_pprof_pb.sh).
TEST_PROGS += $(TPROG_DIR)/unit/pprof_pb
all: $(TPROG_DIR)/unit/pprof_pb
$(TPROG_DIR)/unit/pprof_pb: tests/unit/pprof_pb.c report/render/pprof/pb.c report/render/pprof/pb.h \
		report/util/xalloc.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(REPORT_CPPFLAGS) -o $@ $(filter %.c,$^)
