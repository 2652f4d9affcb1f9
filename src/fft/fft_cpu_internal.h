/* fft_cpu's state, shared by its two files: fft_cpu.c (the transforms and the backend
 * table) and fft_cpu_pool.c (the threads that split stft_db's frames). Not for other
 * modules: they see fft_backend.h. */
#ifndef SPECTRO_FFT_CPU_INTERNAL_H
#define SPECTRO_FFT_CPU_INTERNAL_H

#include "fft_backend.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define CPU_ALIGN 64

typedef struct cpu_state cpu_state;

/* What a call asks of each frame: its dB row into db (NULL: into the thread's scratch
 * row), and with req its peak records. */
typedef struct {
    const float *signal;
    float *db;
    const fft_peak_req *req; /* NULL: spectra only */
    fft_peak_raw *peaks;
} cpu_job;

typedef struct {
    cpu_state *st;
    pthread_t tid;
    size_t index; /* share index, 1 .. nthreads-1 */
    float *re, *im; /* n/2 floats each */
    float *row;     /* n/2+1: the dB row of stft_reduce without db (pages touched on use) */
} cpu_worker;

struct cpu_state {
    size_t n, half, hop;
    unsigned log2n;
    int avx;                    /* levels with h >= 16 run 8-wide (AVX present, not disabled) */
    int avx2;                   /* stft_db's split and dB run 8-wide (AVX2 present, not disabled) */
    float *twr, *twi, *twi_inv; /* n floats each: w_h[j] at [h + j] */
    float *rtwr, *rtwi;         /* e^{-2 pi i k/n}, k = 0 .. n/4 (real post-processing) */
    uint32_t *rev4_full;        /* bit reversal of 4q in log2(n) bits, q < n/4 */
    uint32_t *rev4_half;        /* the same in log2(n/2) bits, q < n/8 */
    float *win;                 /* n */
    float *win_small;           /* n: win * 2^-BIG_SHIFT, for frames that overflow */
    float *scale2;              /* n/2+1 squared level scales (fft_level_scale^2) */
    float *re, *im;             /* caller's scratch, n floats each */
    float *row;                 /* caller's dB row for stft_reduce without db, n/2+1 */

    size_t nthreads;     /* including the caller */
    size_t nworkers;     /* started so far */
    cpu_worker *workers; /* nthreads-1 */
    int sync_ready;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned long gen; /* bumped for each job, under mu */
    size_t pending;    /* workers still busy on the current job */
    int quit;
    cpu_job job;
    size_t job_nframes;
};

/* count elements of size bytes, CPU_ALIGN-aligned; NULL on overflow or no memory */
static inline void *cpu_alloc(size_t count, size_t size)
{
    void *p = NULL;
    if (count == 0 || count > SIZE_MAX / size)
        return NULL;
    if (posix_memalign(&p, CPU_ALIGN, count * size) != 0)
        return NULL;
    return p;
}


/* stft_db / stft_reduce on frames [f0, f1) of j, with the thread's scratch re, im (n/2 floats
 * each) and its dB row scratch (n/2+1) (fft_cpu.c) */
void fft_cpu_range(const cpu_state *st, float *re, float *im, float *scratch, const cpu_job *j, size_t f0,
                   size_t f1);

/* fft_r2c_split and fft_r2c_power (fft.h) on a cpu state: frame x times w (NULL: none);
 * scale2 NULL: X_k into xr/xi, else |X_k|^2 scale2[k] into xr; k = 0 .. n/2. Uses the
 * state's scratch: one caller at a time. fft_power_db: the levels of stft_db. */
void fft_cpu_frame(void *state, const float *x, const float *w, const float *scale2, float *xr, float *xi);
void fft_cpu_power_db(void *state, float *v, size_t count);

/* The pool (fft_cpu_pool.c): the thread count for cfg (min(online CPUs, 8), or the
 * config's, never above max_batch); start the nthreads-1 workers; stop them and free what
 * start made, from wherever it stopped (cpu_destroy); run j over nframes frames, split over
 * the pool, or on the caller alone for small calls. */
int fft_cpu_thread_count(const fft_config *cfg, size_t *out, sp_errinfo *ei);
int fft_cpu_pool_start(cpu_state *st, sp_errinfo *ei);
void fft_cpu_pool_stop(cpu_state *st);
void fft_cpu_pool_run(cpu_state *st, const cpu_job *j, size_t nframes);

#endif
