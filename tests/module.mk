# Test and demo programs: built like users build CUDA programs (real CUDA
# headers, -g, frame pointers), linked against fakecuda.  They find fakecuda
# at run time through LD_LIBRARY_PATH (tests/lib.sh, make demo), exactly as a
# real program finds the real libraries.
#
# No program has a rule of its own (tests/rules.mk has the one rule, read
# after every module.mk): every tests/programs/NAME.c or .cc, and every
# fakecuda self-test tests/fakecuda/NAME.c, is $(TPROG_DIR)/NAME, compiled
# with PROG_CFLAGS (C++: PROG_CXXFLAGS) and linked with PROG_LIBS_DEFAULT; a
# header it includes is followed (-MMD).  A program that differs says only
# how, by output name OUT, in these tables (any module.mk may add rows):
#   PROG_OUT_NAME   what NAME.c builds, if not $(TPROG_DIR)/NAME: other or
#                   several names (variants of one source), paths below
#                   $(TPROG_DIR); NONE for nothing
#   PROG_FLAGS_OUT  compiler flags added for OUT (-D..., -fPIC -shared)
#   PROG_LIBS_OUT   what OUT links with, instead of PROG_LIBS_DEFAULT
#                   (defined empty: nothing)
#   PROG_DEPS_OUT   more prerequisites (a library OUT links)
#   PROG_CC_OUT     the compiler and its flags, instead of CC/CXX and
#                   PROG_CFLAGS/PROG_CXXFLAGS
FC_DIR = $(BUILD)/fakecuda
TPROG_DIR = $(BUILD)/tests
PROG_SRC_DIRS = tests/programs tests/fakecuda
PROG_CXXFLAGS = -std=c++17 -O0 -g -fno-omit-frame-pointer -Wall -Wextra -Werror $(SAN_FLAGS) $(CUDA_INC) $(CFLAGS_EXTRA)
PROG_LIBS_DEFAULT = $(FAKECUDA_RT_LDFLAGS) -lpthread
# The first programs link the fake libraries without a RUNPATH.
FC_RT_L = -L$(FC_DIR) -lcudart
FC_DRV_L = -L$(FC_DIR) -lcuda
FC_STATIC_L = $(FC_DIR)/libcudart_static.a -L$(FC_DIR) -lcuda -ldl -lpthread
PTDS = -DCUDA_API_PER_THREAD_DEFAULT_STREAM
SO = -fPIC -shared

# The scenarios, the demo, churn and threads: the shared runtime.
$(foreach p,scenarios demo_train churn peak_threads stack_cache hostile driver_lifecycle,\
	$(eval PROG_FLAGS_$(p) = -pthread))
$(foreach p,scenarios demo_train churn peak_threads stack_cache fake_torch cache_growth plugin13.so,\
	$(eval PROG_LIBS_$(p) = $$(FC_RT_L)))
$(foreach p,driver_scenarios driver_lifecycle multicast vmm_host,$(eval PROG_LIBS_$(p) = $$(FC_DRV_L)))
$(foreach p,cross_device ctx_teardown managed_pool pool_owner module_load ipc_share ledger,\
	$(eval PROG_LIBS_$(p) = $$(FC_RT_L) -lcuda))
$(foreach p,plugin_host dlclose_host multi_host other_interposer.so failmalloc.so enospc.so,\
	$(eval PROG_LIBS_$(p) = -ldl))
PROG_LIBS_hostile = $(FC_RT_L) -ldl
# Card profiles through the runtime, the driver and NVML (t_fakecuda_gpu).
PROG_LIBS_gpu_profile = $(FC_RT_L) -lcuda -ldl
# Attached to while it runs (tests/t_attach.sh): the runtime, the driver
# imported, and the driver through dlsym.
PROG_OUT_attach_target = attach_target attach_target_static
PROG_LIBS_attach_target = $(FC_RT_L) -lcuda -ldl
PROG_LIBS_attach_target_static = $(FC_STATIC_L)
PROG_LIBS_attach_inproc = $(FC_RT_L) -ldl
PROG_FLAGS_attach_reset_race = -pthread
PROG_LIBS_attach_reset_race = $(FC_RT_L) -ldl -lpthread
PROG_OUT_attach_plugin = attach_plugin.so
PROG_FLAGS_attach_plugin.so = $(SO)
PROG_LIBS_attach_plugin.so = $(FC_RT_L)
PROG_FLAGS_attach_threads = -pthread
PROG_LIBS_attach_threads = $(FC_RT_L) -lpthread
PROG_LIBS_fake_frameworks = $(FC_RT_L) -ldl
PROG_FLAGS_device_switch = -pthread
PROG_LIBS_device_switch = $(FC_RT_L) -lcuda -ldl -lpthread

# The interception matrix (tests/t_paths_*.sh): the same runtime code against
# the shared runtime, the static runtime, and as a plugin loaded RTLD_LOCAL;
# the driver families through every way of getting driver entry points, also
# built for the per-thread default stream (the _ptsz exports).
PROG_OUT_runtime_kinds = runtime_kinds runtime_kinds_ptds runtime_kinds_static runtime_kinds_plugin.so
PROG_LIBS_runtime_kinds = $(FC_RT_L)
PROG_FLAGS_runtime_kinds_ptds = $(PTDS)
PROG_LIBS_runtime_kinds_ptds = $(FC_RT_L)
PROG_LIBS_runtime_kinds_static = $(FC_DIR)/libcudart_static.a -ldl -lpthread
PROG_FLAGS_runtime_kinds_plugin.so = -DRUNTIME_KINDS_PLUGIN $(SO)
PROG_LIBS_runtime_kinds_plugin.so = $(FC_RT_L)
PROG_OUT_driver_paths = driver_paths driver_paths_ptds
PROG_LIBS_driver_paths = $(FC_RT_L) -lcuda -ldl
PROG_FLAGS_driver_paths_ptds = $(PTDS)
PROG_LIBS_driver_paths_ptds = $(FC_RT_L) -lcuda -ldl
PROG_OUT_cross_device = cross_device cross_device_static
PROG_LIBS_cross_device_static = $(FC_STATIC_L)

# Shared objects preloaded or loaded by tests: another interposer, a malloc
# that fails inside libgpuleak, a write that fails with ENOSPC.
PROG_OUT_other_interposer = other_interposer.so
PROG_OUT_failmalloc = failmalloc.so
PROG_OUT_enospc = enospc.so
$(foreach p,other_interposer.so failmalloc.so enospc.so,$(eval PROG_FLAGS_$(p) = -Wno-missing-prototypes $$(SO)))
# Preloaded into gpuleak-report: counts its symbol-table lookups.
PROG_OUT_count_symlookup = count_symlookup.so
PROG_FLAGS_count_symlookup.so = $(SO)
PROG_LIBS_count_symlookup.so = -ldl
# Static: LD_PRELOAD does nothing to it (no sanitizer either: those need the
# dynamic runtime).
PROG_CC_static_hello = $(CC) -O1 -static
PROG_LIBS_static_hello =

# A C extension module for the Python-frames tests, built against the
# machine's python3 headers like any extension.
PY_INCLUDE := $(shell python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT_SUFFIX := $(shell python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PROG_OUT_pyext = $(if $(PY_INCLUDE),python/gpuleak_testext$(PY_EXT_SUFFIX),NONE)
PROG_FLAGS_python/gpuleak_testext$(PY_EXT_SUFFIX) = -Wno-missing-prototypes $(SO) -isystem $(PY_INCLUDE)
PROG_LIBS_python/gpuleak_testext$(PY_EXT_SUFFIX) = $(FC_RT_L)

# Two runtimes in one process (tests/t_two_runtimes.sh): a second copy of the
# fake runtime under another soname, and a plugin built against each.
RT12_DIR = $(TPROG_DIR)/rt12
TEST_PROGS += $(RT12_DIR)/libcudart.so.12
$(RT12_DIR)/libcudart.so.12: $(FC_RT_OBJS) tools/fakecuda/libcudart.map
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) -Wl,-soname,libcudart.so.12 -Wl,--version-script=tools/fakecuda/libcudart.map \
	  -o $@ $(FC_RT_OBJS) -ldl -lpthread
PROG_OUT_rt_plugin = plugin13.so plugin12.so
PROG_FLAGS_plugin13.so = $(SO)
PROG_FLAGS_plugin12.so = $(SO)
PROG_DEPS_plugin12.so = $(RT12_DIR)/libcudart.so.12
PROG_LIBS_plugin12.so = $(RT12_DIR)/libcudart.so.12 -Wl,-rpath,'$$ORIGIN/rt12'

# The fake PyTorch allocators, also in a libc10_cuda.so without symbols
# (hidden functions, symbol table stripped at link time: -s), as a stripped
# PyTorch would be.
PROG_OUT_fake_c10_cuda = stripped/libc10_cuda.so
PROG_FLAGS_stripped/libc10_cuda.so = -O1 -g0 -fvisibility=hidden $(SO) -s
PROG_LIBS_stripped/libc10_cuda.so = $(FC_RT_L)
PROG_DEPS_fake_torch_stripped = $(TPROG_DIR)/stripped/libc10_cuda.so
PROG_LIBS_fake_torch_stripped = -L$(TPROG_DIR)/stripped -lc10_cuda -Wl,-rpath,'$$ORIGIN/stripped'

# Other frameworks' caching allocators (tests/t_framework_caches.sh): C++
# names in the program, file names for the modules it loads.
PROG_OUT_fake_module = fw/cupy/cuda/memory.cpython-311-x86_64-linux-gnu.so \
	fw/cupy/cuda/pinned_memory.cpython-311-x86_64-linux-gnu.so fw/libcublasLt.so.12 fw/libnccl.so.2
$(foreach p,$(PROG_OUT_fake_module),$(eval PROG_FLAGS_$(p) = $$(SO)) $(eval PROG_LIBS_$(p) = $$(FC_RT_L)))

# Memory shared between two processes (tests/t_ipc.sh, t_vmm_import.sh),
# external memory (t_external_memory.sh), graph memory nodes
# (t_graph_memory.sh): shared runtime, driver, static runtime, per-thread
# default stream.
PROG_OUT_ipc_share = ipc_share ipc_share_static
PROG_LIBS_ipc_share_static = $(FC_STATIC_L)
PROG_OUT_graph_memory = graph_memory graph_memory_static graph_memory_ptds
PROG_FLAGS_graph_memory_ptds = $(PTDS)
PROG_LIBS_graph_memory_static = $(FAKECUDA_STATIC_LDFLAGS) -lpthread
PROG_LIBS_vmm_import = $(FAKECUDA_DRV_LDFLAGS) -ldl -lpthread
PROG_OUT_external_mem = external_mem external_mem_static
PROG_LIBS_external_mem = $(FAKECUDA_RT_LDFLAGS) -lcuda -ldl -lpthread
PROG_FLAGS_external_mem_static = -DEXTMEM_STATIC
PROG_LIBS_external_mem_static = $(FAKECUDA_STATIC_LDFLAGS) -lpthread
PROG_LIBS_dlsym_probe = -ldl -lpthread
PROG_LIBS_bad_free = $(FAKECUDA_RT_LDFLAGS) -lcuda -lpthread
PROG_LIBS_process_end = $(FAKECUDA_RT_LDFLAGS) -lcuda -pthread -lpthread
PROG_LIBS_term_in_call = $(FAKECUDA_RT_LDFLAGS) -lcuda -lpthread
PROG_LIBS_nvtx_phases = $(FAKECUDA_RT_LDFLAGS) -ldl -lpthread

# fakecuda's self-tests (tests/t_fakecuda_*.sh): one dispatcher
# (tests/fakecuda/fc_check.h), the variant of the libraries each tests.
$(foreach p,fc_drv_test fc_vmm_share_test fc_numba_api_test,\
	$(eval PROG_LIBS_$(p) = $$(FAKECUDA_DRV_LDFLAGS) -lpthread))
PROG_LIBS_fc_static_test = $(FAKECUDA_STATIC_LDFLAGS) -lpthread
PROG_LIBS_fc_ipc_test = $(FAKECUDA_RT_LDFLAGS) -lcuda -lpthread
PROG_LIBS_fc_graph_test = $(FAKECUDA_RT_LDFLAGS) -lcuda -lpthread

# NVIDIA's real runtime against a recording driver (tests/t_real_runtime.sh,
# tests/realcuda/): the recording libcuda.so.1 and the request replayer.
TEST_PROGS += $(BUILD)/realcuda/libcuda.so.1 $(TPROG_DIR)/replay_requests
$(BUILD)/realcuda/libcuda.so.1: tests/realcuda/rec_driver.c $(FLAGS_STAMP) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -fvisibility=hidden -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $< -ldl -lpthread
$(TPROG_DIR)/replay_requests: tests/realcuda/replay.c $(FLAGS_STAMP) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl

# The snapshot format's field lists as data (tests/report/snapfields.c: the
# docs tables, tests that set or read a field by name) and the format's unit
# test (tests/unit/format_roundtrip.c: every record through the writer's
# encoding and the reporter's reader, in process).  Each is built in one
# step, the reader from wherever report/ lists its source, so they need none
# of report/'s rules.
FORMAT_HDRS = common/snapshot_format.h common/snapshot_fields.h common/snapshot_codec.h
FORMAT_READER_SRC = $(filter %/snap_read.c,$(REPORT_SRCS))
UNIT_CFLAGS = -std=gnu11 -O1 -g -fno-omit-frame-pointer $(WARN) $(SAN_FLAGS) $(CFLAGS_EXTRA)
TEST_PROGS += $(TPROG_DIR)/snapfields
$(TPROG_DIR)/snapfields: tests/report/snapfields.c $(FORMAT_HDRS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(CPPFLAGS_COMMON) $< -o $@

# Unit tests (tests/unit/NAME.c, issue 22): in process, each linked from the
# objects of the layer it tests and the layers below it only
# (interpose/LAYERS), so that a change to one module is rebuilt and tested in
# seconds.  No fakecuda, no libgpuleak.so.  Like programs, none has a rule
# (tests/rules.mk): NAME.c is compiled to $(BUILD)/obj/tests/unit/NAME.o
# with UNIT_GL_CFLAGS and linked into $(TPROG_DIR)/unit/NAME with
#   UNIT_LINK_NAME  the objects it tests (default: none)
#   UNIT_LIBS_NAME  libraries
#   UNIT_FLAGS_NAME compiler flags added (e.g. -Ireport for the reporter's)
# A family of tests shares a row by the prefix of its names (the part before
# the first "_"), so that a new member needs no row at all:
#   UNIT_PREFIX_CFLAGS_P  the compiler flags, instead of UNIT_GL_CFLAGS
#   UNIT_PREFIX_LINK_P    objects every P_* test links, after its own
#   UNIT_PREFIX_LIBS_P    libraries every P_* test links
# (analysis_*: the reporter's analyses, tests/unit/module.mk).
# A test that must compile its module differently lists itself in
# UNIT_OWN_RULE and keeps a rule (below).
GL_OBJ = $(BUILD)/obj/interpose
# The interposer's flags that change its structs (struct gl_lock with the
# lock check) must be the test's too: the test reads the structs it links.
UNIT_GL_CFLAGS = $(UNIT_CFLAGS) $(CUDA_INC) -Iinterpose $(CPPFLAGS_COMMON) $(GL_LOCK_CHECK_FLAGS)
UNIT_OWN_RULE = format_roundtrip lock_rank cuda_where snapbuild pprof_pb

# docs/reliability.md's lock table, printed from interpose/base/lock_rank.h
# (scripts/lock-doc.py, tests/t_lock_doc.sh): the header alone.
# The entry-point ABI rules: resolve/ alone.
UNIT_LINK_procaddr_rules = $(GL_OBJ)/resolve/entry_abi.o
# The live table, the accounting, the lanes and the bad frees: state/, and
# the capture/ and base/ objects they need.
UNIT_LINK_live_table = $(addprefix $(GL_OBJ)/,state/track.o state/track_copy.o state/track_reset.o state/account.o state/lanes.o state/history.o state/events.o \
	state/stack_table.o state/stack_tally.o state/teardown.o state/bad_free.o \
	capture/stacks.o capture/stack_cache.o capture/stack_check.o capture/stack_regs.o capture/pyframes.o capture/pyframes_layout.o \
	base/self.o base/clock.o base/busy.o base/modules.o base/log.o base/ut.o base/config.o base/libc_dl.o base/elf_lookup.o base/lock.o base/futex_lock.o base/xfsz.o)
UNIT_LIBS_live_table = -pthread $(GL_LDLIBS)
# The lock itself (tests/unit/lock_mutual.c): base/lock.o and its futex
# slow paths, as this build compiled them.
UNIT_LINK_lock_mutual = $(addprefix $(GL_OBJ)/,base/lock.o base/futex_lock.o)
UNIT_LIBS_lock_mutual = -pthread
# Snapshot file names and creation: control/outfile.o, whose file-system
# calls the test replaces (gl_outfile_io), and the base/ objects it needs.
UNIT_LINK_outfile = $(addprefix $(GL_OBJ)/,control/outfile.o base/config.o base/log.o base/clock.o)
# The decoder of PyTorch's answer: pure, with the view's own stack table.
UNIT_LINK_torch_decode = $(addprefix $(GL_OBJ)/,control/torch_decode.o state/view_stacks.o base/ut.o)

# The lock-order check's unit test (tests/unit/lock_rank.c): base/lock.c
# with the check on in every build, against the real ranks.
TEST_PROGS += $(TPROG_DIR)/unit/lock_rank $(TPROG_DIR)/unit/format_roundtrip
$(TPROG_DIR)/unit/lock_rank: tests/unit/lock_rank.c interpose/base/lock.c interpose/base/lock.h \
		interpose/base/lock_rank.h interpose/base/internal.h $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(CPPFLAGS_COMMON) -DGL_LOCK_CHECK -Iinterpose $(filter %.c,$^) -o $@ -lpthread

$(TPROG_DIR)/unit/format_roundtrip: tests/unit/format_roundtrip.c $(FORMAT_READER_SRC) $(FORMAT_HDRS) \
		$(wildcard $(dir $(FORMAT_READER_SRC))*.h) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(CPPFLAGS_COMMON) -Ireport $(addprefix -I,$(dir $(FORMAT_READER_SRC))) \
		$(filter %.c,$^) -o $@

# The reporter's analysis unit tests (their prefix's row) and cuda/'s (its
# own rule): tests/unit/module.mk; snapbuild.c is the analyses' helper, not a
# test.
include tests/unit/module.mk

# The protobuf wire writer behind --pprof (tests/t_unit_pprof_pb.sh): linked
# from its two sources, so its own rule (UNIT_OWN_RULE).
TEST_PROGS += $(TPROG_DIR)/unit/pprof_pb
all: $(TPROG_DIR)/unit/pprof_pb
$(TPROG_DIR)/unit/pprof_pb: tests/unit/pprof_pb.c report/render/pprof/pb.c report/render/pprof/pb.h \
		report/util/xalloc.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(REPORT_CPPFLAGS) -o $@ $(filter %.c,$^)

# The cuBLAS and cuBLASLt stand-ins' self-test (tests/t_fakecuda_blas.sh),
# and a variant whose DT_RPATH names the toolkit's libraries, as a wheel's
# names NVIDIA's (tests/t_fakecuda_run.sh: fakecuda-run's preloads win).
PROG_OUT_fc_blas_test = fc_blas_test fc_blas_test_rpath
FC_BLAS_L = -L$(FC_DIR) -l:libcublas.so.13 -l:libcublasLt.so.13 $(FAKECUDA_RT_LDFLAGS) -lpthread
PROG_LIBS_fc_blas_test = -Wl,-rpath,$(abspath $(FC_DIR)) $(FC_BLAS_L)
PROG_LIBS_fc_blas_test_rpath = -Wl,--disable-new-dtags -Wl,-rpath,$(CUDA_HOME)/lib64 $(FC_BLAS_L)
PROG_DEPS_fc_blas_test = $(FC_DIR)/libcublas.so.13 $(FC_DIR)/libcublasLt.so.13
PROG_DEPS_fc_blas_test_rpath = $(PROG_DEPS_fc_blas_test)
# cuBLAS's own default workspace (scripts/gpu-check.sh cublas-workspace,
# where nvcc builds it against NVIDIA's cuBLAS).
PROG_LIBS_blas_workspace = -Wl,-rpath,$(abspath $(FC_DIR)) $(FC_BLAS_L)
PROG_DEPS_blas_workspace = $(PROG_DEPS_fc_blas_test)
PROG_FLAGS_snap_calls_race = -pthread
# Defines clock_gettime for the preloaded library to call (t_clock_reads).
PROG_FLAGS_clock_reads = -rdynamic
PROG_LIBS_snap_calls_race = $(FC_RT_L) -lpthread
