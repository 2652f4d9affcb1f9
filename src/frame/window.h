/* window: analysis windows, periodic (DFT-even) as scipy.signal.get_window(name, N) makes
 * them, computed in double precision.
 *
 *   name             scipy equivalent
 *   hann             'hann'
 *   hamming          'hamming'
 *   blackman         'blackman'
 *   blackman-harris  'blackmanharris' (4-term, 0.35875/0.48829/0.14128/0.01168)
 *   flattop          'flattop'
 *   rect             'boxcar'
 *   kaiser[:beta]    ('kaiser', beta), beta defaults to 8.6
 *   gauss[:sigma]    ('gaussian', sigma*N/2): sigma is relative to half the window,
 *                    defaults to 0.4
 */
#ifndef SPECTRO_WINDOW_H
#define SPECTRO_WINDOW_H

#include <stddef.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WINDOW_HANN,
    WINDOW_HAMMING,
    WINDOW_BLACKMAN,
    WINDOW_BLACKMAN_HARRIS,
    WINDOW_FLATTOP,
    WINDOW_RECT,
    WINDOW_KAISER,
    WINDOW_GAUSS
} window_kind;

typedef struct {
    window_kind kind;
    double param; /* kaiser beta or gauss sigma; ignored by the others */
} window_spec;

/* hann */
window_spec window_spec_default(void);

/* The table of window functions, in the order --help lists them and the window's `w` key
 * cycles: ids 0 .. window_count()-1. window_name(i) is the name window_parse() takes
 * ("hann", ..., "kaiser"); NULL out of range. window_spec_at(i) is that window with its
 * default parameter. window_names(buf) writes "hann, hamming, ..., kaiser[:beta], gauss[:sigma]". */
int window_count(void);
const char *window_name(int i);
window_spec window_spec_at(int i);
void window_names(char *buf, size_t len);
/* Window i as --help lists it: "hann", ..., "kaiser[:beta] (beta 8.6)",
 * "gauss[:sigma] (sigma 0.4 of N/2)"; "" out of range. */
void window_help(int i, char *buf, size_t len);

/* Parses "hann", "kaiser", "kaiser:6", "gauss:0.3" ... Returns SP_EINVAL (with a message
 * that lists the valid names) for an unknown name or a bad parameter. */
int window_parse(const char *text, window_spec *out, sp_errinfo *ei);

/* Canonical text of a spec, e.g. "kaiser:8.6"; writes at most len bytes. */
void window_format(const window_spec *spec, char *buf, size_t len);

/* Fills w[0..n-1] with the periodic window (computed in double, stored as float) and
 * returns sum(w) in double through sum_out (may be NULL). n >= 1. */
int window_fill(const window_spec *spec, size_t n, float *w, double *sum_out);

#ifdef __cplusplus
}
#endif
#endif
