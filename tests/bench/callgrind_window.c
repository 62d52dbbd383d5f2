/* make bench, section 7's instruction counts (scripts/bench-torch-instr.sh):
 * the window a Python benchmark measures, told to callgrind from inside the
 * process.  The process runs under `valgrind --tool=callgrind
 * --instr-atstart=no`: nothing is counted (and the import of torch runs
 * uninstrumented, several times faster) until window_open(); window_close()
 * stops counting and dumps.  Loaded with ctypes by bench_torch_step.py
 * (BENCH_TORCH_CALLGRIND=this library); outside valgrind the requests are
 * no-ops. */
#include <valgrind/callgrind.h>

void window_open(void);
void window_close(void);

__attribute__((visibility("default"))) void window_open(void)
{
    CALLGRIND_ZERO_STATS;
    CALLGRIND_START_INSTRUMENTATION;
}

__attribute__((visibility("default"))) void window_close(void)
{
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_DUMP_STATS_AT("window");
}
