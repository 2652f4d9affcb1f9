/* test_util: the helpers the test programs share (test_util.h). */
#include "test_util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sndfile.h>

#include "check.h"

/* check.h's counters: one pair a program, shared by its file and these helpers */
int check_failures;
int check_count;

#define TU_PI 3.14159265358979323846

/* ---- random numbers --------------------------------------------------------------------- */

static uint64_t rng_state = 1;

uint64_t tu_seed(const char *name)
{
    const char *e = getenv("SPECTRO_TEST_SEED");
    uint64_t seed = e && *e ? strtoull(e, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
    rng_state = seed ? seed : 1; /* xorshift stays at 0 from 0 */
    printf("%s: seed %llu (SPECTRO_TEST_SEED to repeat)\n", name, (unsigned long long)seed);
    return seed;
}

uint64_t rng_next_at(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

size_t rng_range_at(uint64_t *state, size_t lo, size_t hi)
{
    return lo + (size_t)(rng_next_at(state) % (uint64_t)(hi - lo + 1));
}

uint64_t rng_next(void)
{
    return rng_next_at(&rng_state);
}

size_t rng_range(size_t lo, size_t hi)
{
    return rng_range_at(&rng_state, lo, hi);
}

double rng_unit(void)
{
    return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

double rng_signed(void)
{
    return (double)(rng_next() >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* ---- the scratch directory ---------------------------------------------------------------- */

static char tmpdir[256];

int tu_tmpdir_make(const char *name)
{
    const char *parent = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/spectro-test-%s-XXXXXX", parent && *parent ? parent : "/tmp", name);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

const char *tu_tmpdir(void)
{
    return tmpdir;
}

void tu_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

int tu_tmpdir_count(const char *keep, char *names, size_t len)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int n = 0;
    if (names && len)
        names[0] = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || (keep && strcmp(e->d_name, keep) == 0))
            continue;
        n++;
        if (names && strlen(names) + strlen(e->d_name) + 2 < len) {
            strcat(names, e->d_name);
            strcat(names, " ");
        }
    }
    closedir(d);
    return n;
}

void tu_tmpdir_empty(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    char p[512];
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
}

int tu_tmpdir_remove(void)
{
    tu_tmpdir_empty();
    return rmdir(tmpdir);
}

int tu_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int little_endian(void)
{
    uint16_t one = 1;
    return *(unsigned char *)&one == 1;
}

int tu_begin_files(const char *name)
{
    tu_seed(name);
    if (!little_endian()) {
        printf("%s: the files it writes are little-endian; this host is not: skipped\n", name);
        return 77;
    }
    if (strncmp(name, "test_", 5) == 0)
        name += 5;
    return tu_tmpdir_make(name) == 0 ? 0 : 1;
}

/* ---- WAV ---------------------------------------------------------------------------------- */

static void put_u16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)(v >> 8);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

int tu_write_sndfile(const char *path, int format, int rate, int channels, const float *x, size_t frames)
{
    SF_INFO in = {0};
    SNDFILE *sf;
    int rc = -1;
    in.samplerate = rate;
    in.channels = channels;
    in.format = format;
    if (!sf_format_check(&in) || !(sf = sf_open(path, SFM_WRITE, &in)))
        return -1;
    if (sf_writef_float(sf, x, (sf_count_t)frames) == (sf_count_t)frames)
        rc = 0;
    if (sf_close(sf) != 0)
        rc = -1;
    return rc;
}

int tu_write_wav(const char *path, int fmt, int channels, int rate, const void *data, size_t data_len,
                 size_t data_bytes_declared)
{
    unsigned char h[44];
    int bits = fmt == 1 ? 16 : 32, block = channels * bits / 8;
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    memcpy(h, "RIFF", 4);
    put_u32(h + 4, (uint32_t)(36 + data_bytes_declared));
    memcpy(h + 8, "WAVEfmt ", 8);
    put_u32(h + 16, 16);
    put_u16(h + 20, (unsigned)fmt);
    put_u16(h + 22, (unsigned)channels);
    put_u32(h + 24, (uint32_t)rate);
    put_u32(h + 28, (uint32_t)(rate * block));
    put_u16(h + 32, (unsigned)block);
    put_u16(h + 34, (unsigned)bits);
    memcpy(h + 36, "data", 4);
    put_u32(h + 40, (uint32_t)data_bytes_declared);
    if (fwrite(h, 1, 44, f) != 44 || fwrite(data, 1, data_len, f) != data_len) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

/* ---- FFT ---------------------------------------------------------------------------------- */

fft_plan *tu_plan(fft_backend_kind backend, size_t n, size_t hop, const float *window, size_t max_batch)
{
    return tu_plan_tuned(backend, NULL, n, hop, window, max_batch);
}

fft_plan *tu_plan_tuned(fft_backend_kind backend, const fft_tuning *tuning, size_t n, size_t hop,
                        const float *window, size_t max_batch)
{
    static const char *names[] = {"auto", "cpu", "cuda", "cufft"};
    fft_config cfg = fft_config_default();
    fft_plan *p = NULL;
    sp_errinfo ei = {{0}};
    int err;
    if (tuning)
        cfg.tuning = *tuning;
    cfg.backend = backend;
    cfg.n = n;
    cfg.hop = hop;
    cfg.window = window;
    cfg.max_batch = max_batch;
    err = fft_plan_create(&cfg, &p, &ei);
    CHECK_MSG(err == SP_OK && p, "plan %s n=%zu hop=%zu max_batch=%zu: %s (%s)",
              (unsigned)backend < 4 ? names[backend] : "?", n, hop, max_batch, sp_strerror(err), ei.msg);
    return err == SP_OK ? p : NULL;
}

tu_dcpx *tu_dft_table(size_t n)
{
    tu_dcpx *t = malloc(n * sizeof *t);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        double a = 2.0 * TU_PI * (double)i / (double)n;
        t[i].re = cos(a);
        t[i].im = -sin(a);
    }
    return t;
}

tu_dcpx tu_dft_bin(const float *xr, const float *xi, size_t stride, size_t n, size_t k, const tu_dcpx *tab,
                   int inverse)
{
    double sr = 0.0, si = 0.0;
    size_t t = 0;
    for (size_t i = 0; i < n; i++) {
        double ar = xr[i * stride], ai = xi ? xi[i * stride] : 0.0;
        double wr = tab[t].re, wi = inverse ? -tab[t].im : tab[t].im;
        sr += ar * wr - ai * wi;
        si += ar * wi + ai * wr;
        t = (t + k) & (n - 1);
    }
    tu_dcpx r = {sr, si};
    if (inverse) {
        r.re /= (double)n;
        r.im /= (double)n;
    }
    return r;
}

void tu_poison(void *p, size_t floats)
{
    float *f = p;
    for (size_t i = 0; i < floats; i++)
        f[i] = NAN;
}
