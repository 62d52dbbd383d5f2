# gpuleak-report, the reporter, and the test programs that exercise it.
# Included from the top-level Makefile (paths are relative to the root).

# Sources are found by folder: every .c under report/, whatever its depth.
# One folder per layer (report/LAYERS, lowest first; report/README.md says
# what each may use), render/ with one folder per output format.  Objects
# mirror the tree under $(BUILD)/obj/report/.
report_rwildcard = $(foreach d,$(wildcard $(1:=/*)),$(call report_rwildcard,$d,$2) $(filter $(subst *,%,$2),$d))
REPORT_SRCS = $(sort $(call report_rwildcard,report,*.c))
REPORT_OBJS = $(REPORT_SRCS:%.c=$(BUILD)/obj/%.o)
# Includes name the folder ("model/stackdb.h"); snapshot_format.h and
# version.h come from common/.
REPORT_CPPFLAGS = -Ireport $(CPPFLAGS_COMMON)

# the page's script and style are .incbin'd into html_assets.o (the compiler's
# -MMD does not see .incbin): it depends on every part, listed or not
$(BUILD)/obj/report/render/html/html_assets.o: $(wildcard report/render/html/*.js report/render/html/js/*.js) \
                                               report/render/html/report.css
# libm: the scaling of sampled stacks (analysis/analyze.c)
REPORT_LIBS = -ldw -lelf -lstdc++ -lz -lm

all: $(BUILD)/bin/gpuleak-report $(BUILD)/tests/snapgen $(BUILD)/tests/snapfuzz

$(BUILD)/obj/report/%.o: report/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(REPORT_CPPFLAGS) -MMD -MP -c $< -o $@

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
	$(CC) $(SNAPGEN_CFLAGS) $(REPORT_CPPFLAGS) -Itests/report -MMD -MP -c $< -o $@

$(BUILD)/obj/tests/report/%.o: tests/report/%.cc
	@mkdir -p $(@D)
	$(CXX) $(SNAPGEN_CXXFLAGS) $(REPORT_CPPFLAGS) -Itests/report -MMD -MP -c $< -o $@

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
$(BUILD)/tests/snapfuzz: $(BUILD)/obj/tests/report/snapfuzz.o $(BUILD)/obj/report/model/snap_read.o
	@mkdir -p $(@D)
	$(CC) $(SNAPGEN_CFLAGS) $^ -o $@

# Unit test of the one JSON writer: links its own layer and the one below.
all: $(BUILD)/tests/report_json_unit
$(BUILD)/tests/report_json_unit: $(BUILD)/obj/tests/report/json_writer.o \
		$(BUILD)/obj/report/render/json/json.o $(BUILD)/obj/report/util/utf8.o
	@mkdir -p $(@D)
	$(CC) $(SNAPGEN_CFLAGS) $^ -o $@

-include $(REPORT_OBJS:.o=.d) $(BUILD)/obj/tests/report/json_writer.d $(SNAPGEN_OBJS:.o=.d) $(BUILD)/obj/tests/report/snapfuzz.d

# make bench-report: the reporter's speed on a 1M-allocation / 20k-stack /
# 1M-event snapshot (scripts/bench-report.sh prints wall time and max RSS);
# `make bench` runs it too, as part of scripts/bench.sh.
.PHONY: bench-report
bench-report: $(BUILD)/bin/gpuleak-report $(BUILD)/tests/snapgen
	scripts/bench-report.sh $(BUILD)
