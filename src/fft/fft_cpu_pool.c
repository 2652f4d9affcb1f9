/* fft_cpu_pool: the cpu backend's threads. stft_db splits its frames over a pool made in
 * create(): the caller takes the first share, nthreads-1 workers the others, each with its
 * own scratch. nthreads is min(online CPUs, 8), fft_config.cpu_threads overrides (1 = no
 * threads), never above max_batch. Calls with nframes*n < 65536 run on the caller alone
 * (waking the pool costs more than it saves). */
#include "fft_cpu_internal.h"

#include <string.h>
#include <unistd.h>

#define CPU_THREADS_MAX_DEFAULT 8
#define CPU_THREAD_MIN_WORK 65536 /* nframes * n below which stft_db stays on the caller */

static void share_of(size_t nframes, size_t nthreads, size_t index, size_t *f0, size_t *f1)
{
    *f0 = nframes * index / nthreads;
    *f1 = nframes * (index + 1) / nthreads;
}

static void *worker_main(void *arg)
{
    cpu_worker *w = arg;
    cpu_state *st = w->st;
    unsigned long seen = 0;

    pthread_mutex_lock(&st->mu);
    for (;;) {
        while (!st->quit && st->gen == seen)
            pthread_cond_wait(&st->go, &st->mu);
        if (st->quit)
            break;
        seen = st->gen;
        cpu_job job = st->job;
        size_t f0, f1;
        share_of(st->job_nframes, st->nthreads, w->index, &f0, &f1);
        pthread_mutex_unlock(&st->mu);

        fft_cpu_range(st, w->re, w->im, w->row, &job, f0, f1);

        pthread_mutex_lock(&st->mu);
        if (--st->pending == 0)
            pthread_cond_signal(&st->done);
    }
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

/* min(online CPUs, 8), or the config's count; never more than the frames of a call. */
int fft_cpu_thread_count(const fft_config *cfg, size_t *out, sp_errinfo *ei)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus < 1 ? 1 : (size_t)cpus;

    if (t > CPU_THREADS_MAX_DEFAULT)
        t = CPU_THREADS_MAX_DEFAULT;
    if (cfg->tuning.cpu_threads < 0 || cfg->tuning.cpu_threads > FFT_CPU_THREADS_MAX)
        return sp_fail(ei, SP_EINVAL, "cpu FFT: %d threads: must be from 1 to %d (0: the default)",
                       cfg->tuning.cpu_threads, FFT_CPU_THREADS_MAX);
    if (cfg->tuning.cpu_threads > 0)
        t = (size_t)cfg->tuning.cpu_threads;
    if (t > cfg->max_batch)
        t = cfg->max_batch;
    *out = t;
    return SP_OK;
}

/* The worker threads (the calling thread is worker 0): their scratch, the pool's lock and
 * conditions, the threads. fft_cpu_pool_stop undoes what got done. */
int fft_cpu_pool_start(cpu_state *st, sp_errinfo *ei)
{
    st->workers = calloc(st->nthreads - 1, sizeof *st->workers);
    if (!st->workers)
        return sp_fail(ei, SP_ENOMEM, "out of memory for %zu CPU FFT threads", st->nthreads);
    for (size_t i = 0; i + 1 < st->nthreads; i++) {
        cpu_worker *w = &st->workers[i];
        w->st = st;
        w->index = i + 1;
        w->re = cpu_alloc(st->half, sizeof(float));
        w->im = cpu_alloc(st->half, sizeof(float));
        w->row = cpu_alloc(st->half + 1, sizeof(float));
        if (!w->re || !w->im || !w->row)
            return sp_fail(ei, SP_ENOMEM, "out of memory for the scratch of %zu CPU FFT threads (size %zu)",
                           st->nthreads, st->n);
    }
    if (pthread_mutex_init(&st->mu, NULL) != 0)
        return sp_fail(ei, SP_ENOMEM, "cannot create the CPU FFT thread pool");
    if (pthread_cond_init(&st->go, NULL) != 0) {
        pthread_mutex_destroy(&st->mu);
        return sp_fail(ei, SP_ENOMEM, "cannot create the CPU FFT thread pool");
    }
    if (pthread_cond_init(&st->done, NULL) != 0) {
        pthread_cond_destroy(&st->go);
        pthread_mutex_destroy(&st->mu);
        return sp_fail(ei, SP_ENOMEM, "cannot create the CPU FFT thread pool");
    }
    st->sync_ready = 1;
    for (size_t i = 0; i + 1 < st->nthreads; i++) {
        int rc = pthread_create(&st->workers[i].tid, NULL, worker_main, &st->workers[i]);
        if (rc != 0)
            return sp_fail(ei, SP_ENOMEM, "cannot start CPU FFT thread %zu of %zu: %s", i + 2, st->nthreads,
                           strerror(rc));
        st->nworkers++;
    }
    return SP_OK;
}

/* Joins the threads, then frees what fft_cpu_pool_start made, from wherever it stopped. */
void fft_cpu_pool_stop(cpu_state *st)
{
    if (st->sync_ready) {
        pthread_mutex_lock(&st->mu);
        st->quit = 1;
        pthread_cond_broadcast(&st->go);
        pthread_mutex_unlock(&st->mu);
        for (size_t i = 0; i < st->nworkers; i++)
            pthread_join(st->workers[i].tid, NULL);
        pthread_cond_destroy(&st->done);
        pthread_cond_destroy(&st->go);
        pthread_mutex_destroy(&st->mu);
    }
    if (st->workers) {
        for (size_t i = 0; i + 1 < st->nthreads; i++) {
            free(st->workers[i].re);
            free(st->workers[i].im);
            free(st->workers[i].row);
        }
        free(st->workers);
    }
}

/* Runs j over nframes frames: on the caller alone for small calls, else split over the
 * pool (the caller takes share 0). */
void fft_cpu_pool_run(cpu_state *st, const cpu_job *j, size_t nframes)
{
    size_t threads = st->nworkers + 1;
    if (threads == 1 || nframes < 2 || nframes * st->n < CPU_THREAD_MIN_WORK) {
        fft_cpu_range(st, st->re, st->im, st->row, j, 0, nframes);
        return;
    }
    /* Shares are fixed by nthreads; a call with fewer frames than threads gives some
     * workers an empty range. */
    pthread_mutex_lock(&st->mu);
    st->job = *j;
    st->job_nframes = nframes;
    st->pending = st->nworkers;
    st->gen++;
    pthread_cond_broadcast(&st->go);
    pthread_mutex_unlock(&st->mu);

    size_t f0, f1;
    share_of(nframes, st->nthreads, 0, &f0, &f1);
    fft_cpu_range(st, st->re, st->im, st->row, j, f0, f1);

    pthread_mutex_lock(&st->mu);
    while (st->pending)
        pthread_cond_wait(&st->done, &st->mu);
    pthread_mutex_unlock(&st->mu);
}
