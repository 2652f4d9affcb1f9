/* The reductions of an analyzer's spectra, each the arithmetic of the program's output
 * kind: peaks (peaks.h, as sink_peaks.c), averages and tone analysis (measure.h, as
 * sink_average.c and sink_tone.c), bands (bands.h, as sink_bands.c). */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "bands.h"
#include "measure.h"

#define TONE_CONFIG_V1 (offsetof(spectro_tone_config, fmax) + sizeof(double))
#define TONE_V1 (offsetof(spectro_tone, frames_averaged) + sizeof(uint64_t))
#define BANDS_CONFIG_V1 (offsetof(spectro_bands_config, fmax) + sizeof(double))
#define BANDS_DEFAULT_FRACTION 3
#define BANDS_DEFAULT_LO 20.0 /* the mid frequencies kept by default (sink_bands.c) */
#define BANDS_DEFAULT_HI 20000.0

static int check_db(const void *a, const float *db, size_t frames, const void *out, spectro_error *err)
{
    if (!a || (!db && frames) || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !a ? "the analyzer" : !out ? "out" : "db");
    return SPECTRO_OK;
}

int spectro_analyzer_peaks(spectro_analyzer *a, const float *db, size_t frames, double fmin, double fmax,
                           spectro_peak *out, spectro_error *err)
{
    api_frame_shape sh;
    const peaks_window *pw;
    size_t kmin, kmax;
    int rc;
    if ((rc = check_db(a, db, frames, out, err)) != SPECTRO_OK)
        return rc;
    api_analyzer_shape(a, &sh);
    if (!(fmin >= 0) || !(fmax >= 0))
        return api_fail(err, SPECTRO_EINVAL, "fmin/fmax %g .. %g: must be 0 (no limit) or more Hz", fmin, fmax);
    if (!peaks_bin_range(fmin, fmax, (double)sh.rate / (double)sh.n, sh.n, &kmin, &kmax))
        return api_fail(err, SPECTRO_EINVAL, "fmin/fmax: the range %.1f..%.1f Hz holds no bin", fmin, fmax);
    if ((rc = api_analyzer_peaks_window(a, &pw, err)) != SPECTRO_OK)
        return rc;
    for (size_t f = 0; f < frames; f++) {
        /* the scan every backend's reduction matches, then the one refinement (sinks.c) */
        fft_peak_raw raw = fft_peak_scan(db + f * sh.bins, kmin, kmax);
        peak p = peaks_refine(pw, raw.bin, raw.l, raw.c, raw.r, sh.n, (double)sh.rate);
        out[f].freq_hz = p.freq_hz;
        out[f].db = p.db;
        out[f].bin = p.bin;
    }
    return SPECTRO_OK;
}

static int check_mode(int mode, spectro_error *err)
{
    if (mode < 0 || mode >= measure_average_count())
        return api_fail(err, SPECTRO_EINVAL, "mode %d: one of SPECTRO_AVERAGE_MEAN, _MAX, _MIN (0 to %d)", mode,
                        measure_average_count() - 1);
    return SPECTRO_OK;
}

/* The rows' average by mode, accumulated as the program's sinks do (frame after frame). */
static int accumulate(int mode, const float *rows, size_t frames, size_t width, measure_accum **out,
                      spectro_error *err)
{
    if (measure_accum_create((measure_average)mode, 1, width, out) != SP_OK)
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    measure_accum_add(*out, 0, frames, rows);
    return SPECTRO_OK;
}

int spectro_analyzer_average(spectro_analyzer *a, const float *db, size_t frames, int mode, int psd, float *out,
                             spectro_error *err)
{
    api_frame_shape sh;
    measure_window mw;
    measure_accum *acc = NULL;
    int rc;
    if ((rc = check_db(a, db, frames, out, err)) != SPECTRO_OK || (rc = check_mode(mode, err)) != SPECTRO_OK)
        return rc;
    api_analyzer_shape(a, &sh);
    if ((rc = accumulate(mode, db, frames, sh.bins, &acc, err)) != SPECTRO_OK)
        return rc;
    measure_window_of(sh.win, sh.n, &mw);
    measure_accum_db(acc, 0, psd ? measure_psd_offset_db(&mw, (double)sh.rate / (double)sh.n) : 0.0, out);
    measure_accum_destroy(acc);
    return SPECTRO_OK;
}

spectro_tone_config spectro_tone_config_default(void)
{
    spectro_tone_config c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.fundamental_hz = 0.0;
    c.fmin = -1.0;
    c.fmax = -1.0;
    return c;
}

const char *spectro_tone_window(void)
{
    return MEASURE_TONE_WINDOW;
}

static void tone_out(const measure_tone *t, uint64_t frames, spectro_tone *out)
{
    spectro_tone full;
    memset(&full, 0, sizeof full);
    full.size = out->size < sizeof full ? out->size : sizeof full;
    full.fundamental_hz = t->fundamental_hz;
    full.fundamental_dbfs = t->fundamental_dbfs;
    full.harmonics = t->harmonics;
    for (int i = 0; i < t->harmonics && i < SPECTRO_TONE_MAX_HARMONICS; i++) {
        full.harmonic[i].n = t->harmonic[i].n;
        full.harmonic[i].hz = t->harmonic[i].hz;
        full.harmonic[i].dbfs = t->harmonic[i].dbfs;
    }
    full.thd_percent = t->thd_percent;
    full.thd_db = t->thd_db;
    full.thdn_db = t->thdn_db;
    full.snr_db = t->snr_db;
    full.sinad_db = t->sinad_db;
    full.enob_bits = t->enob_bits;
    full.noise_dbfs = t->noise_dbfs;
    full.band_hz[0] = t->band_lo;
    full.band_hz[1] = t->band_hi;
    full.frames_averaged = frames;
    memcpy(out, &full, full.size);
}

/* A tone analysis' arguments: the config's and the result's sizes, some frames. */
static int tone_args(const spectro_tone_config *cfg, const spectro_tone *out, uint64_t frames, spectro_error *err)
{
    int rc;
    if ((rc = api_check_size(cfg->size, TONE_CONFIG_V1, "spectro_tone_config", err)) != SPECTRO_OK ||
        (rc = api_check_size(out->size, TONE_V1, "spectro_tone", err)) != SPECTRO_OK)
        return rc;
    if (frames == 0)
        return api_fail(err, SPECTRO_EINVAL, "frames is 0: a tone analysis needs at least one spectrum");
    return SPECTRO_OK;
}

int api_tone(const double *power, size_t n, int rate, const measure_window *mw, const spectro_tone_config *cfg,
             uint64_t frames, spectro_tone *out, spectro_error *err)
{
    spectro_tone_config def = spectro_tone_config_default();
    measure_tone t;
    sp_errinfo ei = {{0}};
    double lo, hi;
    int rc;
    if (!cfg)
        cfg = &def;
    if ((rc = tone_args(cfg, out, frames, err)) != SPECTRO_OK)
        return rc;
    if (!(cfg->fundamental_hz >= 0))
        return api_fail(err, SPECTRO_EINVAL, "fundamental_hz %g: must be 0 (the strongest) or more",
                        cfg->fundamental_hz);
    if ((rc = measure_tone_band(cfg->fmin, cfg->fmax, rate, &lo, &hi, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    if ((rc = measure_tone_analyze(power, n, rate, mw, lo, hi, cfg->fundamental_hz, &t, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    tone_out(&t, frames, out);
    return SPECTRO_OK;
}

int spectro_analyzer_tone(spectro_analyzer *a, const float *db, size_t frames, const spectro_tone_config *cfg,
                          spectro_tone *out, spectro_error *err)
{
    spectro_tone_config def = spectro_tone_config_default();
    api_frame_shape sh;
    measure_window mw;
    measure_accum *acc = NULL;
    double *power;
    int rc;
    if ((rc = check_db(a, db, frames, out, err)) != SPECTRO_OK)
        return rc;
    if (!cfg)
        cfg = &def;
    if ((rc = tone_args(cfg, out, frames, err)) != SPECTRO_OK) /* before the work */
        return rc;
    api_analyzer_shape(a, &sh);
    measure_window_of(sh.win, sh.n, &mw);
    if (!(power = malloc(sh.bins * sizeof *power)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = accumulate(SPECTRO_AVERAGE_MEAN, db, frames, sh.bins, &acc, err)) == SPECTRO_OK) {
        measure_accum_power(acc, 0, power);
        rc = api_tone(power, sh.n, sh.rate, &mw, cfg, frames, out, err);
    }
    measure_accum_destroy(acc);
    free(power);
    return rc;
}

int spectro_tone_band(double fmin, double fmax, int sample_rate, double *lo, double *hi, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    double l, h;
    int rc;
    if (!lo || !hi)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !lo ? "lo" : "hi");
    if (sample_rate < 1)
        return api_fail(err, SPECTRO_EINVAL, "sample_rate %d: must be at least 1 Hz", sample_rate);
    if ((rc = measure_tone_band(fmin, fmax, sample_rate, &l, &h, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    *lo = l;
    *hi = h;
    return SPECTRO_OK;
}

/* ---- bands ------------------------------------------------------------------------------------------ */

struct spectro_bands {
    bands *b;
    size_t nb, bins;
};

spectro_bands_config spectro_bands_config_default(void)
{
    spectro_bands_config c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.fraction = BANDS_DEFAULT_FRACTION;
    c.weighting = NULL;
    c.fmin = -1.0;
    c.fmax = -1.0;
    return c;
}

/* The bands of cfg for spectra of rate, n and window coefficients win[n]. */
static int bands_make(int rate, size_t n, const float *win, const spectro_bands_config *cfg, spectro_bands **out,
                      spectro_error *err)
{
    spectro_bands_config def = spectro_bands_config_default();
    measure_window mw;
    bands_config bc;
    bands_weighting w = BANDS_WEIGHT_Z;
    sp_errinfo ei = {{0}};
    spectro_bands *b;
    int rc;
    if (!cfg)
        cfg = &def;
    if ((rc = api_check_size(cfg->size, BANDS_CONFIG_V1, "spectro_bands_config", err)) != SPECTRO_OK)
        return rc;
    if (cfg->weighting && (rc = bands_weighting_parse(cfg->weighting, &w, &ei)) != SP_OK)
        return api_fail(err, rc, "weighting \"%s\": one of Z (none), A, C", cfg->weighting);
    measure_window_of(win, n, &mw);
    memset(&bc, 0, sizeof bc);
    bc.fraction = cfg->fraction;
    bc.weighting = w;
    bc.lo = cfg->fmin >= 0.0 ? cfg->fmin : BANDS_DEFAULT_LO;
    bc.hi = cfg->fmax >= 0.0 ? cfg->fmax : BANDS_DEFAULT_HI;
    bc.rate = rate;
    bc.n = n;
    bc.enbw_bins = mw.enbw_bins;
    bc.lobe_bins = mw.lobe_bins;
    if (!(b = calloc(1, sizeof *b)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = bands_create(&bc, &b->b, &ei)) != SP_OK) {
        free(b);
        return api_from_engine(err, rc, &ei);
    }
    b->nb = bands_count(b->b);
    b->bins = n / 2 + 1;
    *out = b;
    return SPECTRO_OK;
}

int spectro_bands_create(const spectro_analyzer *a, const spectro_bands_config *cfg, spectro_bands **out,
                         spectro_error *err)
{
    api_frame_shape sh;
    if (!a || !out)
        return api_fail(err, SPECTRO_EINVAL, "spectro_bands_create: %s is NULL", a ? "out" : "the analyzer");
    *out = NULL;
    api_analyzer_shape(a, &sh);
    return bands_make(sh.rate, sh.n, sh.win, cfg, out, err);
}

int spectro_bands_create_for(const spectro_analyzer_config *frames, const spectro_bands_config *cfg,
                             spectro_bands **out, spectro_error *err)
{
    api_spectrum_shape sh;
    int rc;
    if (!frames || !out)
        return api_fail(err, SPECTRO_EINVAL, "spectro_bands_create_for: %s is NULL", frames ? "out" : "frames");
    *out = NULL;
    if ((rc = api_spectrum_shape_make(frames, NULL, &sh, err)) != SPECTRO_OK)
        return rc;
    rc = bands_make(frames->sample_rate, frames->fft_size, sh.win, cfg, out, err);
    free(sh.win);
    return rc;
}

int spectro_bands_weighting_count(void)
{
    return BANDS_WEIGHT_COUNT;
}

const char *spectro_bands_weighting_name(int i)
{
    return i >= 0 && i < BANDS_WEIGHT_COUNT ? bands_weighting_name((bands_weighting)i) : NULL;
}

void spectro_bands_destroy(spectro_bands *b)
{
    if (!b)
        return;
    bands_destroy(b->b);
    free(b);
}

size_t spectro_bands_count(const spectro_bands *b)
{
    return b ? b->nb : 0;
}

double spectro_bands_mid_hz(const spectro_bands *b, size_t i)
{
    return b && i < b->nb ? bands_mid_hz(b->b, i) : 0.0;
}

double spectro_bands_lower_hz(const spectro_bands *b, size_t i)
{
    return b && i < b->nb ? bands_lower_hz(b->b, i) : 0.0;
}

double spectro_bands_upper_hz(const spectro_bands *b, size_t i)
{
    return b && i < b->nb ? bands_upper_hz(b->b, i) : 0.0;
}

size_t spectro_bands_unresolved_count(const spectro_bands *b)
{
    return b ? bands_unresolved_count(b->b) : 0;
}

double spectro_bands_unresolved_hz(const spectro_bands *b, size_t i)
{
    return b && i < bands_unresolved_count(b->b) ? bands_unresolved_hz(b->b, i) : 0.0;
}

int spectro_bands_levels(spectro_bands *b, const float *db, size_t frames, float *out, spectro_error *err)
{
    int rc;
    if ((rc = check_db(b, db, frames, out, err)) != SPECTRO_OK)
        return rc;
    for (size_t f = 0; f < frames; f++)
        bands_levels(b->b, db + f * b->bins, out + f * b->nb);
    return SPECTRO_OK;
}

int spectro_bands_average(spectro_bands *b, const float *db, size_t frames, int mode, float *out, spectro_error *err)
{
    measure_accum *acc = NULL;
    float *rows;
    int rc;
    if ((rc = check_db(b, db, frames, out, err)) != SPECTRO_OK || (rc = check_mode(mode, err)) != SPECTRO_OK)
        return rc;
    if (!(rows = malloc((frames ? frames : 1) * b->nb * sizeof *rows)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory for the band levels of %zu frames", frames);
    spectro_bands_levels(b, db, frames, rows, NULL);
    if ((rc = accumulate(mode, rows, frames, b->nb, &acc, err)) == SPECTRO_OK)
        measure_accum_db(acc, 0, 0.0, out);
    measure_accum_destroy(acc);
    free(rows);
    return rc;
}
