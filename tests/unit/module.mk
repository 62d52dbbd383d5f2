# The reporter's analysis unit tests (tests/unit/analysis_*.c, issue 37):
# each builds its snapshots in memory (tests/unit/snapbuild.c, through the
# format's codec and tests/report/snapwrite.c), reads them with the real
# reader and checks an analysis's exact results.  Linked from the objects of
# report/util, report/model and report/analysis only: no render/, no cli/.
# Editing one analysis and running its test is
#   make -j2 build/tests/unit/analysis_history && build/tests/unit/analysis_history
# which recompiles that one object and relinks.  Included from tests/module.mk.
UNIT_AN_NAMES = analysis_report analysis_history analysis_multi analysis_stacks analysis_oomkind analysis_growth
UNIT_AN_PROGS = $(UNIT_AN_NAMES:%=$(TPROG_DIR)/unit/%)
UNIT_AN_LIB_OBJS = $(filter $(BUILD)/obj/report/util/% $(BUILD)/obj/report/model/% \
	$(BUILD)/obj/report/analysis/%,$(REPORT_OBJS))
UNIT_AN_HELPER_OBJS = $(BUILD)/obj/tests/unit/snapbuild.o $(BUILD)/obj/tests/report/snapwrite.o
TEST_PROGS += $(UNIT_AN_PROGS)
all: $(UNIT_AN_PROGS)
$(UNIT_AN_NAMES:%=$(BUILD)/obj/tests/unit/%.o) $(BUILD)/obj/tests/unit/snapbuild.o: \
		$(BUILD)/obj/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(REPORT_CPPFLAGS) -Itests/report -Itests/unit -MMD -MP -c $< -o $@
$(UNIT_AN_PROGS): $(TPROG_DIR)/unit/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_AN_HELPER_OBJS) $(UNIT_AN_LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $^ -o $@ $(REPORT_LIBS)
-include $(UNIT_AN_NAMES:%=$(BUILD)/obj/tests/unit/%.d) $(BUILD)/obj/tests/unit/snapbuild.d

# interpose/cuda/ against fakecuda (tests/unit/cuda_where.c): array sizes and
# pool kinds, and where.c asking fakecuda's driver and runtime, which the
# test links as a CUDA program does.  Objects of cuda/ and the layers below.
UNIT_CUDA_OBJS = $(addprefix $(GL_OBJ)/,cuda/where.o cuda/green_ctx.o cuda/array_size.o cuda/pool_kinds.o \
	resolve/resolve.o resolve/real_table.o base/self.o base/libc_dl.o base/elf_lookup.o base/lock.o \
	base/log.o base/config.o base/ut.o base/modules.o)
TEST_PROGS += $(TPROG_DIR)/unit/cuda_where
all: $(TPROG_DIR)/unit/cuda_where
$(BUILD)/obj/tests/unit/cuda_where.o: tests/unit/cuda_where.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(UNIT_GL_CFLAGS) -MMD -MP -c $< -o $@
$(TPROG_DIR)/unit/cuda_where: $(BUILD)/obj/tests/unit/cuda_where.o $(UNIT_CUDA_OBJS) $(FAKECUDA_RT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(filter %.o,$^) -o $@ -L$(FC_DIR) -lcudart -lcuda $(GL_LDLIBS)
-include $(BUILD)/obj/tests/unit/cuda_where.d
