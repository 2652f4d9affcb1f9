/* bandwidth: where a long-term spectrum falls off for good, and what encoder such a cut-off
 * suggests (docs/measurements.md "Codec bandwidth"): the engine of the --bandwidth output
 * (sink_bandwidth.c) and of the library's spectro_analyzer_bandwidth.
 *
 * The power spectrum in dB, smoothed over BANDWIDTH_SMOOTH_HZ. A low-pass shows as a cliff:
 * the highest frequency c where the level just below (c - EDGE_HZ) stands CLIFF_DB or more
 * above everything from c + EDGE_HZ up (not the gradual fall of a programme's highs). Its
 * passband level P is the mean level REF_FROM_HZ to REF_TO_HZ below c, and the cut-off is
 * the lowest frequency from which the level stays DROP_DB or more below P. No cliff: the top
 * of the spectrum. A cut-off at FULL_BAND of Nyquist or above is "full-band". */
#ifndef SPECTRO_BANDWIDTH_H
#define SPECTRO_BANDWIDTH_H

#include <stddef.h>

#include "err.h"

typedef struct {
    double cutoff_hz;
    int full_band;
    const char *encoders;  /* typical for that cut-off (static), or NULL */
    double below_db, above_db; /* the mean smoothed levels within 1.5 kHz below and above it */
    double nyquist_hz;
} bandwidth_result;

/* From power[bins] (linear power, bins bin_hz apart from 0 Hz up to Nyquist): the result, and
 * the level in dB into level_db[bins] when not NULL. SP_ENOMEM. */
int bandwidth_find(const double *power, size_t bins, double bin_hz, bandwidth_result *r, double *level_db,
                   sp_errinfo *ei);

#endif
