# Fuzzing (tests/fuzz/): one harness per input parser, each a
# LLVMFuzzerTestOneInput.  Included from the top-level Makefile.
#
#   make                 also builds $(BUILD)/tests/fuzz/replay_<target>: the
#                        harness with a plain main() that replays files
#                        (tests/t_fuzz_regressions.sh: seed corpus and
#                        regression inputs, under every build incl. sanitizers)
#   make fuzz            builds the libFuzzer targets with clang into
#                        $(FUZZ_BUILD) and runs each for FUZZ_SECONDS
#                        (scripts/fuzz.sh; crashes land in $(FUZZ_BUILD)/crashes)
#   make fuzz-build      only builds them
FUZZ_TARGETS = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
              $(REPORT_CPPFLAGS) $(CUDA_INC) -Iinterpose

# What each harness links: the parser's own sources, nothing else.
FUZZ_SRCS_snap = report/model/snap_read.c
FUZZ_SRCS_supp = report/model/suppress.c report/util/xalloc.c
FUZZ_SRCS_env = interpose/base/config.c interpose/base/log.c interpose/base/clock.c interpose/control/outfile.c
FUZZ_SRCS_outname = interpose/base/config.c interpose/base/log.c interpose/base/clock.c interpose/control/outfile.c
# the reporter behind its command line: everything but cli/main.c
FUZZ_SRCS_report = $(filter-out report/cli/main.c,$(REPORT_SRCS))
FUZZ_SRCS_live = tools/top/live_read.c
FUZZ_LIBS_report = $(REPORT_LIBS)

fuzz_objs = $(addprefix $(BUILD)/obj/,$(FUZZ_SRCS_$(1):.c=.o))
FUZZ_REPLAY = $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz/replay_%)
all: $(FUZZ_REPLAY)

FUZZ_HCFLAGS = $(BASE_CFLAGS) $(REPORT_CPPFLAGS) $(CUDA_INC) -Iinterpose
# -MMD: a harness includes the reporter's and the interposer's headers, whose
# structs it shares; a stale object would disagree with them about layouts.
$(BUILD)/obj/tests/fuzz/%.o: tests/fuzz/%.c tests/fuzz/fuzz.h | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(FUZZ_HCFLAGS) -MMD -MP -c $< -o $@
-include $(FUZZ_TARGETS:%=$(BUILD)/obj/tests/fuzz/fuzz_%.d) $(BUILD)/obj/tests/fuzz/replay_main.d

.SECONDEXPANSION:
$(BUILD)/tests/fuzz/replay_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/replay_main.o \
		$$(call fuzz_objs,$$*)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $^ -o $@ $(FUZZ_LIBS_$*)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $$(FUZZ_SRCS_$$*) $(wildcard report/*/*.h report/*/*/*.h interpose/*/*.h) \
		$(wildcard common/*.h) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(filter %.c,$^) -o $@ $(FUZZ_LIBS_$*)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
fuzz: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_TARGETS)
.PRECIOUS: $(BUILD)/obj/tests/fuzz/%.o
