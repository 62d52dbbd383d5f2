#include "resolve/real_table.h"

#include <stddef.h>

#define DEFINE(n) struct gl_real gl_real_##n = {#n, NULL, GL_REAL_ID_##n, 0};
GL_ALL_HOOKS(DEFINE)
#undef DEFINE

static struct gl_real *const all[] = {
#define ENTRY(n) &gl_real_##n,
    GL_ALL_HOOKS(ENTRY)
#undef ENTRY
};

void gl_real_table_each(void (*fn)(struct gl_real *real))
{
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        fn(all[i]);
}
