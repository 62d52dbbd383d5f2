/* clock_marks: three annotations ("a", "b", "c") with gaps of 30 ms and
 * 200 ms between them, and an allocation between each so that the marks sit
 * among events, timed on CLOCK_MONOTONIC by this program right before each
 * annotation and right after it; prints "b_a=LO,HI c_b=LO,HI": the
 * shortest and the longest each gap can be (a mark's time lies between its
 * two reads, however long the machine kept this thread off the CPU between
 * them).  tests/t_clock_line.sh checks the gaps between the marks' times in
 * the snapshot against them, which gpuleak took on its own clock
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

struct span {
    uint64_t before, after; /* CLOCK_MONOTONIC around the annotation */
};

/* An allocation (kept: the exit snapshot lists it), then the mark. */
static struct span mark(const char *label)
{
    void *p = NULL;
    if (cudaMalloc(&p, 4096) != cudaSuccess) {
        fprintf(stderr, "clock_marks: cudaMalloc failed\n");
        exit(1);
    }
    struct span t = {.before = now_ns()};
    if (gpuleak_annotate == NULL || gpuleak_annotate(label) != 0) {
        fprintf(stderr, "clock_marks: gpuleak_annotate(%s) failed\n", label);
        exit(1);
    }
    t.after = now_ns();
    return t;
}

static void print_gap(const char *name, struct span from, struct span to)
{
    printf("%s=%llu,%llu", name, (unsigned long long)(to.before - from.after),
           (unsigned long long)(to.after - from.before));
}

int main(void)
{
    struct span a = mark("a");
    usleep(30000);
    struct span b = mark("b");
    usleep(200000);
    struct span c = mark("c");
    print_gap("b_a", a, b);
    print_gap(" c_b", b, c);
    printf("\n");
    return 0;
}
