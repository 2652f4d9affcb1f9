/* spectro_loudness: the engine's loudness meter (src/sink/loudness.h) under the API's names,
 * with its per-step levels (the window's level meters, API version 6). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "loudness.h"

#define LOUDNESS_RESULT_V3 (offsetof(spectro_loudness_result, steps) + sizeof(uint64_t))

struct spectro_loudness {
    loudness_meter *m;
    int rate;
    int added;              /* samples were added (keep_levels comes too late) */
    int keep;               /* the step levels are kept (API version 6) */
};

int spectro_loudness_create(int sample_rate, int channels, const double *weights, spectro_loudness **out,
                            spectro_error *err)
{
    spectro_loudness *l;
    sp_errinfo ei = {{0}};
    int rc;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "out is NULL");
    if (sample_rate < 400 || sample_rate > 1000000)
        return api_fail(err, SPECTRO_EINVAL, "sample_rate %d: must be from 400 to 1000000 Hz", sample_rate);
    if (channels < 1 || channels > LOUDNESS_MAX_CHANNELS)
        return api_fail(err, SPECTRO_EINVAL, "channels %d: must be from 1 to %d", channels, LOUDNESS_MAX_CHANNELS);
    for (int c = 0; weights && c < channels; c++)
        if (!isfinite(weights[c]) || weights[c] < 0.0)
            return api_fail(err, SPECTRO_EINVAL, "weights[%d] %g: must be finite and not negative", c, weights[c]);
    if (!(l = calloc(1, sizeof *l)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    if ((rc = loudness_meter_create(sample_rate, channels, weights, &l->m, &ei)) != SP_OK) {
        free(l);
        return api_from_engine(err, rc, &ei);
    }
    l->rate = sample_rate;
    *out = l;
    return SPECTRO_OK;
}

void spectro_loudness_destroy(spectro_loudness *m)
{
    if (!m)
        return;
    loudness_meter_destroy(m->m);
    free(m);
}

int spectro_loudness_add(spectro_loudness *m, const float *samples, size_t frames, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!m)
        return api_fail(err, SPECTRO_EINVAL, "the loudness meter is NULL");
    if (!samples && frames > 0)
        return api_fail(err, SPECTRO_EINVAL, "samples is NULL");
    if ((rc = loudness_meter_add(m->m, samples, frames, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    m->added |= frames > 0;
    return SPECTRO_OK;
}

uint64_t spectro_loudness_steps(const spectro_loudness *m)
{
    return m ? loudness_meter_steps(m->m) : 0;
}

double spectro_loudness_momentary(const spectro_loudness *m, uint64_t step)
{
    return m && step < SIZE_MAX ? loudness_meter_momentary(m->m, (size_t)step) : NAN;
}

double spectro_loudness_short_term(const spectro_loudness *m, uint64_t step)
{
    return m && step < SIZE_MAX ? loudness_meter_short_term(m->m, (size_t)step) : NAN;
}

int spectro_loudness_get_result(const spectro_loudness *m, spectro_loudness_result *out, spectro_error *err)
{
    spectro_loudness_result full;
    loudness_result r;
    sp_errinfo ei = {{0}};
    int rc;
    if (!m || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", m ? "out" : "the loudness meter");
    if ((rc = api_check_size(out->size, LOUDNESS_RESULT_V3, "spectro_loudness_result", err)) != SPECTRO_OK)
        return rc;
    if ((rc = loudness_meter_result(m->m, &r, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    if (r.steps < LOUDNESS_MOMENTARY_STEPS)
        return api_fail(err, SPECTRO_EINPUT,
                        "loudness needs at least 0.4 s of audio (one BS.1770 block); %.3f s were added",
                        (double)r.frames / m->rate);
    memset(&full, 0, sizeof full);
    full.size = out->size < sizeof full ? out->size : sizeof full;
    full.integrated_lufs = r.integrated_lufs;
    full.loudness_range_lu = r.loudness_range_lu;
    full.momentary_max_lufs = r.momentary_max_lufs;
    full.short_term_max_lufs = r.short_term_max_lufs;
    full.true_peak_dbtp = r.true_peak_dbtp;
    full.sample_peak_dbfs = r.sample_peak_dbfs;
    full.frames = r.frames;
    full.steps = r.steps;
    memcpy(out, &full, full.size);
    return SPECTRO_OK;
}

/* ---- the level meter's figures (API version 6) ---- */

#define LOUDNESS_LEVELS_V6 (offsetof(spectro_loudness_levels, mean_square) + sizeof(double))

int spectro_loudness_keep_levels(spectro_loudness *m, spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int rc;
    if (!m)
        return api_fail(err, SPECTRO_EINVAL, "the loudness meter is NULL");
    if (m->added)
        return api_fail(err, SPECTRO_EINVAL, "keep_levels: samples were added already (ask before the first add)");
    if ((rc = loudness_meter_keep_levels(m->m, &ei)) != SP_OK)
        return api_from_engine(err, rc, &ei);
    m->keep = 1;
    return SPECTRO_OK;
}

int spectro_loudness_get_levels(const spectro_loudness *m, uint64_t step, spectro_loudness_levels *out,
                                spectro_error *err)
{
    spectro_loudness_levels full;
    loudness_step_levels lv;
    uint64_t steps;
    int rc;
    if (!m || !out)
        return api_fail(err, SPECTRO_EINVAL, "%s is NULL", m ? "out" : "the loudness meter");
    if ((rc = api_check_size(out->size, LOUDNESS_LEVELS_V6, "spectro_loudness_levels", err)) != SPECTRO_OK)
        return rc;
    if (!m->keep)
        return api_fail(err, SPECTRO_EINVAL, "levels: not kept (spectro_loudness_keep_levels before adding)");
    steps = loudness_meter_steps(m->m);
    if (step >= steps)
        return api_fail(err, SPECTRO_EINVAL, "step %llu: out of range (%llu complete steps)", (unsigned long long)step,
                        (unsigned long long)steps);
    /* in range and kept: the engine cannot refuse (no message made on this path) */
    if ((rc = loudness_meter_step_levels(m->m, (size_t)step, &lv, NULL)) != SP_OK)
        return api_fail(err, rc, "step %llu: no levels", (unsigned long long)step);
    full.size = out->size < sizeof full ? out->size : sizeof full;
    full.sample_peak = lv.sample_peak;
    full.true_peak = lv.true_peak;
    full.mean_square = lv.mean_square;
    memcpy(out, &full, full.size);
    return SPECTRO_OK;
}
