/* Fuzz target: the suppressions-file parser and matcher (report/model/suppress.c,
 * gpuleak-report --suppressions FILE).  Properties: no crash, no leak, no
 * undefined behaviour; a rejected file gets a one-line "LINE: problem"
 * error; the rules of an accepted one can be matched against stacks (the
 * matcher must stay fast on patterns full of "..." and '*'). */
#include <stdbool.h>
#include <string.h>

#include "model/suppress.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    struct suppressions sp = {0};
    char err[256] = "";
    if (supp_parse(&sp, text, false, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL, "bad error message '%s'", err);
    } else {
        supp_add_defaults(&sp);
        static const struct sym_frame f[] = {
            {.function = "cudaMalloc", .file = "hooks.c", .line = 10, .module = "libcudart.so.13",
             .module_index = 0, .address = 0x1000, .offset = 0x100},
            {.function = "c10::cuda::CUDACachingAllocator::malloc(void**, long)", .file = "alloc.cpp",
             .line = 99, .module = "libc10_cuda.so", .module_index = 1, .address = 0x2000, .offset = 0x200,
             .inlined = true},
            {.module_index = -1, .address = 0x3000},
            {.function = "main", .file = "/src/train/main.c", .line = 42, .module = "train", .module_index = 2,
             .address = 0x4000, .offset = 0x400},
            {.function = "rmm::mr::pool_memory_resource<x>::do_allocate", .module = "librmm.so",
             .module_index = 1, .address = 0x5000, .offset = 0x50},
        };
        const struct sym_frame *fr[64];
        for (size_t i = 0; i < 64; i++)
            fr[i] = &f[i % (sizeof f / sizeof f[0])];
        static const char *const paths[] = {"/usr/lib/libcudart.so.13", "/opt/torch/lib/libc10_cuda.so",
                                            "/src/train/train"};
        for (size_t n = 0; n <= 64; n += 7) {
            int m = supp_match(&sp, fr, n, paths, 3);
            FUZZ_CHECK(m >= -1 && (m < 0 || (size_t)m < sp.n), "match index %d of %zu rules", m, sp.n);
        }
    }
    supp_free(&sp);
    free(text);
    return 0;
}
