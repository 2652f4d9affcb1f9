/* test_util: what the test programs share instead of each keeping a copy (libsndfile's
 * tests/utils.tpl): the run's seed and its random numbers, a scratch directory, hand-made
 * WAV files, FFT plans, a double-precision DFT reference and NaN poisoning. Built into the
 * static library spectro_testutil, which every spectro_test() program links.
 *
 * check.h stays the assertion header; its two counters are defined in test_util.c, so a
 * check that fails inside a helper here (tu_plan) fails the program that called it.
 * Single-threaded, as the tests' main threads are; rng_next_at serves other threads. */
#ifndef SPECTRO_TEST_UTIL_H
#define SPECTRO_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fft.h"

/* ---- the run's seed and random numbers (xorshift64*) ---------------------------------- */

/* Seeds the random numbers from SPECTRO_TEST_SEED (any base strtoull reads) or, unset or
 * empty, from the clock and the process id; prints "NAME: seed S (SPECTRO_TEST_SEED to
 * repeat)" and returns S, so that SPECTRO_TEST_SEED=S replays the run. */
uint64_t tu_seed(const char *name);

uint64_t rng_next(void);
size_t rng_range(size_t lo, size_t hi); /* uniform in [lo, hi] */
double rng_unit(void);                  /* uniform in [0, 1), 53 bits */
double rng_signed(void);                /* uniform in [-1, 1) */
/* The same generator on a state of the caller's (a thread's own stream); *state != 0. */
uint64_t rng_next_at(uint64_t *state);
size_t rng_range_at(uint64_t *state, size_t lo, size_t hi);

/* The prologue of a test that writes little-endian files into a scratch directory:
 * tu_seed(name); on a big-endian host a line saying so; then the directory, named after
 * `name` less its "test_" (tu_tmpdir_make). 0 to go on, else main's exit code: 77 when
 * skipped, 1 without a directory. */
int tu_begin_files(const char *name);

/* ---- a scratch directory -------------------------------------------------------------- */

/* Makes $TMPDIR/spectro-test-NAME-XXXXXX (/tmp when TMPDIR is unset) with mkdtemp; 0, or
 * -1 after perror. One a program. */
int tu_tmpdir_make(const char *name);
const char *tu_tmpdir(void);
/* buf = "<scratch directory>/name". */
void tu_path(char *buf, size_t len, const char *name);
/* Entries in the scratch directory other than `keep` (NULL: none kept), hidden ones
 * included; -1 when it cannot be read. The names, space-separated, go to `names` as far
 * as len allows (names may be NULL). */
int tu_tmpdir_count(const char *keep, char *names, size_t len);
/* Removes the entries of the scratch directory (files, empty directories), not itself. */
void tu_tmpdir_empty(void);
/* Empties the scratch directory and removes it; 0, or -1 when rmdir fails. */
int tu_tmpdir_remove(void);
int tu_exists(const char *path);

/* ---- hand-made WAV files ---------------------------------------------------------------- */

/* A 44-byte header and the data, samples as the host stores them (tu_begin_files skips a
 * big-endian host). Written by hand, not by libsndfile: the file source reads with it, and
 * it cannot write a header that lies. fmt 1: PCM 16-bit, 3: IEEE float 32-bit; the header
 * declares data_bytes_declared bytes of data, data_len are written (a truncated file when
 * fewer). 0, or -1 when the file cannot be written. */
int tu_write_wav(const char *path, int fmt, int channels, int rate, const void *data, size_t data_len,
                 size_t data_bytes_declared);

/* frames x channels of interleaved samples written by libsndfile in `format` (SF_FORMAT_*) at
 * `rate`; 0, or -1 when this libsndfile cannot write that format (Opus, MP3 are optional in
 * its builds) or the file cannot be written. */
int tu_write_sndfile(const char *path, int format, int rate, int channels, const float *x, size_t frames);

/* ---- FFT plans, the DFT reference, poisoned buffers ----------------------------------- */

/* A plan on `backend` (n points, hop, window: n coefficients or NULL for rectangular,
 * max_batch frames a call); a failure counts as a failed check naming the sizes and the
 * backend's message, and gives NULL. */
fft_plan *tu_plan(fft_backend_kind backend, size_t n, size_t hop, const float *window, size_t max_batch);
/* The same with the backends' tuning (fft.h; NULL = the defaults). */
fft_plan *tu_plan_tuned(fft_backend_kind backend, const fft_tuning *tuning, size_t n, size_t hop,
                        const float *window, size_t max_batch);

typedef struct {
    double re, im;
} tu_dcpx;

/* e^{-2 pi i t/n} for t < n, in double (free() it); NULL when out of memory. */
tu_dcpx *tu_dft_table(size_t n);
/* Brute-force DFT bin k of n points (n a power of two) in double: x_t = xr[t*stride] +
 * i xi[t*stride] (real input when xi is NULL), sum_t x_t e^{-2 pi i tk/n}; inverse = 1: the
 * sign +, scaled by 1/n. tab from tu_dft_table(n). */
tu_dcpx tu_dft_bin(const float *xr, const float *xi, size_t stride, size_t n, size_t k, const tu_dcpx *tab,
                   int inverse);

/* Fills `floats` floats at p with NaN, so an output the code under test never wrote shows. */
void tu_poison(void *p, size_t floats);

#endif
