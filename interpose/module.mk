# libgpuleak.so: the preloaded interposer.  Its sources sit in one folder per
# layer (interpose/LAYERS, lowest first; interpose/README.md says what each
# may use); every .c and .S in a layer folder is part of the library.
GL_LAYERS := $(shell sed "s/\#.*//; /^[[:space:]]*header[[:space:]]/d" interpose/LAYERS)
GL_SRCS := $(wildcard $(GL_LAYERS:%=interpose/%/*.c))
GL_ASM := $(wildcard $(GL_LAYERS:%=interpose/%/*.S))
GL_OBJS := $(GL_SRCS:interpose/%.c=$(BUILD)/obj/interpose/%.o) $(GL_ASM:interpose/%.S=$(BUILD)/obj/interpose/%.o)
GL_LIB := $(BUILD)/lib/libgpuleak.so

# Hidden by default: only hooks and the public API carry GL_EXPORT.
# Includes name the layer folder ("state/track.h"), hence -Iinterpose.
# The lock-order check (interpose/base/lock.c, ranks in base/lock_rank.h) is
# on in sanitizer builds, or with LOCK_CHECK=1 (a change of it rebuilds
# everything: $(BUILD)/.flags, Makefile); compiled out otherwise.
GL_LOCK_CHECK_FLAGS = $(if $(SAN)$(LOCK_CHECK),-DGL_LOCK_CHECK)
# Release builds are optimised across files (-flto) and at -O3: an event's
# path runs through a dozen small functions in as many files (hooks, where,
# calls, track, account, lanes, events), one job each, and their calls'
# set-up was ~15% of light mode's own cost a pair (docs/performance.md,
# "Compiled across files").  Sanitizer builds are not, so that what they
# check is compiled as written.
GL_OPT = $(if $(SAN),,-O3 -flto=auto)
GL_CFLAGS = $(BASE_CFLAGS) $(GL_OPT) -fPIC -fvisibility=hidden $(CUDA_INC) -Iinterpose $(CPPFLAGS_COMMON) $(GL_LOCK_CHECK_FLAGS)
# No libcuda/libcudart here, ever: the real ones are found at run time.
# libunwind-x86_64 is libunwind's generic (remote-capable) API, which the
# stack cache's recording walker needs (capture/stack_cache.c); x86_64 only.
GL_UNWIND_GENERIC := $(if $(filter x86_64,$(shell uname -m)),-lunwind-x86_64)
# libm: light mode's exponential draws (capture/sample.c).
GL_LDLIBS = $(GL_UNWIND_GENERIC) -lunwind -ldl -lpthread -lm

all: $(GL_LIB)

# -MMD -MP: each object depends on the headers it really includes (the .d
# files below), so touching one header rebuilds only its users.
$(BUILD)/obj/interpose/%.o: interpose/%.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(GL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/interpose/%.o: interpose/%.S
	@mkdir -p $(@D)
	$(CC) -MMD -MP -c $< -o $@

$(GL_LIB): $(GL_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) $(BASE_CFLAGS) $(GL_OPT) -Wl,-soname,libgpuleak.so -Wl,-z,defs -Wl,-z,now -o $@ $^ $(GL_LDLIBS)

-include $(GL_OBJS:.o=.d)
