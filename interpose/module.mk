# libgpuleak.so: the preloaded interposer.
GL_SRCS := $(wildcard interpose/*.c)
GL_ASM := $(wildcard interpose/*.S)
GL_OBJS := $(GL_SRCS:interpose/%.c=$(BUILD)/obj/interpose/%.o) $(GL_ASM:interpose/%.S=$(BUILD)/obj/interpose/%.o)
GL_LIB := $(BUILD)/lib/libgpuleak.so

# Hidden by default: only hooks and the public API carry GL_EXPORT.
GL_CFLAGS = $(BASE_CFLAGS) -fPIC -fvisibility=hidden $(CUDA_INC) -Iinterpose $(CPPFLAGS_COMMON)
# No libcuda/libcudart here, ever: the real ones are found at run time.
GL_LDLIBS = -lunwind -ldl -lpthread

all: $(GL_LIB)

$(BUILD)/obj/interpose/%.o: interpose/%.c $(wildcard interpose/*.h) common/snapshot_format.h | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(GL_CFLAGS) -c $< -o $@

$(BUILD)/obj/interpose/%.o: interpose/%.S
	@mkdir -p $(@D)
	$(CC) -c $< -o $@

$(GL_LIB): $(GL_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared $(SAN_FLAGS) -Wl,-soname,libgpuleak.so -Wl,-z,defs -Wl,-z,now -o $@ $^ $(GL_LDLIBS)
