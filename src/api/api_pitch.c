/* spectro_pitch_tracker: the engine's YIN estimator (src/sink/pitch.h) one frame at a time
 * (API version 6), the stream's form of spectro_pitch (api_measure.c): the window's pitch
 * trace and any caller that frames its own samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "pitch.h"

#define PITCH_TRACKER_MAX_N ((size_t)1 << 22) /* the analyzer's largest fft_size */

struct spectro_pitch_tracker {
    pitch_yin *yin;
    size_t n;
    float *clean;           /* n: a frame with its non-finite samples as 0 (seldom used) */
};

int spectro_pitch_tracker_create(int sample_rate, size_t fft_size, double fmin, double fmax,
                                 spectro_pitch_tracker **out, spectro_error *err)
{
    spectro_pitch_tracker *t;
    sp_errinfo ei = {{0}};
    int rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    if (sample_rate < 1)
        return api_fail(err, SPECTRO_EINVAL, "sample_rate %d: must be at least 1", sample_rate);
    if (fft_size < 16 || fft_size > PITCH_TRACKER_MAX_N)
        return api_fail(err, SPECTRO_EINVAL, "fft_size %zu: must be from 16 to %zu", fft_size, PITCH_TRACKER_MAX_N);
    if (!isfinite(fmin) || !isfinite(fmax))
        return api_fail(err, SPECTRO_EINVAL, "%s %g: must be finite", isfinite(fmin) ? "fmax" : "fmin",
                        isfinite(fmin) ? fmax : fmin);
    if (!(t = calloc(1, sizeof *t)) || !(t->clean = malloc(fft_size * sizeof *t->clean))) {
        free(t);
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    }
    if ((rc = pitch_yin_create(sample_rate, fft_size, fmin, fmax, &t->yin, &ei)) != SP_OK) {
        spectro_pitch_tracker_destroy(t);
        return api_from_engine(err, rc, &ei);
    }
    t->n = fft_size;
    *out = t;
    return SPECTRO_OK;
}

void spectro_pitch_tracker_destroy(spectro_pitch_tracker *t)
{
    if (!t)
        return;
    pitch_yin_destroy(t->yin);
    free(t->clean);
    free(t);
}

int spectro_pitch_tracker_estimate(spectro_pitch_tracker *t, const float *frame, double *f0, double *confidence,
                                   spectro_error *err)
{
    const float *x = frame;
    if (!t || !frame || !f0 || !confidence)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL",
                        !t ? "the pitch tracker" : !frame ? "frame" : !f0 ? "f0" : "confidence");
    /* the engine's sums take finite samples: a frame holding others is copied with them as
     * 0, as spectro_pitch's mean frames are (one pass over n; no copy otherwise) */
    for (size_t i = 0; i < t->n; i++)
        if (!isfinite(frame[i])) {
            for (size_t k = 0; k < t->n; k++)
                t->clean[k] = isfinite(frame[k]) ? frame[k] : 0.0f;
            x = t->clean;
            break;
        }
    pitch_yin_estimate(t->yin, x, f0, confidence);
    return SPECTRO_OK;
}
