#include "par.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

/* The pool: threads-1 helpers wait for a new generation, run their part, count down. Static
 * storage: nothing to free at exit (the helpers are blocked in a wait then). */
static struct {
    pthread_once_t once;
    pthread_mutex_t run_mu; /* held by the one caller whose run the helpers serve */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen;
    int threads; /* helpers + the caller; 1: no pool */
    int parts, pending;
    sp_par_fn fn;
    void *ctx;
} pool = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
          PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 1, 0, 0, NULL, NULL};

/* How long a helper polls for the next run after its part before it sleeps: a dense run's
 * blocks come every 100-300 us (its FFT call between them), two runs each, and a wake-up from
 * the condition variable costs tens of microseconds on a busy host. */
#define SPIN_S 300e-6

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 1 when a run newer than `seen` started within the spin (gen read without the lock: a hint,
 * confirmed under it). */
static int spin_for_run(unsigned long seen)
{
    double until = mono_now() + SPIN_S;
    for (unsigned i = 1;; i++) {
        if (__atomic_load_n(&pool.gen, __ATOMIC_RELAXED) != seen)
            return 1;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (i % 64 == 0 && mono_now() > until)
            return 0;
    }
}

static void *helper_main(void *arg)
{
    int id = (int)(size_t)arg; /* 1 .. threads-1 */
    unsigned long seen = 0;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        if (pool.gen == seen && seen != 0) {
            pthread_mutex_unlock(&pool.mu);
            spin_for_run(seen);
            pthread_mutex_lock(&pool.mu);
        }
        while (pool.gen == seen)
            pthread_cond_wait(&pool.go, &pool.mu);
        seen = pool.gen;
        if (id < pool.parts) {
            sp_par_fn fn = pool.fn;
            void *ctx = pool.ctx;
            int parts = pool.parts;
            pthread_mutex_unlock(&pool.mu);
            fn(ctx, id, parts);
            pthread_mutex_lock(&pool.mu);
            if (--pool.pending == 0)
                pthread_cond_signal(&pool.done);
        }
    }
    return NULL;
}

static void pool_start(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cpus < 1 ? 1 : cpus > SP_PAR_MAX ? SP_PAR_MAX : (int)cpus;
    pthread_attr_t attr;
    int made = 1;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, (size_t)256 << 10);
    for (; made < want; made++) {
        pthread_t t;
        if (pthread_create(&t, &attr, helper_main, (void *)(size_t)made) != 0)
            break; /* fewer helpers: the parts adapt */
    }
    pthread_attr_destroy(&attr);
    pool.threads = made;
}

int sp_par_parts(size_t items, size_t min_items)
{
    size_t parts;
    pthread_once(&pool.once, pool_start);
    parts = min_items ? items / min_items : items;
    if (parts > (size_t)pool.threads)
        parts = (size_t)pool.threads;
    return parts < 1 ? 1 : (int)parts;
}

void sp_par_share(size_t items, int part, int parts, size_t *begin, size_t *end)
{
    *begin = items * (size_t)part / (size_t)parts;
    *end = items * (size_t)(part + 1) / (size_t)parts;
}

static void run_inline(sp_par_fn fn, void *ctx, int parts)
{
    for (int p = 0; p < parts; p++)
        fn(ctx, p, parts);
}

void sp_par_run(sp_par_fn fn, void *ctx, int parts)
{
    pthread_once(&pool.once, pool_start);
    if (parts <= 1 || parts > pool.threads || pthread_mutex_trylock(&pool.run_mu) != 0) {
        run_inline(fn, ctx, parts < 1 ? 1 : parts);
        return;
    }
    pthread_mutex_lock(&pool.mu);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.parts = parts;
    pool.pending = parts - 1;
    __atomic_store_n(&pool.gen, pool.gen + 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.mu);
    fn(ctx, 0, parts);
    pthread_mutex_lock(&pool.mu);
    while (pool.pending > 0)
        pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.run_mu);
}
