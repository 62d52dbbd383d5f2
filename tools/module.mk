# The launcher is one C program (tools/launcher/: main.c dispatches, one file
# per subcommand).  Built beside gpuleak-report so that it finds
# ../lib/libgpuleak.so exactly as it does when installed.
all: $(BUILD)/bin/gpuleak

# The version comes from common/version.h, the one place it is written.
GPULEAK_VERSION := $(shell sed -n 's/^\#define GPULEAK_VERSION "\(.*\)"/\1/p' common/version.h)

# The man pages, as make install installs them: tools/man/X.1 with
# @VERSION@ filled in, and the reporter's with @SECTIONS@, the names its
# --list-sections prints (the section registry, as --help's list), so a
# new section edits no man page and the page cannot fall behind the binary
# (t_doc_sections checks the page built here).  This runs the reporter just
# built: a cross build (scripts/check-aarch64.sh) asks for no man page.
all: $(BUILD)/share/man/man1/gpuleak.1 $(BUILD)/share/man/man1/gpuleak-report.1
$(BUILD)/share/man/man1/gpuleak.1: tools/man/gpuleak.1 common/version.h
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(GPULEAK_VERSION)/g' $< >$@.tmp && mv $@.tmp $@
$(BUILD)/share/man/man1/gpuleak-report.1: tools/man/gpuleak-report.1 common/version.h $(BUILD)/bin/gpuleak-report
	@mkdir -p $(@D)
	names=$$($(BUILD)/bin/gpuleak-report --list-sections | paste -sd, | sed 's/,/, /g') && [ -n "$$names" ] && \
	  sed "s/@VERSION@/$(GPULEAK_VERSION)/g; s/@SECTIONS@/$$names/g" $< >$@.tmp && mv $@.tmp $@

LAUNCHER_SRCS := $(wildcard tools/launcher/*.c)
LAUNCHER_OBJS := $(LAUNCHER_SRCS:%.c=$(BUILD)/obj/%.o)
# Everything but main(): what the launcher's unit tests link
# (tests/unit/launcher_*.c, tests/unit/module.mk).
LAUNCHER_LIB_OBJS := $(filter-out %/main.o,$(LAUNCHER_OBJS))
LAUNCHER_CPPFLAGS = -Itools/launcher $(CPPFLAGS_COMMON)
$(BUILD)/obj/tools/launcher/%.o: tools/launcher/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(LAUNCHER_CPPFLAGS) -MMD -MP -c $< -o $@
-include $(LAUNCHER_OBJS:.o=.d)
$(BUILD)/bin/gpuleak: $(LAUNCHER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $^ -o $@

# The helper that signals one thread (tools/tgkill.c), in libexec.  The
# bash launcher's snapshot needed it; the C one calls tgkill(2) itself, so it
# is installed only for what still names it (t_install) until it goes.
all: $(BUILD)/libexec/gpuleak/gpuleak-tgkill
$(BUILD)/libexec/gpuleak/gpuleak-tgkill: tools/tgkill.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CPPFLAGS_COMMON) -o $@ $<

all: $(BUILD)/lib/python/gpuleak_memory.py $(BUILD)/lib/python/pytest_gpuleak.py
$(BUILD)/lib/python/%.py: tools/%.py
	@mkdir -p $(@D)
	install -m 0644 $< $@

# gpuleak-top, the live view (`gpuleak top PID`): reads the live file
# libgpuleak keeps (interpose/control/watch.c) and symbolizes with the reporter's
# symbolizer.  A helper of the launcher, so it lives in libexec.
TOP_OBJS = $(BUILD)/obj/tools/top/gpuleak_top.o $(BUILD)/obj/tools/top/live_read.o $(BUILD)/obj/report/model/symbolize.o \
           $(BUILD)/obj/report/model/fold.o $(BUILD)/obj/report/util/xalloc.o $(BUILD)/obj/report/util/fmt.o \
           $(BUILD)/obj/report/model/snap_read.o $(BUILD)/obj/report/model/user_frame.o
all: $(BUILD)/libexec/gpuleak/gpuleak-top
$(BUILD)/obj/tools/top/%.o: tools/top/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(REPORT_CPPFLAGS) -MMD -MP -c $< -o $@
-include $(BUILD)/obj/tools/top/gpuleak_top.d $(BUILD)/obj/tools/top/live_read.d
$(BUILD)/libexec/gpuleak/gpuleak-top: $(TOP_OBJS)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $^ -o $@ $(REPORT_LIBS)

# The NVTX injection library (tools/nvtx/gpuleak_nvtx.c): NVTX ranges become
# annotations, so phases in gpuleak-report; `gpuleak run` names it in
# NVTX_INJECTION64_PATH.  Beside libgpuleak.so, found as ../lib/ like it.
all: $(BUILD)/lib/libgpuleak-nvtx.so
$(BUILD)/lib/libgpuleak-nvtx.so: tools/nvtx/gpuleak_nvtx.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CUDA_INC) -fPIC -shared -fvisibility=hidden -Wl,-z,defs -o $@ $< -ldl

# gpuleak plan (tools/plan/, docs/plan.md): the driver and the hook it puts
# on the planned program's PYTHONPATH (with the peak's composition it imports
# at exit) and the page writer, side by side in libexec, found by the
# launcher as ../libexec/gpuleak/plan/gpuleak-plan.
all: $(BUILD)/libexec/gpuleak/plan/gpuleak-plan $(BUILD)/libexec/gpuleak/plan/sitecustomize.py
all: $(BUILD)/libexec/gpuleak/plan/gpuleak_plan_peak.py $(BUILD)/libexec/gpuleak/plan/plan_html.py
$(BUILD)/libexec/gpuleak/plan/%: tools/plan/%
	@mkdir -p $(@D)
	cp $< $@.tmp && chmod $(if $(filter %.py,$@),0644,0755) $@.tmp && mv $@.tmp $@
