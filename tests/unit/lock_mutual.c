/* Unit test of libgpuleak's lock itself (interpose/base/lock.h), as the
 * build made it: in a release build the futex word of base/futex_lock.c,
 * in a sanitizer build the checked pthread mutex (so TSan watches the
 * same accesses).  Prints "ok" or the first thing that went wrong:
 *  - exclusion: 4 threads add 1 to a plain counter 200,000 times each
 *    under one lock (a lane's class), with a yield now and then inside so
 *    that waiters sleep in the futex: exactly 800,000;
 *  - try: gl_trylock fails while another thread holds the lock, and holds
 *    it once that thread let it go;
 *  - recursion: the recursive class (WALK) taken three deep is still held
 *    (another thread's try fails) until the third release, and the other
 *    thread then takes it;
 *  - re-made: a lock held at fork is free in the child once gl_lock_init
 *    re-made it, as fork's child handlers do. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/lock.h"

GL_TLS int gl_busy; /* base/self.c's, which this test does not link */
GL_TLS _Atomic int gl_busy_deferred;
void gl_busy_deferred_run(void) {}

#define THREADS 4
#define ADDS 200000

static struct gl_lock counter_lock = GL_LOCK_INIT_KEY(LANE, 1);
static unsigned long counter; /* only under counter_lock */
static struct gl_lock walk = GL_LOCK_INIT_RECURSIVE(WALK);

static void *add(void *arg)
{
    (void)arg;
    for (int i = 0; i < ADDS; i++) {
        gl_lock(&counter_lock);
        unsigned long c = counter;
        if (i % 4096 == 0)
            sched_yield(); /* hold it a while: the others wait, some in the kernel */
        counter = c + 1;
        gl_unlock(&counter_lock);
    }
    return NULL;
}

/* Another thread's gl_trylock of l: 1 if it got it (and let it go). */
static void *try_other(void *l)
{
    if (!gl_trylock(l))
        return (void *)0;
    gl_unlock(l);
    return (void *)1;
}

static int other_thread_gets(struct gl_lock *l)
{
    pthread_t t;
    void *got;
    if (pthread_create(&t, NULL, try_other, l) != 0 || pthread_join(t, &got) != 0)
        return -1;
    return got != NULL;
}

static int fail(const char *what)
{
    printf("%s\n", what);
    return 1;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, add, NULL) != 0)
            return fail("pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    if (counter != (unsigned long)THREADS * ADDS) {
        printf("exclusion: %lu, not %lu\n", counter, (unsigned long)THREADS * ADDS);
        return 1;
    }

    gl_lock(&counter_lock);
    if (other_thread_gets(&counter_lock) != 0)
        return fail("try: another thread took a held lock");
    gl_unlock(&counter_lock);
    if (other_thread_gets(&counter_lock) != 1)
        return fail("try: another thread could not take a free lock");

    gl_lock(&walk);
    gl_lock(&walk);
    if (!gl_trylock(&walk))
        return fail("recursion: its holder's try failed");
    gl_unlock(&walk);
    gl_unlock(&walk);
    if (other_thread_gets(&walk) != 0)
        return fail("recursion: another thread took it while held once");
    gl_unlock(&walk);
    if (other_thread_gets(&walk) != 1)
        return fail("recursion: not free after the last release");

    /* Held at fork: the child re-makes it, as fork's child handlers do,
     * and a thread of the child's then takes it.  Not under TSan, whose
     * model keeps a mutex held across pthread_mutex_init (t_fork covers
     * the child handlers there). */
#ifndef __SANITIZE_THREAD__
    gl_lock(&counter_lock);
    pid_t pid = fork();
    if (pid == 0) {
        gl_lock_init(&counter_lock, GL_LOCK_LANE, 1);
        _exit(other_thread_gets(&counter_lock) == 1 ? 0 : 1);
    }
    gl_unlock(&counter_lock);
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail("re-made: the child could not take it");
#endif
    puts("ok");
    return 0;
}
