# The reporter's analysis unit tests (tests/unit/analysis_*.c, issue 37):
# each builds its snapshots in memory (tests/unit/snapbuild.c, through the
# format's codec and tests/report/snapwrite.c), reads them with the real
# reader and checks an analysis's exact results.  Linked from the objects of
# report/util, report/model and report/analysis only: no render/, no cli/.
#
# No list names them: tests/rules.mk builds every tests/unit/NAME.c by the
# row of its name's prefix (the part before the first "_"), so a new
# tests/unit/analysis_X.c, testing a new report/analysis/X.c, needs no edit
# here or in tests/t_unit_analysis.sh, which runs every analysis_* test.
# Editing one analysis and running its test is
#   make -j2 build/tests/unit/analysis_history && build/tests/unit/analysis_history
# which recompiles that one object and relinks.  Included from tests/module.mk.
UNIT_PREFIX_CFLAGS_analysis = $(BASE_CFLAGS) $(REPORT_CPPFLAGS) -Itests/report -Itests/unit
UNIT_PREFIX_LINK_analysis = $(BUILD)/obj/tests/unit/snapbuild.o $(BUILD)/obj/tests/report/snapwrite.o \
	$(filter $(BUILD)/obj/report/util/% $(BUILD)/obj/report/model/% $(BUILD)/obj/report/analysis/%,$(REPORT_OBJS))
UNIT_PREFIX_LIBS_analysis = $(REPORT_LIBS)
# The renderers' unit tests (tests/unit/render_*.c): the same snapshots,
# and every layer of report/ but cli/.
UNIT_PREFIX_CFLAGS_render = $(UNIT_PREFIX_CFLAGS_analysis)
UNIT_PREFIX_LINK_render = $(BUILD)/obj/tests/unit/snapbuild.o $(BUILD)/obj/tests/report/snapwrite.o \
	$(filter-out $(BUILD)/obj/report/cli/%,$(REPORT_OBJS))
UNIT_PREFIX_LIBS_render = $(REPORT_LIBS)
# snapbuild.c is their helper, not a test (UNIT_OWN_RULE).
$(BUILD)/obj/tests/unit/snapbuild.o: tests/unit/snapbuild.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(UNIT_PREFIX_CFLAGS_analysis) -MMD -MP -c $< -o $@
-include $(BUILD)/obj/tests/unit/snapbuild.d

# interpose/cuda/ against fakecuda (tests/unit/cuda_where.c): array sizes and
# pool kinds, and where.c asking fakecuda's driver and runtime, which the
# test links as a CUDA program does.  Objects of cuda/ and the layers below.
UNIT_CUDA_OBJS = $(addprefix $(GL_OBJ)/,cuda/where.o cuda/green_ctx.o cuda/array_size.o cuda/pool_kinds.o \
	resolve/resolve.o resolve/real_table.o base/self.o base/clock.o base/busy.o base/libc_dl.o base/elf_lookup.o base/lock.o base/futex_lock.o \
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

# The launcher's unit tests (tests/unit/launcher_*.c): its option checks,
# quoting and pattern reading, linked with every launcher object but main()
# (tools/module.mk, LAUNCHER_LIB_OBJS).
UNIT_PREFIX_CFLAGS_launcher = $(UNIT_CFLAGS) $(LAUNCHER_CPPFLAGS)
UNIT_PREFIX_LINK_launcher = $(LAUNCHER_LIB_OBJS)
