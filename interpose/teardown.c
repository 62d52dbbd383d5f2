#include "teardown.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_format.h"

/* Teardowns are rare and drop their records in one pass, so a plain array
 * under a mutex (the copy runs on the writer thread, outside the exclusive
 * section). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct gl_teardown table[GL_TEARDOWN_MAX];
static size_t used;

void gl_teardown_note(uint32_t stack_id, int32_t device, uint16_t kind, uint16_t api, uint64_t bytes,
                      uint16_t teardown, uint64_t time_ns)
{
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < used && !(table[i].stack_id == stack_id && table[i].device == device && table[i].kind == kind &&
                         table[i].api == api && table[i].teardown == teardown))
        i++;
    if (i < used) {
        table[i].bytes = table[i].bytes + bytes < table[i].bytes ? UINT64_MAX : table[i].bytes + bytes;
        table[i].count++;
    } else if (used < GL_TEARDOWN_MAX) {
        table[used++] = (struct gl_teardown){.bytes = bytes, .count = 1, .time_ns = time_ns, .stack_id = stack_id,
                                             .device = device, .kind = kind, .api = api, .teardown = teardown};
    }
    pthread_mutex_unlock(&lock);
}

struct gl_teardown *gl_teardown_copy(size_t *n)
{
    pthread_mutex_lock(&lock);
    *n = used;
    struct gl_teardown *out = used ? malloc(used * sizeof *out) : NULL;
    if (out != NULL)
        memcpy(out, table, used * sizeof *out);
    else
        *n = 0;
    pthread_mutex_unlock(&lock);
    return out;
}

void gl_teardown_postfork_child(void)
{
    /* Another thread may have held the lock at fork.  What the parent leaked
     * until a teardown is the parent's, as its live records are (the child
     * starts with an empty table, track.c). */
    pthread_mutex_init(&lock, NULL);
    used = 0;
}
