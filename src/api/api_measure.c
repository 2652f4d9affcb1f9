/* The measurements of issue's instrument beyond the reductions: the codec bandwidth of an
 * analyzer's spectra (src/sink/bandwidth.h) and the pitch track of samples (src/sink/pitch.h),
 * the numbers the program's --bandwidth and --pitch print. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "bandwidth.h"
#include "measure.h"
#include "pitch.h"

int spectro_analyzer_bandwidth(spectro_analyzer *a, const float *db, size_t frames, spectro_bandwidth_result *out,
                               spectro_error *err)
{
    api_frame_shape sh;
    measure_accum *acc = NULL;
    bandwidth_result r;
    sp_errinfo ei = {{0}};
    double *power;
    int rc;
    if (!a || (!db && frames) || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !a ? "the analyzer" : !out ? "out" : "db");
    api_analyzer_shape(a, &sh);
    if (!(power = malloc(sh.bins * sizeof *power)) || measure_accum_create(MEASURE_MEAN, 1, sh.bins, &acc) != SP_OK) {
        free(power);
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    }
    measure_accum_add(acc, 0, frames, db);
    measure_accum_power(acc, 0, power);
    measure_accum_destroy(acc);
    rc = bandwidth_find(power, sh.bins, (double)sh.rate / (double)sh.n, &r, NULL, &ei);
    free(power);
    if (rc != SP_OK)
        return api_from_engine(err, rc, &ei);
    memset(out, 0, sizeof *out);
    out->cutoff_hz = r.cutoff_hz;
    out->full_band = r.full_band;
    out->encoders = r.encoders;
    out->below_db = r.below_db;
    out->above_db = r.above_db;
    out->drop_db = r.below_db - r.above_db;
    out->nyquist_hz = (double)sh.rate / 2.0;
    return SPECTRO_OK;
}

/* Frame f of the channels' mean into mono[n]: samples [f*hop, f*hop + n), zero past count. */
static void mean_frame(const float *x, size_t count, int channels, size_t start, size_t n, float *mono)
{
    for (size_t i = 0; i < n; i++) {
        float v = 0.0f;
        if (start + i < count)
            for (int c = 0; c < channels; c++)
                v += x[(start + i) * (size_t)channels + (size_t)c];
        mono[i] = isfinite(v) ? v / (float)channels : 0.0f;
    }
}

int spectro_pitch(const float *samples, size_t count, int channels, int sample_rate, size_t fft_size, size_t hop,
                  double fmin, double fmax, double *f0, double *confidence, size_t out_frames, size_t *frames,
                  spectro_error *err)
{
    pitch_yin *p = NULL;
    sp_errinfo ei = {{0}};
    size_t want;
    float *mono;
    int rc;
    if ((!samples && count) || !f0 || !confidence || !frames)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", !frames ? "frames" : !f0 ? "f0" : !confidence ? "confidence"
                                                                                                       : "samples");
    if (channels < 1 || sample_rate < 1)
        return api_fail(err, SPECTRO_EINVAL, "%s %d: must be at least 1", channels < 1 ? "channels" : "sample_rate",
                        channels < 1 ? channels : sample_rate);
    if (hop == 0)
        hop = fft_size / 4;
    if (hop < 1 || hop > fft_size)
        return api_fail(err, SPECTRO_EINVAL, "hop %zu: must be from 1 to fft_size (%zu)", hop, fft_size);
    if ((rc = pitch_yin_create(sample_rate, fft_size, fmin, fmax, &p, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    want = (size_t)spectro_frame_count(count, fft_size, hop);
    if (want > out_frames) {
        pitch_yin_destroy(p);
        return api_fail(err, SPECTRO_EINVAL, "out_frames %zu: %zu frames need room", out_frames, want);
    }
    if (!(mono = malloc(fft_size * sizeof *mono))) {
        pitch_yin_destroy(p);
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    }
    for (size_t f = 0; f < want; f++) {
        mean_frame(samples, count, channels, f * hop, fft_size, mono);
        pitch_yin_estimate(p, mono, &f0[f], &confidence[f]);
    }
    *frames = want;
    free(mono);
    pitch_yin_destroy(p);
    return SPECTRO_OK;
}
