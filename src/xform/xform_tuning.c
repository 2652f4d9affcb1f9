/* chroma's --tuning auto (docs/transforms.md "Tuning"): the tuning of the frames' spectral
 * peaks, as librosa's estimate_tuning computes it from a power spectrogram (piptrack, then
 * pitch_tuning), so that the chroma of the estimate is the one librosa makes of the same
 * spectra. Levels follow docs/design.md "Levels (dBFS)": bin k's power is (scale_k |X_k|)^2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xform_internal.h"

#define TUNING_FMIN 150.0      /* piptrack's range of pitches (Hz), [fmin, fmax) */
#define TUNING_FMAX 4000.0
#define TUNING_THRESHOLD 0.1   /* a peak's power above this fraction of its frame's largest */
#define TUNING_STEPS 100       /* the histogram's bins in a semitone (resolution 0.01) */
#define TUNING_BATCH 16        /* frames a call of the plan */

typedef struct {
    double *pitch, *mag;
    size_t count, cap;
} peak_list;

static int peaks_add(peak_list *pl, double pitch, double mag)
{
    if (pl->count == pl->cap) {
        size_t cap = pl->cap ? 2 * pl->cap : 1024;
        double *p = realloc(pl->pitch, cap * sizeof *p), *m;
        if (!p)
            return SP_ENOMEM;
        pl->pitch = p;
        if (!(m = realloc(pl->mag, cap * sizeof *m)))
            return SP_ENOMEM;
        pl->mag = m;
        pl->cap = cap;
    }
    pl->pitch[pl->count] = pitch;
    pl->mag[pl->count++] = mag;
    return SP_OK;
}

/* piptrack on one frame's power spectrum p[0 .. bins): each local maximum of the spectrum
 * thresholded at TUNING_THRESHOLD of its largest value (strictly above it; compared with
 * the neighbours as numpy's edge padding does) at a bin frequency in [fmin, fmax), with
 * its parabolic pitch and magnitude. */
static int frame_peaks(const float *p, size_t bins, size_t n, double rate, peak_list *pl)
{
    double top = 0.0, fmax = TUNING_FMAX < rate / 2 ? TUNING_FMAX : rate / 2;
    for (size_t k = 0; k < bins; k++)
        top = p[k] > top ? p[k] : top;
    top *= TUNING_THRESHOLD;
    for (size_t k = 1; k + 1 < bins; k++) {
        double f = (double)k * rate / (double)n;
        double c = p[k] > top ? p[k] : 0.0, l = p[k - 1] > top ? p[k - 1] : 0.0;
        double r = p[k + 1] > top ? p[k + 1] : 0.0, a, b, shift = 0.0, mag;
        if (f < TUNING_FMIN || f >= fmax || !(c > l && c >= r))
            continue;
        a = (double)p[k + 1] + (double)p[k - 1] - 2.0 * (double)p[k];
        b = ((double)p[k + 1] - (double)p[k - 1]) / 2.0;
        if (fabs(b) < fabs(a))
            shift = -b / a;
        mag = (double)p[k] + 0.5 * b * shift; /* the gradient at k is b */
        if ((double)k + shift > 0.0 && peaks_add(pl, ((double)k + shift) * rate / (double)n, mag) != SP_OK)
            return SP_ENOMEM;
    }
    return SP_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* pitch_tuning of the peaks at or above the median magnitude: each one's distance from the
 * equal-tempered pitch (A4 = 440 Hz) in semitones, -0.5 .. 0.5, counted in TUNING_STEPS
 * bins a semitone; the fullest bin's lower edge (the first of equals). */
static int tuning_of(peak_list *pl, double *tuning)
{
    size_t counts[TUNING_STEPS] = {0}, best = 0, half = pl->count / 2;
    double *m, median;
    *tuning = 0.0;
    if (pl->count == 0)
        return SP_OK;
    if (!(m = malloc(pl->count * sizeof *m)))
        return SP_ENOMEM;
    memcpy(m, pl->mag, pl->count * sizeof *m);
    qsort(m, pl->count, sizeof *m, cmp_double);
    median = pl->count % 2 ? m[half] : 0.5 * (m[half - 1] + m[half]);
    free(m);
    for (size_t i = 0; i < pl->count; i++) {
        double r, step = 1.0 / TUNING_STEPS;
        size_t bin;
        if (!(pl->mag[i] >= median))
            continue;
        r = fmod(12.0 * log2(pl->pitch[i] / (440.0 / 16.0)), 1.0);
        r += r < 0.0 ? 1.0 : 0.0; /* numpy's mod: the sign of the divisor */
        r -= r >= 0.5 ? 1.0 : 0.0;
        /* the bin of edges -0.5 + i*step (numpy's linspace), the last one closed */
        bin = (size_t)((r + 0.5) * TUNING_STEPS);
        bin = bin >= TUNING_STEPS ? TUNING_STEPS - 1 : bin;
        if (bin > 0 && r < -0.5 + (double)bin * step)
            bin--;
        else if (bin + 1 < TUNING_STEPS && r >= -0.5 + (double)(bin + 1) * step)
            bin++;
        counts[bin]++;
    }
    for (size_t i = 1; i < TUNING_STEPS; i++)
        best = counts[i] > counts[best] ? i : best;
    *tuning = -0.5 + (double)best * (1.0 / TUNING_STEPS);
    return SP_OK;
}

typedef struct {
    fft_plan *plan;
    float *frm, *p, *scale;
    cpx *z;
} tuning_work;

static int spans_peaks(tuning_work *w, const xform_span *spans, size_t nspans, size_t n, double rate,
                       const float *window, peak_list *pl)
{
    size_t bins = n / 2 + 1;
    for (size_t s = 0; s < nspans; s++)
        for (size_t f0 = 0; f0 < spans[s].nframes; f0 += TUNING_BATCH) {
            size_t nb = spans[s].nframes - f0 < TUNING_BATCH ? spans[s].nframes - f0 : TUNING_BATCH;
            for (size_t f = 0; f < nb; f++)
                for (size_t i = 0; i < n; i++)
                    w->frm[f * n + i] = spans[s].sig[(f0 + f) * spans[s].hop + i] * window[i];
            if (fft_r2c(w->plan, w->frm, w->z, nb) != SP_OK)
                return SP_ENOMEM;
            for (size_t f = 0; f < nb; f++) {
                const cpx *z = w->z + f * bins;
                for (size_t k = 0; k < bins; k++) { /* the power with its floor (docs/transforms.md) */
                    float re = z[k].re * w->scale[k], im = z[k].im * w->scale[k], q = re * re + im * im;
                    w->p[k] = q > (float)XFORM_POWER_FLOOR ? q : (float)XFORM_POWER_FLOOR;
                }
                if (frame_peaks(w->p, bins, n, rate, pl) != SP_OK)
                    return SP_ENOMEM;
            }
        }
    return SP_OK;
}

int xform_tuning_estimate(const xform_span *spans, size_t nspans, size_t n, double rate, const float *window,
                          double *tuning, sp_errinfo *ei)
{
    tuning_work w;
    peak_list pl = {0};
    fft_config fc = fft_config_default();
    size_t bins = n / 2 + 1;
    double wsum = 0.0;
    int err = SP_ENOMEM;
    memset(&w, 0, sizeof w);
    *tuning = 0.0;
    fc.backend = FFT_BACKEND_CPU;
    fc.n = n;
    fc.max_batch = TUNING_BATCH;
    fc.tuning.cpu_threads = 1;
    if ((err = fft_plan_create(&fc, &w.plan, ei)) != SP_OK)
        return err;
    err = SP_ENOMEM;
    if ((w.frm = malloc(TUNING_BATCH * n * sizeof *w.frm)) && (w.z = malloc(TUNING_BATCH * bins * sizeof *w.z)) &&
        (w.p = malloc(bins * sizeof *w.p)) && (w.scale = malloc(bins * sizeof *w.scale))) {
        for (size_t i = 0; i < n; i++)
            wsum += window[i];
        for (size_t k = 0; k < bins; k++)
            w.scale[k] = fft_level_scale(n, k, wsum);
        if (spans_peaks(&w, spans, nspans, n, rate, window, &pl) == SP_OK)
            err = tuning_of(&pl, tuning);
    }
    fft_plan_destroy(w.plan);
    free(w.frm);
    free(w.z);
    free(w.p);
    free(w.scale);
    free(pl.pitch);
    free(pl.mag);
    return err == SP_OK ? SP_OK : sp_fail(ei, err, "chroma: out of memory for the tuning estimate");
}
