# make bench: workloads and the O(1) stand-in runtime (scripts/bench.sh,
# docs/performance.md).  Built only by `make bench` / `make bench-build`, never
# by `make` or `make test`.
BENCH_DIR = $(BUILD)/bench
BENCH_PROGS = $(BENCH_DIR)/bench_work $(BENCH_DIR)/fastcuda/libcudart.so.13 $(BENCH_DIR)/callgrind_window.so

.PHONY: bench-build
bench-build: all $(BENCH_PROGS)

# Like a user's program: -O0 -g, frame pointers, no inlining (PROG_CFLAGS).
$(BENCH_DIR)/bench_work: tests/bench/bench_work.c $(FAKECUDA_RT_DEPS) | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -L$(FAKECUDA_DIR) -lcudart -lunwind -ldl -lpthread

$(BENCH_DIR)/fastcuda/libcudart.so.13: tests/bench/fastcuda.c | $(BUILD)/.cuda-ok
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CUDA_INC) -fPIC -shared -Wl,-soname,libcudart.so.13 -o $@ $<

# valgrind's client requests (valgrind's headers come with the valgrind
# package, which scripts/bench.sh --setup installs).
$(BENCH_DIR)/callgrind_window.so: tests/bench/callgrind_window.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -fPIC -shared -o $@ $<
