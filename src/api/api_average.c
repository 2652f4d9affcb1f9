/* spectro_average: the averages of spectro_analyzer_average kept while spectra come in (the
 * window's running averages, a live measurement), with the exponential one a display wants:
 * measure.h's accumulator (--average's own) for the mean, max and min, and the exponential
 * average of the powers the mean's accumulator computes (each power once for both). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"

#define AVERAGE_CONFIG_V6 (offsetof(spectro_average_config, window_coefficients) + sizeof(const float *))
#define AVERAGE_MODES 4 /* SPECTRO_AVERAGE_MEAN, _MAX, _MIN, _EXPONENTIAL */
#define AVERAGE_ALL_MODES ((1u << AVERAGE_MODES) - 1u)
#define DEFAULT_TAU_S 1.0

struct spectro_average {
    unsigned modes;
    int channels, rate;
    size_t n, bins;
    measure_window mw;
    measure_accum *acc[3]; /* MEAN (also EXPONENTIAL's powers), MAX, MIN; NULL when not kept */
    double alpha;          /* EXPONENTIAL: 1 - exp(-hop / (rate * tau)) */
    double *ex;            /* channels x bins: its powers */
    uint64_t *ex_frames;   /* per channel */
    double *pw;            /* bins: a row's powers, then the tone's power */
};

int api_spectrum_shape_make(const spectro_analyzer_config *cfg, const float *coef, api_spectrum_shape *out,
                            spectro_error *err)
{
    window_spec w;
    fft_backend_kind kind;
    double wsum = 0.0;
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = api_analyzer_check_config(cfg, &w, &kind, err)) != SPECTRO_OK)
        return rc;
    out->outs = cfg->channel == SPECTRO_CHANNEL_ALL ? cfg->channels : 1;
    out->n = cfg->fft_size;
    out->bins = cfg->fft_size / 2 + 1;
    out->hop = cfg->hop ? cfg->hop : cfg->fft_size / 4;
    out->rate = cfg->sample_rate;
    if (!(out->win = malloc(out->n * sizeof *out->win)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory for a window of fft_size %zu", out->n);
    if (coef) {
        memcpy(out->win, coef, out->n * sizeof *out->win);
        return SPECTRO_OK;
    }
    if (window_fill(&w, out->n, out->win, &wsum) != SP_OK || !(wsum > 0)) {
        free(out->win);
        out->win = NULL;
        return api_fail(err, SPECTRO_EINVAL, "window %s: cannot make it for fft_size %zu",
                        cfg->window ? cfg->window : "hann", out->n);
    }
    return SPECTRO_OK;
}

spectro_average_config spectro_average_config_default(void)
{
    spectro_average_config c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.modes = SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN);
    c.time_constant_s = DEFAULT_TAU_S;
    c.window_coefficients = NULL;
    return c;
}

static int average_alloc(spectro_average *a, spectro_error *err)
{
    static const measure_average kinds[3] = {MEASURE_MEAN, MEASURE_MAX, MEASURE_MIN};
    unsigned mean_bits = SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN) | SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_EXPONENTIAL);
    for (int m = 0; m < 3; m++) {
        unsigned want = m == SPECTRO_AVERAGE_MEAN ? mean_bits : SPECTRO_AVERAGE_BIT(m);
        if ((a->modes & want) && measure_accum_create(kinds[m], a->channels, a->bins, &a->acc[m]) != SP_OK)
            return api_fail(err, SPECTRO_ENOMEM, "out of memory for the averages");
    }
    if (!(a->pw = calloc(a->bins, sizeof *a->pw)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory for the averages");
    if ((a->modes & SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_EXPONENTIAL)) &&
        (!(a->ex = calloc((size_t)a->channels * a->bins, sizeof *a->ex)) ||
         !(a->ex_frames = calloc((size_t)a->channels, sizeof *a->ex_frames))))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory for the averages");
    return SPECTRO_OK;
}

int spectro_average_create(const spectro_analyzer_config *frames, const spectro_average_config *cfg,
                           spectro_average **out, spectro_error *err)
{
    spectro_average_config def = spectro_average_config_default();
    api_spectrum_shape sh;
    spectro_average *a;
    double tau;
    int rc;
    if (!frames || !out)
        return api_fail(err, SPECTRO_EINVAL, "spectro_average_create: %s is NULL", frames ? "out" : "frames");
    *out = NULL;
    if (!cfg)
        cfg = &def;
    if ((rc = api_check_size(cfg->size, AVERAGE_CONFIG_V6, "spectro_average_config", err)) != SPECTRO_OK)
        return rc;
    if (cfg->modes & ~AVERAGE_ALL_MODES)
        return api_fail(err, SPECTRO_EINVAL,
                        "modes 0x%x: SPECTRO_AVERAGE_BIT() of SPECTRO_AVERAGE_MEAN, _MAX, _MIN, "
                        "_EXPONENTIAL (0 to 0x%x)",
                        cfg->modes, AVERAGE_ALL_MODES);
    if (!(cfg->time_constant_s >= 0) || !isfinite(cfg->time_constant_s))
        return api_fail(err, SPECTRO_EINVAL, "time_constant_s %g: must be more than 0 seconds (0: 1 s)",
                        cfg->time_constant_s);
    if ((rc = api_spectrum_shape_make(frames, cfg->window_coefficients, &sh, err)) != SPECTRO_OK)
        return rc;
    if (!(a = calloc(1, sizeof *a))) {
        free(sh.win);
        return api_fail(err, SPECTRO_ENOMEM, "out of memory for the averages");
    }
    a->modes = cfg->modes ? cfg->modes : SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_MEAN);
    a->channels = sh.outs;
    a->rate = sh.rate;
    a->n = sh.n;
    a->bins = sh.bins;
    tau = cfg->time_constant_s > 0 ? cfg->time_constant_s : DEFAULT_TAU_S;
    a->alpha = 1.0 - exp(-(double)sh.hop / ((double)sh.rate * tau));
    measure_window_of(sh.win, sh.n, &a->mw);
    free(sh.win);
    if ((rc = average_alloc(a, err)) != SPECTRO_OK) {
        spectro_average_destroy(a);
        return rc;
    }
    *out = a;
    return SPECTRO_OK;
}

void spectro_average_destroy(spectro_average *a)
{
    if (!a)
        return;
    for (int m = 0; m < 3; m++)
        measure_accum_destroy(a->acc[m]);
    free(a->ex);
    free(a->ex_frames);
    free(a->pw);
    free(a);
}

int spectro_average_channels(const spectro_average *a)
{
    return a ? a->channels : 0;
}

size_t spectro_average_bins(const spectro_average *a)
{
    return a ? a->bins : 0;
}

static int check_channel(const spectro_average *a, int channel, spectro_error *err)
{
    if (!a)
        return api_fail(err, SPECTRO_EINVAL, "the average is NULL");
    if (channel < 0 || channel >= a->channels)
        return api_fail(err, SPECTRO_EINVAL, "channel %d: out of range: the average has %d channel%s", channel,
                        a->channels, a->channels == 1 ? "" : "s");
    return SPECTRO_OK;
}

static int check_mode(const spectro_average *a, int mode, spectro_error *err)
{
    if (mode < 0 || mode >= AVERAGE_MODES || !(a->modes & SPECTRO_AVERAGE_BIT(mode)))
        return api_fail(err, SPECTRO_EINVAL, "mode %d: not an average this handle keeps (modes 0x%x)", mode, a->modes);
    return SPECTRO_OK;
}

int spectro_average_add(spectro_average *a, int channel, const float *db, size_t frames, spectro_error *err)
{
    int rc;
    if ((rc = check_channel(a, channel, err)) != SPECTRO_OK)
        return rc;
    if (!db && frames)
        return api_fail(err, SPECTRO_EINVAL, "db is NULL");
    if (a->acc[SPECTRO_AVERAGE_MAX])
        measure_accum_add(a->acc[SPECTRO_AVERAGE_MAX], channel, frames, db);
    if (a->acc[SPECTRO_AVERAGE_MIN])
        measure_accum_add(a->acc[SPECTRO_AVERAGE_MIN], channel, frames, db);
    if (!a->ex) {
        if (a->acc[SPECTRO_AVERAGE_MEAN])
            measure_accum_add(a->acc[SPECTRO_AVERAGE_MEAN], channel, frames, db);
        return SPECTRO_OK;
    }
    /* the mean's accumulator computes each power once; the exponential average takes it */
    double *p = a->ex + (size_t)channel * a->bins;
    for (size_t f = 0; f < frames; f++) {
        measure_accum_add_powers(a->acc[SPECTRO_AVERAGE_MEAN], channel, db + f * a->bins, a->pw);
        if (a->ex_frames[channel]++ == 0)
            memcpy(p, a->pw, a->bins * sizeof *p);
        else
            for (size_t k = 0; k < a->bins; k++)
                p[k] += a->alpha * (a->pw[k] - p[k]);
    }
    return SPECTRO_OK;
}

int spectro_average_reset(spectro_average *a, int channel, unsigned modes, spectro_error *err)
{
    int rc, c0 = channel, c1 = channel;
    if (channel == -1 && a) {
        c0 = 0;
        c1 = a->channels - 1;
    } else if ((rc = check_channel(a, channel, err)) != SPECTRO_OK) {
        return rc;
    }
    if (modes & ~AVERAGE_ALL_MODES)
        return api_fail(err, SPECTRO_EINVAL, "modes 0x%x: bits of the averages (0 to 0x%x)", modes, AVERAGE_ALL_MODES);
    if (!modes)
        modes = a->modes;
    for (int c = c0; c <= c1; c++) {
        for (int m = 0; m < 3; m++)
            if ((modes & SPECTRO_AVERAGE_BIT(m)) && a->acc[m] && (a->modes & SPECTRO_AVERAGE_BIT(m)))
                measure_accum_reset(a->acc[m], c);
        if ((modes & SPECTRO_AVERAGE_BIT(SPECTRO_AVERAGE_EXPONENTIAL)) && a->ex)
            a->ex_frames[c] = 0;
    }
    return SPECTRO_OK;
}

uint64_t spectro_average_frames(const spectro_average *a, int channel, int mode)
{
    if (!a || channel < 0 || channel >= a->channels || check_mode(a, mode, NULL) != SPECTRO_OK)
        return 0;
    if (mode == SPECTRO_AVERAGE_EXPONENTIAL)
        return a->ex_frames[channel];
    return measure_accum_frames(a->acc[mode], channel);
}

/* The exponential average's bin in dB as the accumulator writes its own: never below the
 * floor (measure.h). */
static double ex_db(const spectro_average *a, int channel, size_t k)
{
    double p = a->ex[(size_t)channel * a->bins + k], d;
    if (a->ex_frames[channel] == 0)
        return FFT_DB_FLOOR;
    d = p > 0 ? 10.0 * log10(p) : FFT_DB_FLOOR;
    return d > FFT_DB_FLOOR ? d : FFT_DB_FLOOR;
}

int spectro_average_read(const spectro_average *a, int channel, int mode, int psd, float *out, spectro_error *err)
{
    double offset;
    int rc;
    if ((rc = check_channel(a, channel, err)) != SPECTRO_OK || (rc = check_mode(a, mode, err)) != SPECTRO_OK)
        return rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    offset = psd ? measure_psd_offset_db(&a->mw, (double)a->rate / (double)a->n) : 0.0;
    if (mode != SPECTRO_AVERAGE_EXPONENTIAL) {
        measure_accum_db(a->acc[mode], channel, offset, out);
        return SPECTRO_OK;
    }
    for (size_t k = 0; k < a->bins; k++)
        out[k] = (float)(ex_db(a, channel, k) + offset);
    return SPECTRO_OK;
}

int spectro_average_power(const spectro_average *a, int channel, int mode, double *out, spectro_error *err)
{
    int rc;
    if ((rc = check_channel(a, channel, err)) != SPECTRO_OK || (rc = check_mode(a, mode, err)) != SPECTRO_OK)
        return rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    if (mode != SPECTRO_AVERAGE_EXPONENTIAL) {
        measure_accum_power(a->acc[mode], channel, out);
        return SPECTRO_OK;
    }
    if (a->ex_frames[channel] == 0)
        for (size_t k = 0; k < a->bins; k++)
            out[k] = 1e-20; /* as the accumulator's with no frame */
    else
        memcpy(out, a->ex + (size_t)channel * a->bins, a->bins * sizeof *out);
    return SPECTRO_OK;
}

int spectro_average_tone(spectro_average *a, int channel, int mode, const spectro_tone_config *cfg,
                         spectro_tone *out, spectro_error *err)
{
    const double *power = a ? a->pw : NULL;
    uint64_t frames;
    int rc;
    if ((rc = check_channel(a, channel, err)) != SPECTRO_OK || (rc = check_mode(a, mode, err)) != SPECTRO_OK)
        return rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    frames = spectro_average_frames(a, channel, mode);
    if (mode == SPECTRO_AVERAGE_EXPONENTIAL)
        power = a->ex + (size_t)channel * a->bins; /* read in place: no copy */
    else
        measure_accum_power(a->acc[mode], channel, a->pw);
    return api_tone(power, a->n, a->rate, &a->mw, cfg, frames, out, err);
}

double spectro_average_enbw_bins(const spectro_average *a)
{
    return a ? a->mw.enbw_bins : 0.0;
}

_Static_assert(SPECTRO_DB_FLOOR == FFT_DB_FLOOR, "spectro.h's floor is the engine's");
