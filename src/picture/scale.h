/* scale: the frequency axis. Maps frequencies in [fmin, fmax] to positions u in [0, 1]
 * (0 = fmin at the bottom, 1 = fmax at the top) on a linear, logarithmic or mel scale,
 * and chooses nice tick marks for it.
 *
 *   linear  u = (f - fmin) / (fmax - fmin)
 *   log     u = log(f / fmin) / log(fmax / fmin), fmin > 0
 *   mel     u = (m(f) - m(fmin)) / (m(fmax) - m(fmin)), m(f) = 2595 log10(1 + f/700) (HTK)
 *
 * Plain values and pure functions: safe from any thread.
 */
#ifndef SPECTRO_SCALE_H
#define SPECTRO_SCALE_H

#include <stddef.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FREQ_SCALE_LINEAR, FREQ_SCALE_LOG, FREQ_SCALE_MEL } freq_scale;

/* "linear", "log" or "mel" (case-insensitive); SP_EINVAL with the valid names otherwise. */
int scale_parse(const char *text, freq_scale *out, sp_errinfo *ei);
const char *scale_name(freq_scale s); /* "linear", "log", "mel"; "?" when out of range */
/* The table of scales: ids 0 .. scale_count()-1 are the freq_scale values, in the order
 * --help lists them and the window's `s` key cycles. */
int scale_count(void);

/* HTK mel and its inverse. */
double scale_hz_to_mel(double hz);
double scale_mel_to_hz(double mel);

/* Lowest frequency a log axis starts at when none was asked for: 20 Hz, or bin 1
 * (rate/n) when that is higher. */
double scale_log_default_fmin(double rate, size_t n);

typedef struct {
    freq_scale kind;
    double fmin, fmax; /* Hz */
    double w0, w1;     /* warped fmin and fmax (Hz, ln Hz or mel) */
} scale_map;

/* Prepares a map. SP_EINVAL when fmin < 0, fmax <= fmin, or fmin == 0 on a log scale
 * (resolve it with scale_log_default_fmin first). */
int scale_map_init(scale_map *m, freq_scale kind, double fmin, double fmax, sp_errinfo *ei);

/* f (Hz) -> u; not clamped (below fmin < 0, above fmax > 1). */
double scale_to_unit(const scale_map *m, double hz);
/* u -> f (Hz); the inverse of scale_to_unit. */
double scale_from_unit(const scale_map *m, double u);

typedef struct {
    double hz;
    double u;        /* position, 0 = fmin (bottom) .. 1 = fmax (top) */
    int labeled;     /* 1: a major tick with a label, 0: a minor tick */
    char label[24];  /* "0 Hz", "500 Hz", "2.5 kHz" (UTF-8), empty for minor ticks */
} scale_tick;

/* Nice ticks for an axis length_px pixels long: labelled ticks at least label_gap_px
 * apart (1-2-2.5-5 steps on linear; decades first, then 5s, 2s, the other digits on
 * log and mel), plus unlabelled minor ticks at least 4 px apart. Ticks are in [fmin,
 * fmax], in no particular order. Writes at most max ticks; returns how many. */
int scale_ticks(const scale_map *m, double length_px, double label_gap_px, scale_tick *out, int max);

/* "0 Hz", "440 Hz", "1 kHz", "2.5 kHz", "22.05 kHz". */
void scale_format_hz(double hz, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
