# fakecuda's cuDNN 9 stand-ins (tools/fakecuda/README.md, "cuDNN"),
# included from tools/fakecuda/module.mk: libcudnn.so.9, which PyTorch
# links, and the sub-libraries NVIDIA's libcudnn.so.9 loads, each
# exporting exactly the C names of exports/SONAME.txt (gen-exports.sh) under
# the version node SONAME.  One implementation serves them all; a name it
# does not define is a generated stub (gen-stubs.sh) returning success.
FCDNN_SRC := $(FC_SRC)/cudnn
FCDNN_OBJ := $(FC_OBJ)/cudnn
FCDNN_SONAMES := libcudnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9 libcudnn_cnn.so.9 libcudnn_adv.so.9 \
                 libcudnn_heuristic.so.9 libcudnn_engines_precompiled.so.9 libcudnn_engines_runtime_compiled.so.9
FCDNN_SRCS := fcdnn_core.c fcdnn_stub.c fcdnn_backend.c fcdnn_workspace.c fcdnn_legacy.c
FCDNN_OBJS := $(FCDNN_SRCS:%.c=$(FCDNN_OBJ)/%.o)
FCDNN_LIBS := $(FCDNN_SONAMES:%=$(FAKECUDA_DIR)/%)
FAKECUDA_LIBS += $(FCDNN_LIBS)
all: $(FCDNN_LIBS)

$(FCDNN_OBJ)/%.o: $(FCDNN_SRC)/%.c $(wildcard $(FCDNN_SRC)/*.h) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(FC_CFLAGS) -I$(FCDNN_SRC) -c -o $@ $<

# Per library: its stubs and its version script, from its export list.
$(FCDNN_OBJ)/%.stubs.c: $(FCDNN_SRC)/exports/%.txt $(FCDNN_SRC)/gen-stubs.sh $(FCDNN_OBJS)
	@mkdir -p $(@D)
	$(FCDNN_SRC)/gen-stubs.sh $< $(FCDNN_OBJS) > $@.tmp && mv $@.tmp $@
$(FCDNN_OBJ)/%.stubs.o: $(FCDNN_OBJ)/%.stubs.c $(FCDNN_SRC)/fcdnn_stub.h
	$(CC) $(FC_CFLAGS) -I$(FCDNN_SRC) -Wno-missing-prototypes -c -o $@ $<
$(FCDNN_OBJ)/%.map: $(FCDNN_SRC)/exports/%.txt
	@mkdir -p $(@D)
	{ echo '$* {'; echo '  global:'; sed 's/.*/    &;/' $<; echo '  local: *;'; echo '};'; } > $@.tmp && mv $@.tmp $@

# -Bsymbolic-functions: cuDNN's calls inside itself never reach a
# preloaded hook of the same name.
$(FAKECUDA_DIR)/%.so.9: $(FCDNN_OBJS) $(FCDNN_OBJ)/%.so.9.stubs.o $(FCDNN_OBJ)/%.so.9.map $(FCDNN_SRC)/module.mk
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) -Wl,-soname,$*.so.9 -Wl,--version-script=$(FCDNN_OBJ)/$*.so.9.map \
	  -Wl,-Bsymbolic-functions $(FC_ZDEFS) -o $@ $(FCDNN_OBJS) $(FCDNN_OBJ)/$*.so.9.stubs.o -lpthread
# Keep the generated intermediates, so that a second make has nothing to do.
.SECONDARY: $(FCDNN_OBJS) $(foreach s,$(FCDNN_SONAMES),$(FCDNN_OBJ)/$(s).stubs.c $(FCDNN_OBJ)/$(s).stubs.o $(FCDNN_OBJ)/$(s).map)

# Its self-test, tests/fakecuda/fc_cudnn_test.c (tests/t_fakecuda_cudnn.sh).
PROG_LIBS_fc_cudnn_test = $(FAKECUDA_DIR)/libcudnn.so.9 -Wl,-rpath,$(abspath $(FAKECUDA_DIR))
PROG_DEPS_fc_cudnn_test = $(FAKECUDA_DIR)/libcudnn.so.9
