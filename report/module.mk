# gpuleak-report, the reporter, and the test programs that exercise it.
# Included from the top-level Makefile (paths are relative to the root).

REPORT_SRCS = report/main.c report/run.c report/snap_read.c report/snap_load.c report/symbolize.c report/xalloc.c \
              report/fold.c report/suppress.c report/stackdb.c report/bad_frees.c report/bad_free_block.c report/bad_frees_multi.c report/sites_multi.c report/teardown_multi.c report/diff_devices.c report/oom.c report/calls.c report/teardown.c \
              report/analyze.c report/history.c report/frag.c report/radix.c \
              report/multi.c report/mtable.c report/leaks_merge.c report/prepare.c report/fmt.c report/json.c \
              report/textout.c report/output_text.c report/text_sections.c \
              report/output_json.c report/json_sections.c report/folded.c \
              report/output_multi.c \
              report/html.c report/html_assets.c report/torch_snapshot.c
REPORT_OBJS = $(REPORT_SRCS:%.c=$(BUILD)/obj/%.o)

# the page's script and style are .incbin'd into html_assets.o
$(BUILD)/obj/report/html_assets.o: report/html/ticks.js report/html/report.js report/html/report.css
REPORT_LIBS = -ldw -lelf -lstdc++

all: $(BUILD)/bin/gpuleak-report $(BUILD)/tests/snapgen $(BUILD)/tests/snapfuzz

$(BUILD)/obj/report/%.o: report/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CPPFLAGS_COMMON) -MMD -MP -c $< -o $@

$(BUILD)/bin/gpuleak-report: $(REPORT_OBJS)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $^ -o $@ $(REPORT_LIBS)

# Snapshot generator: built like a user program (-O0 -g, no inlining) so the
# return addresses it records map to exact lines of its own source.  The C++
# part is compiled without exceptions/RTTI so linking needs no libstdc++.
SNAPGEN_OPT = -O0 -fno-inline
SNAPGEN_CFLAGS = -std=gnu11 $(SNAPGEN_OPT) -g -fno-omit-frame-pointer $(WARN) $(SAN_FLAGS)
SNAPGEN_CXXFLAGS = -std=gnu++17 -O0 -g -fno-omit-frame-pointer -fno-inline \
                   -fno-exceptions -fno-rtti -Wall -Wextra -Werror -Wshadow $(SAN_FLAGS)
CXX ?= g++

$(BUILD)/obj/tests/report/%.o: tests/report/%.c
	@mkdir -p $(@D)
	$(CC) $(SNAPGEN_CFLAGS) $(CPPFLAGS_COMMON) -Itests/report -MMD -MP -c $< -o $@

$(BUILD)/obj/tests/report/%.o: tests/report/%.cc
	@mkdir -p $(@D)
	$(CXX) $(SNAPGEN_CXXFLAGS) $(CPPFLAGS_COMMON) -Itests/report -MMD -MP -c $< -o $@

SNAPGEN_OBJS = $(BUILD)/obj/tests/report/snapgen.o \
               $(BUILD)/obj/tests/report/snapwrite.o \
               $(BUILD)/obj/tests/report/snapgen_cxx.o \
               $(BUILD)/obj/tests/report/snapgen_inl.o

# the inlining test needs real inlining
$(BUILD)/obj/tests/report/snapgen_inl.o: SNAPGEN_OPT = -O2

$(BUILD)/tests/snapgen: $(SNAPGEN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SNAPGEN_CFLAGS) -Wl,--build-id $^ -o $@

# In-process robustness driver for the reader: every truncation and many
# byte mutations of a snapshot, through snap_parse (the fuzzing entry point).
$(BUILD)/tests/snapfuzz: $(BUILD)/obj/tests/report/snapfuzz.o $(BUILD)/obj/report/snap_read.o
	@mkdir -p $(@D)
	$(CC) $(SNAPGEN_CFLAGS) $^ -o $@

-include $(REPORT_OBJS:.o=.d) $(SNAPGEN_OBJS:.o=.d) $(BUILD)/obj/tests/report/snapfuzz.d

# make bench-report: the reporter's speed on a 1M-allocation / 20k-stack /
# 1M-event snapshot (scripts/bench-report.sh prints wall time and max RSS);
# `make bench` runs it too, as part of scripts/bench.sh.
.PHONY: bench-report
bench-report: $(BUILD)/bin/gpuleak-report $(BUILD)/tests/snapgen
	scripts/bench-report.sh $(BUILD)
