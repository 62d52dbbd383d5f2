/* clock_marks: three annotations ("a", "b", "c") with gaps of 30 ms and
 * 200 ms between them, and an allocation between each so that the marks sit
 * among events, timed on CLOCK_MONOTONIC by this program right before each
 * annotation; prints "b_a=NS c_b=NS", the gaps it measured.
 * tests/t_clock_line.sh compares them with the gaps between the marks'
 * times in the snapshot, which gpuleak took on its own clock
 * (interpose/base/clock.h): the first gap spans the switch from the kernel's
 * clock to the fitted TSC (due 10 ms after tracking starts), the second
 * lies on the TSC alone. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

int gpuleak_annotate(const char *label) __attribute__((weak));

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An allocation (kept: the exit snapshot lists it), then the mark. */
static uint64_t mark(const char *label)
{
    void *p = NULL;
    if (cudaMalloc(&p, 4096) != cudaSuccess) {
        fprintf(stderr, "clock_marks: cudaMalloc failed\n");
        exit(1);
    }
    uint64_t t = now_ns();
    if (gpuleak_annotate == NULL || gpuleak_annotate(label) != 0) {
        fprintf(stderr, "clock_marks: gpuleak_annotate(%s) failed\n", label);
        exit(1);
    }
    return t;
}

int main(void)
{
    uint64_t a = mark("a");
    usleep(30000);
    uint64_t b = mark("b");
    usleep(200000);
    uint64_t c = mark("c");
    printf("b_a=%llu c_b=%llu\n", (unsigned long long)(b - a), (unsigned long long)(c - b));
    return 0;
}
