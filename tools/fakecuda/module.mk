# fakecuda: CPU-only stand-ins for libcuda.so.1 and libcudart (shared and
# static).  See tools/fakecuda/README.md.
#
# For test programs (other module.mk files may use these):
#   FAKECUDA_DIR             directory holding the fake libraries
#   FAKECUDA_RT_LDFLAGS      link against the shared fake runtime (-lcudart)
#   FAKECUDA_DRV_LDFLAGS     link against the fake driver directly (-lcuda)
#   FAKECUDA_STATIC_LDFLAGS  link the static fake runtime into the program
#   FAKECUDA_RT_DEPS / FAKECUDA_DRV_DEPS / FAKECUDA_STATIC_DEPS
#                            prerequisites for programs using each variant
# Every variant finds the driver at run time through LD_LIBRARY_PATH (tests/lib.sh
# `fc`); the RUNPATH set here is only a fallback for running by hand.

FC_SRC := tools/fakecuda
FAKECUDA_DIR := $(BUILD)/fakecuda
FC_OBJ := $(BUILD)/obj/fakecuda

FC_DRV_SRCS := fc_state.c fc_heap.c fc_driver_ctx.c fc_driver_stream.c fc_driver_error.c \
               fc_driver_mem.c fc_driver_copy.c fc_driver_array.c fc_driver_pool.c \
               fc_driver_vmm.c fc_driver_vmm_share.c fc_driver_multicast.c fc_driver_ptr.c fc_driver_ipc.c fc_driver_extmem.c fc_driver_pool13.c fc_driver_module.c fc_driver_green.c fc_procaddr.c
# Card profiles (FAKECUDA_GPU, fakecuda-run --gpu): gpus.tsv as C.
FC_DRV_SRCS += fc_gpu.c
FC_RT_SRCS := fc_rt_init.c fc_rt_device.c fc_rt_error.c fc_rt_mem.c fc_rt_pool.c \
              fc_rt_array.c fc_rt_entry.c fc_rt_ipc.c fc_rt_extmem.c fc_rt_module.c

# Graph memory nodes and stream capture (their shared header: fc_graph.h).
FC_GRAPH_SRCS := fc_driver_graph.c fc_driver_graph_exec.c fc_driver_capture.c
FC_DRV_SRCS += $(FC_GRAPH_SRCS)
# What numba's driver binding asks for beyond memory (tests/t_numba*.sh).
FC_DRV_SRCS += fc_driver_device.c fc_driver_event.c
FC_RT_SRCS += fc_rt_graph.c fc_rt_graph_exec.c
# What PyTorch's paths ask for: kernels (registration, launches),
# device properties, events, stream priorities; fc_rt_stub.c says "not
# implemented" for the generated stubs (below).
FC_RT_SRCS += fc_rt_kernel.c fc_rt_props.c fc_rt_event.c fc_rt_stub.c

FC_DRV_OBJS := $(FC_DRV_SRCS:%.c=$(FC_OBJ)/drv/%.o)
FC_RT_OBJS := $(FC_RT_SRCS:%.c=$(FC_OBJ)/rt/%.o)
FC_RTS_OBJS := $(FC_RT_SRCS:%.c=$(FC_OBJ)/rt_static/%.o)
# Every name NVIDIA's 13.0 runtime exports (gen-exports.sh wrote the list;
# tests/t_fakecuda_exports.sh keeps it honest) that the objects above do
# not define becomes a stub of the shared runtime.
FC_EXPORTS := $(FC_SRC)/exports/libcudart.so.13.txt
FC_STUBS_OBJ := $(FC_OBJ)/rt/fc_rt_stubs.o
$(FC_GRAPH_SRCS:%.c=$(FC_OBJ)/drv/%.o): $(FC_SRC)/fc_graph.h

FC_CFLAGS = $(BASE_CFLAGS) $(CUDA_INC) $(CPPFLAGS_COMMON) -I$(FC_SRC) -fPIC
# Sanitized shared objects take their runtime from the (sanitized) program.
FC_ZDEFS = $(if $(SAN_FLAGS),,-Wl,-z,defs)

FAKECUDA_LIBS := $(FAKECUDA_DIR)/libcuda.so.1 $(FAKECUDA_DIR)/libcuda.so \
                 $(FAKECUDA_DIR)/libcudart.so.13 $(FAKECUDA_DIR)/libcudart.so \
                 $(FAKECUDA_DIR)/libcudart_static.a

FC_RPATH = -Wl,-rpath,$(abspath $(FAKECUDA_DIR))
FAKECUDA_RT_LDFLAGS = -L$(FAKECUDA_DIR) $(FC_RPATH) -lcudart
FAKECUDA_DRV_LDFLAGS = -L$(FAKECUDA_DIR) $(FC_RPATH) -lcuda
FAKECUDA_STATIC_LDFLAGS = $(FAKECUDA_DIR)/libcudart_static.a $(FC_RPATH) -ldl -lpthread
FAKECUDA_RT_DEPS = $(FAKECUDA_DIR)/libcudart.so $(FAKECUDA_DIR)/libcuda.so.1
FAKECUDA_DRV_DEPS = $(FAKECUDA_DIR)/libcuda.so
FAKECUDA_STATIC_DEPS = $(FAKECUDA_DIR)/libcudart_static.a $(FAKECUDA_DIR)/libcuda.so.1

all: $(FAKECUDA_LIBS)

$(FC_OBJ)/drv/%.o: $(FC_SRC)/%.c $(FC_SRC)/fc_internal.h | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(FC_CFLAGS) -c -o $@ $<

# The card profiles, as C (fc_gpu.c's table); the driver and NVML use them,
# fakecuda-run and gpuleak plan read the installed gpus.tsv.
$(FC_OBJ)/fc_gpus.h: $(FC_SRC)/gpus.tsv
	@mkdir -p $(@D)
	awk -F'\t' '!/^#/ && NF >= 8 { printf "FC_GPU(\"%s\", \"%s\", %d, %d, %d, %d, %sull, %sull)\n", $$1, $$2, $$3, $$4, $$5, $$6, $$7, $$8 }' $< > $@.tmp && mv $@.tmp $@
$(FC_OBJ)/drv/fc_gpu.o $(FC_OBJ)/nvml/fc_gpu.o: $(FC_OBJ)/fc_gpus.h $(FC_SRC)/fc_gpu.h
$(FC_OBJ)/drv/fc_state.o $(FC_OBJ)/drv/fc_driver_ctx.o $(FC_OBJ)/drv/fc_driver_device.o: $(FC_SRC)/fc_gpu.h
$(FC_OBJ)/drv/fc_gpu.o $(FC_OBJ)/nvml/fc_gpu.o: FC_CFLAGS += -I$(FC_OBJ)
all: $(FAKECUDA_DIR)/gpus.tsv
$(FAKECUDA_DIR)/gpus.tsv: $(FC_SRC)/gpus.tsv
	@mkdir -p $(@D)
	cp $< $@.tmp && mv $@.tmp $@

# The real runtime's requests, as C (fc_rt_init.c follows them).
$(FC_OBJ)/fc_rt_requests.h: $(FC_SRC)/real_runtime_requests.txt
	@mkdir -p $(@D)
	awk '!/^#/ { printf "FC_REQ(%d, %s, %s, %s)\n", $$2 == "fetched", ($$3 == "\"\"" ? $$3 : "\"" $$3 "\""), $$4, $$5 }' $< > $@.tmp && mv $@.tmp $@
$(FC_OBJ)/rt/fc_rt_init.o $(FC_OBJ)/rt_static/fc_rt_init.o: $(FC_OBJ)/fc_rt_requests.h
$(FC_OBJ)/rt/fc_rt_init.o $(FC_OBJ)/rt_static/fc_rt_init.o: FC_CFLAGS += -I$(FC_OBJ)

# The headers shared with the library stand-ins (fc_status.h, fc_say.h).
$(FC_OBJ)/rt/fc_rt_error.o $(FC_OBJ)/rt_static/fc_rt_error.o: $(FC_SRC)/fc_status.h
$(FC_OBJ)/rt/fc_rt_stub.o $(FC_OBJ)/rt_static/fc_rt_stub.o: $(FC_SRC)/fc_say.h

$(FC_OBJ)/rt/%.o: $(FC_SRC)/%.c $(FC_SRC)/fc_rt.h | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(FC_CFLAGS) -c -o $@ $<

# Static runtime: every symbol hidden, so a program linked with it has cuda*
# inside the executable and not interposable (nvcc's default -cudart static).
$(FC_OBJ)/fc_rt_stubs.c: $(FC_EXPORTS) $(FC_SRC)/gen-stubs.sh $(FC_RT_OBJS)
	@mkdir -p $(@D)
	$(FC_SRC)/gen-stubs.sh $(FC_EXPORTS) $(FC_RT_OBJS) > $@.tmp && mv $@.tmp $@
$(FC_STUBS_OBJ): $(FC_OBJ)/fc_rt_stubs.c $(FC_SRC)/fc_rt_stub.h
	$(CC) $(FC_CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(FC_OBJ)/rt_static/%.o: $(FC_SRC)/%.c $(FC_SRC)/fc_rt.h | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(FC_CFLAGS) -DFAKECUDA_STATIC -fvisibility=hidden -c -o $@ $<

# -Bsymbolic-functions: the driver's own references to its functions (the
# cuGetProcAddress table) bind inside it, as in NVIDIA's driver.  Without it
# they would bind to a preloaded interposer's definitions of the same names,
# so cuGetProcAddress would hand out libgpuleak's hooks by itself and tests
# could not tell whether libgpuleak wraps what cuGetProcAddress returns.
$(FAKECUDA_DIR)/libcuda.so.1: $(FC_DRV_OBJS) $(FC_SRC)/libcuda.map $(FC_SRC)/module.mk
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) -Wl,-soname,libcuda.so.1 -Wl,--version-script=$(FC_SRC)/libcuda.map \
	  -Wl,-Bsymbolic-functions $(FC_ZDEFS) -o $@ $(FC_DRV_OBJS) -lpthread

# No DT_NEEDED on libcuda: the driver is dlopen()ed, found via RUNPATH $ORIGIN.
# -Bsymbolic-functions here too: NVIDIA's runtime calls its own internals, so
# a runtime function that uses another (cudaGetDriverEntryPoint, the pools)
# never reaches a preloaded hook through the export.
$(FAKECUDA_DIR)/libcudart.so.13: $(FC_RT_OBJS) $(FC_STUBS_OBJ) $(FC_SRC)/libcudart.map $(FC_SRC)/module.mk
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) -Wl,-soname,libcudart.so.13 -Wl,--version-script=$(FC_SRC)/libcudart.map \
	  -Wl,-Bsymbolic-functions -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN' $(FC_ZDEFS) -o $@ $(FC_RT_OBJS) $(FC_STUBS_OBJ) -ldl -lpthread

# NVML, which PyTorch's expandable segments ask before mapping (fc_nvml.c).
FAKECUDA_LIBS += $(FAKECUDA_DIR)/libnvidia-ml.so.1
all: $(FAKECUDA_DIR)/libnvidia-ml.so.1
$(FC_OBJ)/nvml/fc_nvml.o: $(FC_SRC)/fc_nvml.c $(FC_SRC)/fc_nvml.h $(FC_SRC)/fc_internal.h $(FC_SRC)/fc_gpu.h | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(FC_CFLAGS) -fvisibility=hidden -c -o $@ $<
$(FC_OBJ)/nvml/fc_gpu.o: $(FC_SRC)/fc_gpu.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(FC_CFLAGS) -fvisibility=hidden -c -o $@ $<
$(FAKECUDA_DIR)/libnvidia-ml.so.1: $(FC_OBJ)/nvml/fc_nvml.o $(FC_OBJ)/nvml/fc_gpu.o $(FC_SRC)/module.mk
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) -Wl,-soname,libnvidia-ml.so.1 $(FC_ZDEFS) -o $@ $(FC_OBJ)/nvml/fc_nvml.o $(FC_OBJ)/nvml/fc_gpu.o -lpthread

$(FAKECUDA_DIR)/libcudart_static.a: $(FC_RTS_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(FAKECUDA_DIR)/libcuda.so: $(FAKECUDA_DIR)/libcuda.so.1
	ln -sf libcuda.so.1 $@

$(FAKECUDA_DIR)/libcudart.so: $(FAKECUDA_DIR)/libcudart.so.13
	ln -sf libcudart.so.13 $@

# ---- self-tests (tests/t_fakecuda_*.sh) ----
# tests/fakecuda/NAME.c is $(BUILD)/tests/NAME, built by tests/rules.mk like
# every test program; the libraries each links: tests/module.mk.

# Running a program on the stand-ins (fakecuda-run --help).
all: $(FAKECUDA_DIR)/fakecuda-run
$(FAKECUDA_DIR)/fakecuda-run: $(FC_SRC)/fakecuda-run
	@mkdir -p $(@D)
	cp $< $@.tmp && chmod +x $@.tmp && mv $@.tmp $@

# ---- stand-ins for NVIDIA's other libraries (cuBLAS, cuBLASLt, cuDNN) ----
# NVIDIA's cuBLAS and cuDNN carry their own static runtime and reach the
# driver without libcudart, through private export tables fakecuda does not
# have; so they get stand-ins too, each built by one line:
#   $(eval $(call fc_stand_in,SONAME,DIR,SRCS,STUB_CALL,STUB_HEADER,LINK,PREREQS))
# SONAME (libcublas.so.13) is built as $(FAKECUDA_DIR)/SONAME from SRCS (in
# DIR, compiled once per DIR: the stand-ins of one directory share their
# objects) and fc_lib.c.  It exports exactly the names of
# DIR/exports/SONAME.txt (gen-exports.sh of NVIDIA's library), each under
# NVIDIA's version node SONAME (the version script is made from the list);
# every name the objects do not define becomes a stub calling STUB_CALL
# (gen-stubs.sh --lib; STUB_HEADER, in DIR or here, declares it and must
# not include NVIDIA's headers; fc_lib_stub: success, nothing computed).
# LINK: more link inputs (the static runtime, a sibling stand-in), PREREQS:
# their files.  -Bsymbolic, RUNPATH $ORIGIN: as NVIDIA's libraries (calls
# inside a stand-in never reach a preloaded hook of the same name).
# fakecuda-run preloads those a program links (its list);
# tests/t_fakecuda_exports.sh checks every exports/SONAME.txt against its
# library.
comma := ,
$(FC_OBJ)/lib/fc_lib.o: $(FC_SRC)/fc_lib.c $(FC_SRC)/fc_lib.h $(FC_SRC)/fc_say.h
	@mkdir -p $(@D)
	$(CC) $(FC_CFLAGS) -c -o $@ $<
# DIR's objects, $(FC_OBJ)/$(notdir DIR)/NAME.o: one rule per directory.
define fc_stand_in_dir
$$(FC_OBJ)/$(notdir $(1))/%.o: $(1)/%.c $$(wildcard $(1)/*.h) $$(FC_SRC)/fc_lib.h $$(FC_SRC)/fc_status.h | $$(BUILD)/.cuda-ok
	@mkdir -p $$(@D)
	$$(CC) $$(FC_CFLAGS) -I$(1) -c -o $$@ $$<
FC_STAND_IN_DIR_$(1) := 1
endef
define fc_stand_in
$(if $(FC_STAND_IN_DIR_$(2)),,$(eval $(call fc_stand_in_dir,$(2))))
FC_LIB_OBJS_$(1) := $$(patsubst %.c,$$(FC_OBJ)/$(notdir $(2))/%.o,$(3)) $$(FC_OBJ)/lib/fc_lib.o
$$(FC_OBJ)/stubs/$(1).c: $(2)/exports/$(1).txt $$(FC_SRC)/gen-stubs.sh $$(FC_LIB_OBJS_$(1))
	@mkdir -p $$(@D)
	$$(FC_SRC)/gen-stubs.sh --lib $(5) $(4) $$< $$(FC_LIB_OBJS_$(1)) > $$@.tmp && mv $$@.tmp $$@
$$(FC_OBJ)/stubs/$(1).o: $$(FC_OBJ)/stubs/$(1).c $$(wildcard $(2)/$(5) $$(FC_SRC)/$(5))
	$$(CC) $$(FC_CFLAGS) -I$(2) -Wno-missing-prototypes -c -o $$@ $$<
$$(FC_OBJ)/stubs/$(1).map: $(2)/exports/$(1).txt
	@mkdir -p $$(@D)
	{ echo '$(1) {'; echo '  global:'; sed 's/.*/    &;/' $$<; echo '  local: *;'; echo '};'; } > $$@.tmp && mv $$@.tmp $$@
$$(FAKECUDA_DIR)/$(1): $$(FC_LIB_OBJS_$(1)) $$(FC_OBJ)/stubs/$(1).o $$(FC_OBJ)/stubs/$(1).map $(7) $$(FC_SRC)/module.mk
	@mkdir -p $$(@D)
	$$(CC) -shared $$(SAN_FLAGS) -Wl,-soname,$(1) -Wl,--version-script=$$(FC_OBJ)/stubs/$(1).map \
	  -Wl,-Bsymbolic -Wl,--enable-new-dtags -Wl,-rpath,'$$$$ORIGIN' $$(FC_ZDEFS) -o $$@ \
	  $$(FC_LIB_OBJS_$(1)) $$(FC_OBJ)/stubs/$(1).o $(6) -ldl -lpthread
FAKECUDA_LIBS += $$(FAKECUDA_DIR)/$(1)
all: $$(FAKECUDA_DIR)/$(1)
endef

# cuBLASLt and cuBLAS (tools/fakecuda/blas/, README "cuBLAS and cuBLASLt").  cuBLAS
# needs cuBLASLt (DT_NEEDED, as NVIDIA's) and has its own runtime linked
# in (the static one, all hidden): its default workspace is allocated
# through it, as NVIDIA's is through the runtime inside it.
FC_BLAS := $(FC_SRC)/blas
$(eval $(call fc_stand_in,libcublasLt.so.13,$(FC_BLAS),fc_blaslt.c fc_blaslt_desc.c fc_blaslt_algo.c \
  fc_blaslt_attr.c fc_blas_status.c,fc_lib_stub,fc_lib.h,,))
$(eval $(call fc_stand_in,libcublas.so.13,$(FC_BLAS),fc_blas_handle.c fc_blas_workspace.c fc_blas_misc.c \
  fc_blas_legacy.c fc_blas_copy.c fc_blas_status.c,fc_blas_stub,fc_blas_stub.h,\
  $(FAKECUDA_DIR)/libcudart_static.a -L$(FAKECUDA_DIR) -Wl$(comma)--no-as-needed -l:libcublasLt.so.13,\
  $(FAKECUDA_DIR)/libcudart_static.a $(FAKECUDA_DIR)/libcublasLt.so.13))

# cuDNN 9 (tools/fakecuda/cudnn/, README "cuDNN 9"): libcudnn.so.9, which
# PyTorch links, and the sub-libraries NVIDIA's loads.  One implementation
# serves them all, each library its own copy; its stub returns success.
FCDNN_SONAMES := libcudnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9 libcudnn_cnn.so.9 libcudnn_adv.so.9 \
                 libcudnn_heuristic.so.9 libcudnn_engines_precompiled.so.9 libcudnn_engines_runtime_compiled.so.9
$(foreach s,$(FCDNN_SONAMES),$(eval $(call fc_stand_in,$(s),$(FC_SRC)/cudnn,fcdnn_core.c fcdnn_stub.c \
  fcdnn_backend.c fcdnn_workspace.c fcdnn_legacy.c,fcdnn_stub,fcdnn_stub.h,,)))

# Its self-test, tests/fakecuda/fc_cudnn_test.c (tests/t_fakecuda_cudnn.sh).
PROG_LIBS_fc_cudnn_test = $(FAKECUDA_DIR)/libcudnn.so.9 -Wl,-rpath,$(abspath $(FAKECUDA_DIR))
PROG_DEPS_fc_cudnn_test = $(FAKECUDA_DIR)/libcudnn.so.9
