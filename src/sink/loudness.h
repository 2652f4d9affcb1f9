/* loudness: the ITU-R BS.1770-4 / EBU R128 loudness meter of interleaved samples
 * (docs/measurements.md "Loudness"): K-weighting (two biquads made for the rate), 100 ms
 * steps, 400 ms momentary and 3 s short-term blocks over them, gated integrated loudness,
 * the EBU Tech 3342 loudness range, the 4x oversampled true peak of BS.1770-4 Annex 2 and
 * the sample peak.
 *
 * The meter keeps two numbers per 100 ms step (16 bytes: 576 kB an hour), so every result
 * can be read at any time and the gating sees every block. Thread safety: one meter, one
 * thread at a time.
 */
#ifndef SPECTRO_LOUDNESS_H
#define SPECTRO_LOUDNESS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define LOUDNESS_MAX_CHANNELS 64
#define LOUDNESS_STEPS_PER_S 10   /* a step is 100 ms: the blocks' 75 % overlap */
#define LOUDNESS_MOMENTARY_STEPS 4 /* 400 ms */
#define LOUDNESS_SHORT_STEPS 30   /* 3 s */

/* What a whole input measures; -INFINITY where nothing was measured (silence, or shorter
 * than the block: short_term_max_lufs and loudness_range_lu need 3 s). */
typedef struct {
    double integrated_lufs;
    double loudness_range_lu;
    double momentary_max_lufs;
    double short_term_max_lufs;
    double true_peak_dbtp;
    double sample_peak_dbfs;
    uint64_t frames;            /* samples per channel taken */
    size_t steps;               /* complete 100 ms steps */
} loudness_result;

typedef struct loudness_meter loudness_meter;

/* The channel weights of BS.1770-4 Table 3 for a channel count in the WAV order: 1.0 for
 * L, R, C; 1.41 for the surrounds; 0 for the LFE of 5.1 (6 channels: L R C LFE Ls Rs) and
 * 7.1 (8: L R C LFE and four surrounds); 5 channels are L R C Ls Rs; any other count
 * weighs every channel 1.0. */
void loudness_default_weights(int channels, double *w);

/* A meter for `channels` interleaved channels at `rate` Hz; weights (channels values) NULL
 * for loudness_default_weights. SP_EINVAL for a rate below 400 Hz or above 1 MHz (the
 * filters' design), a channel count outside 1 .. LOUDNESS_MAX_CHANNELS or a weight that is
 * negative or not finite. */
int loudness_meter_create(int rate, int channels, const double *weights, loudness_meter **out, sp_errinfo *ei);
void loudness_meter_destroy(loudness_meter *m);

/* Takes `frames` interleaved frames, following the earlier ones. SP_ENOMEM when the step
 * series cannot grow. */
int loudness_meter_add(loudness_meter *m, const float *x, size_t frames, sp_errinfo *ei);

/* Complete 100 ms steps so far. */
size_t loudness_meter_steps(const loudness_meter *m);
/* The momentary (400 ms) and short-term (3 s) loudness in LUFS of the block that ends with
 * step `step` (0-based); NAN before the block is complete, -INFINITY for silence. */
double loudness_meter_momentary(const loudness_meter *m, size_t step);
double loudness_meter_short_term(const loudness_meter *m, size_t step);

/* A level meter's figures per 100 ms step (the window's meters, docs/measurements.md "Level
 * meters"): kept from the first loudness_meter_add on once asked for, at 16 bytes a step
 * more. The true peak is then searched in every step, not only where it may beat the
 * whole input's (the cost of the Annex 2 filter on all samples). */
typedef struct {
    double sample_peak;        /* largest |x| of the step's samples, every channel (linear) */
    double true_peak;          /* largest 4x interpolated |x| (Annex 2), at least sample_peak */
    double mean_square;        /* mean of the unweighted x^2 over the step's samples, channels
                                * summed with their weights as the loudness sums them */
} loudness_step_levels;

/* Asks for loudness_step_levels from now on; SP_EINVAL once samples were taken. */
int loudness_meter_keep_levels(loudness_meter *m, sp_errinfo *ei);
/* Step `step`'s levels (0-based, complete steps only); SP_EINVAL when out of range or not
 * kept. */
int loudness_meter_step_levels(const loudness_meter *m, size_t step, loudness_step_levels *out, sp_errinfo *ei);

/* Everything so far (a copy of the short-term series is sorted: O(steps log steps)). */
int loudness_meter_result(const loudness_meter *m, loudness_result *r, sp_errinfo *ei);

#endif
