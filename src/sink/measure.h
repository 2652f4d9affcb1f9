/* measure: the arithmetic of the measurements made on spectra (--average, --psd, --tone),
 * shared by their sinks (sink_average.c, sink_tone.c) and the tests.
 *
 * Levels are dBFS as DESIGN.md defines them: a bin's "power" here is P_k = 10^(dB_k/10),
 * the square of its amplitude a_k (2|X_k|/sum(w) inside, |X_k|/sum(w) at DC and Nyquist),
 * so a full-scale sine on a bin has P = 1 (0 dBFS) in its peak bin.
 *
 * Power sums. A component's power is the sum of P_k over its main lobe divided by the
 * window's equivalent noise bandwidth in bins, ENBW = N sum(w^2) / sum(w)^2: by Parseval, a
 * sine of peak amplitude A spreads A^2 * ENBW over its lobe in these units, so the sum /
 * ENBW is A^2, and 10 log10 of it reads the sine's level in dBFS (0 for full scale), the
 * same number the peak bin shows when the sine sits on a bin. DC and Nyquist bins, which
 * the level convention halves in amplitude (they stand for half a bin of a one-sided
 * spectrum), count twice in power and half in width. White noise of variance s^2 then
 * sums to 2 s^2 over the whole band 0 .. rate/2 (a full-scale sine's mean square is 1/2).
 *
 * Thread safety: plain values and functions; an accumulator belongs to one thread.
 */
#ifndef SPECTRO_MEASURE_H
#define SPECTRO_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* ---- what --average keeps --------------------------------------------------------------- */

typedef enum {
    MEASURE_MEAN, /* power mean: mean of 10^(dB/10), back to dB (Welch's average) */
    MEASURE_MAX,  /* peak hold: the highest level each bin reached */
    MEASURE_MIN   /* minimum hold */
} measure_average;

/* The table of modes, in --help's order: names "mean", "max", "min". */
int measure_average_count(void);
const char *measure_average_name(int i); /* NULL out of range */
const char *measure_average_help(int i); /* a note for --help; NULL out of range */
/* SP_EINVAL naming --average and the valid names otherwise. */
int measure_average_parse(const char *text, measure_average *out, sp_errinfo *ei);

/* ---- the window's part -------------------------------------------------------------------- */

typedef struct {
    double enbw_bins;  /* N sum(w^2) / sum(w)^2: 1 rect, 1.5 hann, 2.004 blackman-harris ... */
    double null_bins;  /* the first null (or first minimum) of the window's spectrum, in bins */
    int lobe_bins;     /* K: a component's power is the sum of bins c-K .. c+K around its
                        * strongest bin c; K = ceil(null_bins - 0.05): rect 1, hann and
                        * hamming 2, blackman 3, kaiser:8.6 3, blackman-harris 4, flattop 5 */
} measure_window;

/* From the n coefficients the FFT used (n >= 1). The main lobe is found on the window's
 * spectrum (DTFT, 1/64-bin steps up to 24 bins) of the window resampled to at most 1024
 * points: its shape in bins does not depend on n. */
void measure_window_of(const float *w, size_t n, measure_window *out);

/* The offset that turns a level (dBFS) into a density (dBFS/Hz): -10 log10(ENBW * bin_hz). */
double measure_psd_offset_db(const measure_window *w, double bin_hz);

/* ---- the accumulator ------------------------------------------------------------------------ */

typedef struct measure_accum measure_accum;

/* One spectrum of `bins` per channel, in double. SP_EINVAL, SP_ENOMEM. */
int measure_accum_create(measure_average mode, int channels, size_t bins, measure_accum **out);
/* Adds nframes dB spectra (db[f*bins + k]) of a channel. */
void measure_accum_add(measure_accum *a, int channel, size_t nframes, const float *db);
/* A power mean's (MEASURE_MEAN) one dB spectrum of a channel, as measure_accum_add adds it,
 * with each bin's power (10^(db/10), the very value added) written to pw[bins]: for a caller
 * that keeps other averages of the same powers. */
void measure_accum_add_powers(measure_accum *a, int channel, const float *db, double *pw);
uint64_t measure_accum_frames(const measure_accum *a, int channel);
/* The result in dB plus offset_db (0, or measure_psd_offset_db), never below the dB floor
 * plus the offset; with no frame added, the floor. */
void measure_accum_db(const measure_accum *a, int channel, double offset_db, float *out);
/* The result as power P_k (the mode's spectrum, 10^(dB/10)); with no frame, 1e-20. */
void measure_accum_power(const measure_accum *a, int channel, double *out);
/* Forgets the channel's frames (a live --tone starts each second afresh). */
void measure_accum_reset(measure_accum *a, int channel);
void measure_accum_destroy(measure_accum *a); /* NULL is a no-op */

/* ---- tone analysis ---------------------------------------------------------------------------- */

#define MEASURE_MAX_HARMONIC 10

/* The tone analysis's window unless one is chosen (the library's spectro_tone_window; the
 * program's --tone writes it as cli.c's TONE_KAISER_BETA until it reads it from here). */
#define MEASURE_TONE_WINDOW "kaiser:20"

/* The band of a tone analysis: lo, hi as asked (negative: not asked), resolved to
 * 20 Hz .. 20 kHz clipped to Nyquist by default. SP_EINVAL naming --fmin/--fmax when the
 * band is empty. */
int measure_tone_band(double lo, double hi, double rate, double *lo_out, double *hi_out, sp_errinfo *ei);

typedef struct {
    int n;             /* 2 .. 10 */
    double hz, dbfs;
} measure_harmonic;

typedef struct {
    double fundamental_hz, fundamental_dbfs;
    int harmonics;     /* how many in harmonic[] (those at or below the band's top) */
    measure_harmonic harmonic[MEASURE_MAX_HARMONIC - 1];
    double thd_percent, thd_db, thdn_db, snr_db, sinad_db, enob_bits, noise_dbfs;
    double band_lo, band_hi;
} measure_tone;

/* Tone analysis of one averaged power spectrum p[0 .. n/2] (measure_accum_power) of an
 * n-point FFT at `rate`, in the band lo .. hi Hz (measure_tone_band). fundamental_hz > 0:
 * the strongest bin within one bin of it; 0: the strongest bin of the band (above the DC
 * region); its frequency is the power centroid of its lobe. Definitions
 * (README "Measurements"): with K the window's lobe_bins and d the noise per bin (the mean
 * of the band's bins outside the DC region 0..K and every lobe),
 *   F = the fundamental's lobe sum, H = the harmonics' lobe sums (2..10, up to the band's
 *   top), noise = d * the band's width in bins, D = the band's power outside the DC region
 *   and the fundamental's lobe, plus d for each bin of those two;
 *   thd = H/F, thd+n = D/F, snr = F/noise, sinad = F/D, enob = (sinad_db - 1.76) / 6.02,
 *   levels = 10 log10(sum / ENBW) dBFS. Ratios are clamped to +-200 dB.
 * SP_EINVAL (naming --tone or --fmin/--fmax) when the band holds no bin above the DC
 * region or the given fundamental lies outside it. */
int measure_tone_analyze(const double *p, size_t n, double rate, const measure_window *w, double lo, double hi,
                         double fundamental_hz, measure_tone *out, sp_errinfo *ei);

#endif
