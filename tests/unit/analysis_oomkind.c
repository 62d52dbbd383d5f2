/* Unit test of the out-of-memory classifier (report/analysis/oomkind.c):
 * each of the four kinds, the unknown cases and the borders between them,
 * with the numbers it gives.  oom_classify is pure: facts in, verdict out,
 * so no snapshot is built.  MiB figures are a 64 MiB device's. */
#include <stdio.h>
#include <string.h>

#include "analysis/oomkind.h"

#define MiB (1ull << 20)

static int failures;

static void expect(const char *what, struct oom_facts f, enum oom_kind kind, uint64_t elsewhere,
                   uint64_t missing, uint64_t cached)
{
    struct oom_verdict v = oom_classify(&f);
    if (v.kind != kind || v.elsewhere != elsewhere || v.missing != missing || v.cached != cached) {
        fprintf(stderr, "FAIL %s: got %s elsewhere %llu missing %llu cached %llu, want %s %llu %llu %llu\n", what,
                oom_kind_name(v.kind), (unsigned long long)v.elsewhere, (unsigned long long)v.missing,
                (unsigned long long)v.cached, oom_kind_name(kind), (unsigned long long)elsewhere,
                (unsigned long long)missing, (unsigned long long)cached);
        failures++;
    }
}

int main(void)
{
    /* exceeded: the process holds 60 of 64 MiB, the context 4, asks 12 */
    expect("exceeded", (struct oom_facts){.request = 12 * MiB, .free = 0, .total = 64 * MiB, .own = 60 * MiB},
           OOM_KIND_EXCEEDED, 4 * MiB, 12 * MiB, 0);
    /* more than the device has */
    expect("larger than the device",
           (struct oom_facts){.request = 128 * MiB, .free = 10 * MiB, .total = 64 * MiB, .own = 50 * MiB},
           OOM_KIND_EXCEEDED, 4 * MiB, 118 * MiB, 0);
    /* elsewhere: 44 MiB held outside, 12 own, 4 missing */
    expect("elsewhere", (struct oom_facts){.request = 12 * MiB, .free = 8 * MiB, .total = 64 * MiB, .own = 12 * MiB},
           OOM_KIND_ELSEWHERE, 44 * MiB, 4 * MiB, 0);
    /* border: elsewhere equal to what was missing and to own: elsewhere */
    expect("elsewhere, equal", (struct oom_facts){.request = 20 * MiB, .free = 0, .total = 40 * MiB, .own = 20 * MiB},
           OOM_KIND_ELSEWHERE, 20 * MiB, 20 * MiB, 0);
    /* one byte less held elsewhere than missing: exceeded */
    expect("elsewhere, 1 byte short", (struct oom_facts){.request = 20 * MiB + 1, .free = 0, .total = 40 * MiB, .own = 20 * MiB},
           OOM_KIND_EXCEEDED, 20 * MiB, 20 * MiB + 1, 0);
    /* elsewhere covers what was missing but the process holds more: exceeded */
    expect("own holds more", (struct oom_facts){.request = 8 * MiB, .free = 4 * MiB, .total = 64 * MiB, .own = 40 * MiB},
           OOM_KIND_EXCEEDED, 20 * MiB, 4 * MiB, 0);
    /* fragmentation: 60 reserved, 18 allocated, largest free 8, asks 12 */
    struct oom_facts frag = {.request = 12 * MiB, .free = 0, .total = 64 * MiB, .own = 60 * MiB, .torch = true,
                             .reserved = 60 * MiB, .allocated = 18 * MiB, .largest_free = 8 * MiB, .allowed = 64 * MiB};
    expect("fragmentation", frag, OOM_KIND_FRAGMENTATION, 4 * MiB, 12 * MiB, 42 * MiB);
    /* a free block exactly the request's size: not fragmentation */
    struct oom_facts fit = frag;
    fit.largest_free = 12 * MiB;
    expect("a block that fits", fit, OOM_KIND_EXCEEDED, 4 * MiB, 12 * MiB, 42 * MiB);
    /* cached exactly the request, no block: fragmentation; one byte less: not */
    struct oom_facts edge = frag;
    edge.allocated = 48 * MiB;
    expect("cached = request", edge, OOM_KIND_FRAGMENTATION, 4 * MiB, 12 * MiB, 12 * MiB);
    edge.allocated = 48 * MiB + 1;
    expect("cached = request - 1", edge, OOM_KIND_EXCEEDED, 4 * MiB, 12 * MiB, 12 * MiB - 1);
    /* fragmentation needs no driver view */
    struct oom_facts blind = frag;
    blind.total = blind.free = 0;
    expect("fragmentation without the driver", blind, OOM_KIND_FRAGMENTATION, 0, 0, 42 * MiB);
    /* setting: PyTorch may use 16 of 64 MiB, 48 free, asks 12 */
    struct oom_facts lim = {.request = 12 * MiB, .free = 48 * MiB, .total = 64 * MiB, .own = 12 * MiB, .torch = true,
                            .reserved = 12 * MiB, .allocated = 12 * MiB, .allowed = 16 * MiB};
    expect("setting", lim, OOM_KIND_SETTING, 4 * MiB, 0, 0);
    /* the limit, but the device had less free than asked: not the setting */
    lim.free = 11 * MiB;
    lim.own = 49 * MiB;
    expect("limit and short", lim, OOM_KIND_EXCEEDED, 4 * MiB, 1 * MiB, 0);
    /* no limit, the request was free: unknown (not in one piece, a pool) */
    expect("free but failed", (struct oom_facts){.request = 8 * MiB, .free = 10 * MiB, .total = 64 * MiB, .own = 50 * MiB},
           OOM_KIND_UNKNOWN, 4 * MiB, 0, 0);
    /* allowed equal to the total is no limit */
    expect("allowed = total", (struct oom_facts){.request = 8 * MiB, .free = 10 * MiB, .total = 64 * MiB, .own = 50 * MiB, .allowed = 64 * MiB},
           OOM_KIND_UNKNOWN, 4 * MiB, 0, 0);
    /* nothing known */
    expect("driver not known", (struct oom_facts){.request = 8 * MiB, .own = 50 * MiB}, OOM_KIND_UNKNOWN, 0, 0, 0);
    const char *names[] = {"unknown", "exceeded", "fragmentation", "elsewhere", "setting"};
    for (int k = 0; k <= OOM_KIND_SETTING; k++)
        if (strcmp(oom_kind_name((enum oom_kind)k), names[k]) != 0) {
            fprintf(stderr, "FAIL name %d: %s\n", k, oom_kind_name((enum oom_kind)k));
            failures++;
        }
    if (failures)
        return 1;
    printf("analysis_oomkind: all passed\n");
    return 0;
}
