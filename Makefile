# gpuleak: one non-recursive Makefile; each directory adds its targets in
# its own module.mk.  Everything builds under $(BUILD) (default build/), laid
# out like an install prefix so the launcher finds ../lib/libgpuleak.so in
# both places.
#
#   make demo       install what is missing, build, run the demo (planted
#                   leaks, under the interposer, on fakecuda) and its report
#   make check      install what is missing, build, run every test; the last
#                   line is "N passed, N failed" (what .ci/run runs)
#   make            build the library, reporter, launcher, fakecuda, tests
#   make deps       install the Debian packages the build needs (idempotent)
#   make test       build and run every test (no install step)
#   make bench      install heaptrack if missing, build, run the benchmark
#                   (under 10 min; table on stdout, $(BUILD)/bench/bench.json;
#                   docs/performance.md).  Not part of test or check.
#   make install PREFIX=/usr/local
#   make SAN=asan BUILD=build-asan test   sanitizer builds (asan|tsan)
#   make fuzz FUZZ_SECONDS=600            libFuzzer campaign (tests/fuzz/module.mk)

CUDA_HOME ?= /usr/local/cuda
BUILD ?= build
# One spelling per build directory: BUILD=$PWD/build and BUILD=build are the
# same files, but make matches dependency files (-MMD) by the spelling they
# were made with, so a header change would not rebuild objects last compiled
# under the other one.  A directory inside the tree is always relative.
override BUILD := $(patsubst $(CURDIR)/%,%,$(abspath $(BUILD)))
PREFIX ?= /usr/local
SAN ?=
CC ?= cc

SAN_FLAGS_asan = -fsanitize=address,undefined -fno-sanitize-recover=undefined
SAN_FLAGS_tsan = -fsanitize=thread
SAN_FLAGS := $(SAN_FLAGS_$(SAN))

WARN = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# CFLAGS_EXTRA: flags added to every compile (make CFLAGS_EXTRA=-DFOO).
BASE_CFLAGS = -std=gnu11 -O2 -g -fno-omit-frame-pointer $(WARN) $(SAN_FLAGS) $(CFLAGS_EXTRA)
CUDA_INC = -isystem $(CUDA_HOME)/include
CPPFLAGS_COMMON = -Icommon -D_GNU_SOURCE

# Test and demo programs are built like users build theirs: -g, frame
# pointers, no inlining, against the real CUDA headers.
PROG_CFLAGS = -std=gnu11 -O0 -g -fno-omit-frame-pointer -fno-inline $(WARN) $(SAN_FLAGS) $(CUDA_INC) $(CFLAGS_EXTRA)

.PHONY: all deps test check demo install clean check-cuda bench check-aarch64
all:

# demo and check start with the install step, then build in a second make, so
# that a fresh machine needs nothing but these commands.
# The build runs in parallel (one job per core) unless -j was given.
demo:
	scripts/install-deps.sh
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc)) all
	scripts/demo.sh $(BUILD)

check:
	scripts/install-deps.sh
	-scripts/torch-env.sh  # real-torch tests skip, counted, with its line when this fails
	$(MAKE) all
	scripts/check.sh

bench:
	scripts/install-deps.sh
	scripts/bench.sh --setup
	$(MAKE) bench-build
	scripts/bench.sh $(BUILD)

test: all
	BUILD=$(BUILD) tests/run.sh

check-cuda:
	@test -f "$(CUDA_HOME)/include/cuda.h" -a -f "$(CUDA_HOME)/include/cuda_runtime_api.h" || \
	  { echo "error: CUDA headers not found under CUDA_HOME=$(CUDA_HOME) (need include/cuda.h and include/cuda_runtime_api.h); set CUDA_HOME" >&2; exit 1; }

deps:
	scripts/install-deps.sh

# AArch64 under emulation (scripts/check-aarch64.sh; not part of check).
check-aarch64: all
	scripts/check-aarch64.sh

# Which sanitizer this build tree has (read by tests/lib.sh); rewritten only
# when it changes.
all: $(BUILD)/.san
.PHONY: san-marker
$(BUILD)/.san: san-marker
	@mkdir -p $(@D); if [ ! -f $@ ] || { [ -n "$(SAN)" ] && [ "$$(cat $@)" != "$(SAN)" ]; }; then echo "$(SAN)" >$@; fi

# The flags every object is built with, written only when they change: each
# object depends on it, so a change of CC, CFLAGS_EXTRA, SAN, LOCK_CHECK or
# CUDA_HOME rebuilds everything instead of mixing old objects with new.
FLAGS_STAMP = $(BUILD)/.flags
FLAGS_NOW = $(CC) | $(CXX) | $(BASE_CFLAGS) | $(PROG_CFLAGS) | $(GL_OPT) | $(GL_LOCK_CHECK_FLAGS) | $(CUDA_HOME)
.PHONY: flags-stamp
$(FLAGS_STAMP): flags-stamp
	@mkdir -p $(@D); if [ "$$(cat $@ 2>/dev/null)" != '$(FLAGS_NOW)' ]; then printf '%s\n' '$(FLAGS_NOW)' >$@; fi

$(BUILD)/.cuda-ok: | check-cuda
	@mkdir -p $(@D) && touch $@

include interpose/module.mk
include report/module.mk
include tools/fakecuda/module.mk
include tools/module.mk
include tests/module.mk
include tests/fuzz/module.mk
include tests/bench/module.mk
include tests/rules.mk

# What tests/rules.mk cannot list: the objects of the other modules' own
# pattern rules, and their few single-step programs.
$(GL_OBJS) $(REPORT_OBJS) $(FC_DRV_OBJS) $(FC_RT_OBJS) $(FC_RTS_OBJS) $(FC_STUBS_OBJ) $(FC_OBJ)/nvml/fc_nvml.o \
	$(TOP_OBJS) $(LAUNCHER_OBJS) $(SNAPGEN_OBJS) $(BUILD)/libexec/gpuleak/gpuleak-tgkill $(BUILD)/lib/libgpuleak-nvtx.so: $(FLAGS_STAMP)

# Every test program, whichever module added it last: a rule's prerequisites
# are expanded when it is read, so an `all: $(TEST_PROGS)` inside a module
# misses what is added after it (t_ledger's program once was).
all: $(TEST_PROGS)

clean:
	rm -rf build build-asan build-tsan build-fuzz

# Docs keep the tree's layout under share/doc/gpuleak (README.md beside
# docs/ and tools/fakecuda/README.md), so the README's relative links work
# there too.  The man pages are the build's (tools/module.mk: the version
# and the reporter's section names filled in); gpuleak.pc gets the version
# of common/version.h (GPULEAK_VERSION, tools/module.mk).
DOCDIR = $(DESTDIR)$(PREFIX)/share/doc/gpuleak
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DOCDIR)/docs/img $(DOCDIR)/tools/fakecuda
	install -m 0755 $(BUILD)/lib/libgpuleak.so $(DESTDIR)$(PREFIX)/lib/libgpuleak.so
	install -m 0755 $(BUILD)/lib/libgpuleak-nvtx.so $(DESTDIR)$(PREFIX)/lib/libgpuleak-nvtx.so
	install -m 0755 $(BUILD)/bin/gpuleak-report $(DESTDIR)$(PREFIX)/bin/gpuleak-report
	install -m 0755 $(BUILD)/bin/gpuleak $(DESTDIR)$(PREFIX)/bin/gpuleak
	install -d $(DESTDIR)$(PREFIX)/libexec/gpuleak
	install -m 0755 $(BUILD)/libexec/gpuleak/gpuleak-tgkill $(DESTDIR)$(PREFIX)/libexec/gpuleak/gpuleak-tgkill
	install -m 0755 $(BUILD)/libexec/gpuleak/gpuleak-top $(DESTDIR)$(PREFIX)/libexec/gpuleak/gpuleak-top
	install -d $(DESTDIR)$(PREFIX)/libexec/gpuleak/plan
	install -m 0755 tools/plan/gpuleak-plan $(DESTDIR)$(PREFIX)/libexec/gpuleak/plan/gpuleak-plan
	install -m 0644 tools/plan/sitecustomize.py $(DESTDIR)$(PREFIX)/libexec/gpuleak/plan/sitecustomize.py
	install -m 0644 tools/plan/gpuleak_plan_peak.py $(DESTDIR)$(PREFIX)/libexec/gpuleak/plan/gpuleak_plan_peak.py
	install -m 0644 tools/plan/plan_html.py $(DESTDIR)$(PREFIX)/libexec/gpuleak/plan/plan_html.py
	install -m 0644 interpose/gpuleak.h $(DESTDIR)$(PREFIX)/include/gpuleak.h
	install -d $(DESTDIR)$(PREFIX)/lib/python
	install -m 0644 tools/gpuleak_memory.py $(DESTDIR)$(PREFIX)/lib/python/gpuleak_memory.py
	install -m 0644 tools/pytest_gpuleak.py $(DESTDIR)$(PREFIX)/lib/python/pytest_gpuleak.py
	install -m 0644 README.md $(DOCDIR)/README.md
	install -m 0644 docs/*.md $(DOCDIR)/docs/
	install -m 0644 docs/img/* $(DOCDIR)/docs/img/
	install -m 0644 tools/fakecuda/README.md $(DOCDIR)/tools/fakecuda/README.md
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 $(BUILD)/share/man/man1/gpuleak.1 $(BUILD)/share/man/man1/gpuleak-report.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	sed 's|@PREFIX@|$(PREFIX)|g; s/@VERSION@/$(GPULEAK_VERSION)/g' tools/gpuleak.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/gpuleak.pc
	install -m 0644 tools/gpuleak.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpuleak
