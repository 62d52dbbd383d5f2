# The one rule for every test program and unit test (tests/module.mk says
# the convention and has the tables).  Read after every module.mk, so that a
# table row written anywhere is seen when the targets are listed.
.SECONDEXPANSION:

prog_name = $(basename $(notdir $(1)))
# What one source builds: its PROG_OUT_ row, or its own name.
prog_outs = $(filter-out NONE,$(or $(PROG_OUT_$(call prog_name,$(1))),$(call prog_name,$(1))))
PROG_SOURCES := $(sort $(foreach d,$(PROG_SRC_DIRS),$(wildcard $(d)/*.c $(d)/*.cc)))
$(foreach s,$(PROG_SOURCES),$(foreach o,$(call prog_outs,$(s)),$(eval PROG_SRC_$(o) := $(s))))
PROG_OUTS := $(foreach s,$(PROG_SOURCES),$(call prog_outs,$(s)))
PROGS := $(addprefix $(TPROG_DIR)/,$(PROG_OUTS))
TEST_PROGS += $(PROGS)

PROG_DEP_DIR = $(BUILD)/obj/tests/progdeps
prog_compiler = $(or $(PROG_CC_$(1)),$(if $(filter %.cc,$(2)),$(CXX) $(PROG_CXXFLAGS),$(CC) $(PROG_CFLAGS)))
prog_libs = $(if $(filter undefined,$(origin PROG_LIBS_$(1))),$(PROG_LIBS_DEFAULT),$(PROG_LIBS_$(1)))

# Every program waits for every fake library: which ones it links is in its
# table row, and they are all built by `all` anyway.
$(PROGS): $(TPROG_DIR)/%: $$(PROG_SRC_$$*) $$(PROG_DEPS_$$*) $(FAKECUDA_RT_DEPS) $(FAKECUDA_DRV_DEPS) \
		$(FAKECUDA_STATIC_DEPS) $(FLAGS_STAMP) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D) $(dir $(PROG_DEP_DIR)/$*)
	$(call prog_compiler,$*,$<) $(PROG_FLAGS_$*) -MMD -MP -MF $(PROG_DEP_DIR)/$*.d -o $@ $< $(call prog_libs,$*)
-include $(PROG_OUTS:%=$(PROG_DEP_DIR)/%.d)

# Unit tests: compiled apart from the link, so a change to the module under
# test rebuilds its object and relinks, without compiling the test again.
# A name's prefix (before its first "_") picks its family's row
# (UNIT_PREFIX_*_P, tests/module.mk), so a family's new member needs none.
UNIT_NAMES := $(filter-out $(UNIT_OWN_RULE),$(call prog_name,$(wildcard tests/unit/*.c)))
UNIT_PROGS := $(UNIT_NAMES:%=$(TPROG_DIR)/unit/%)
TEST_PROGS += $(UNIT_PROGS)
unit_prefix = $(firstword $(subst _, ,$(1)))
unit_cflags = $(or $(UNIT_PREFIX_CFLAGS_$(call unit_prefix,$(1))),$(UNIT_GL_CFLAGS))
$(UNIT_NAMES:%=$(BUILD)/obj/tests/unit/%.o): $(BUILD)/obj/tests/unit/%.o: tests/unit/%.c $(FLAGS_STAMP) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(call unit_cflags,$*) $(UNIT_FLAGS_$*) -MMD -MP -c $< -o $@
$(UNIT_PROGS): $(TPROG_DIR)/unit/%: $(BUILD)/obj/tests/unit/%.o $$(UNIT_LINK_$$*) \
		$$(UNIT_PREFIX_LINK_$$(call unit_prefix,$$*))
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $^ -o $@ $(UNIT_LIBS_$*) $(UNIT_PREFIX_LIBS_$(call unit_prefix,$*))
-include $(UNIT_NAMES:%=$(BUILD)/obj/tests/unit/%.d)
