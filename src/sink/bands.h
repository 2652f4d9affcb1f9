/* bands: fractional-octave band levels of a spectrum (IEC 61260-1, base 10) with frequency
 * weighting (IEC 61672-1 A, C; Z = none), for --bands and the window's band bars.
 *
 * Bands: G = 10^(3/10); for 1/b octave, mid-band frequencies f_m = 1000 G^(x/b) (b odd) or
 * 1000 G^((2x+1)/(2b)) (b even), edges f_m G^(-1/(2b)) and f_m G^(1/(2b)) (exact, not the
 * nominal labels). The bands kept are those whose mid frequency lies in lo .. hi (2 % either
 * way, so that 20 Hz .. 20 kHz keeps the bands labelled so: 19.95 Hz .. 19.95 kHz) and whose
 * upper edge is at most Nyquist.
 *
 * Level of a band: the power sum of the FFT bins whose centre lies in [lower, upper), each
 * weighted, divided by the window's ENBW (in bins): P_band = sum_k P_k 10^(W(f_k)/10) / ENBW,
 * with P_k = 10^(L_k/10) the bin's level in the dBFS convention (a sine of amplitude A has A^2
 * in its peak bin; by Parseval its lobe sums to A^2 ENBW), the Nyquist bin counted twice (it
 * stands for half a bin of the one-sided spectrum); L_band = 10 log10(P_band) dBFS. A steady
 * sine anywhere in a band reads its level when its main lobe lies inside the band.
 *
 * Resolved bands: a band is resolved when a tone at its mid frequency keeps its main lobe
 * (K bins either side of its peak bin, K the window's lobe half-width, measure.h) and one bin
 * more inside the band on both sides: f_m (1 - G^(-1/(2b))) >= (K + 1) bin_hz. The bands below
 * that (the low bands of a short FFT) are not reported, only listed (bands_unresolved_*): the
 * bands of a bands object are the resolved ones. (No NaN in any output: docs/design.md
 * "Levels (dBFS)".) */
#ifndef SPECTRO_BANDS_H
#define SPECTRO_BANDS_H

#include <stddef.h>

#include "err.h"

typedef enum { BANDS_WEIGHT_Z, BANDS_WEIGHT_A, BANDS_WEIGHT_C, BANDS_WEIGHT_COUNT } bands_weighting;

/* "Z", "A", "C" and back; SP_EINVAL names the option. */
const char *bands_weighting_name(bands_weighting w);
int bands_weighting_parse(const char *text, bands_weighting *out, sp_errinfo *ei);

/* The weighting in dB at f Hz (IEC 61672-1's closed form, 0 dB at 1 kHz; Z: 0). */
double bands_weight_db(bands_weighting w, double f);

typedef struct {
    int fraction;              /* b: 1, 3, 6 or 12 (1/b octave) */
    bands_weighting weighting;
    double lo, hi;             /* mid frequencies kept, Hz (hi clipped to Nyquist's band) */
    double rate;
    size_t n;                  /* FFT size */
    double enbw_bins;          /* the window's (measure_window.enbw_bins) */
    int lobe_bins;             /* the window's K (measure_window.lobe_bins) */
} bands_config;

typedef struct bands bands;

/* SP_EINVAL (one line naming --bands, --fmin/--fmax or -n) for a fraction not 1, 3, 6 or 12,
 * a range that holds no band, or no band of it resolved; SP_ENOMEM. */
int bands_create(const bands_config *cfg, bands **out, sp_errinfo *ei);
void bands_destroy(bands *b); /* NULL is a no-op */

/* The resolved bands, in rising order: band i's mid frequency and edges. */
size_t bands_count(const bands *b);
double bands_mid_hz(const bands *b, size_t i);
double bands_lower_hz(const bands *b, size_t i);
double bands_upper_hz(const bands *b, size_t i);
/* The bands of the range too narrow for the FFT (below the resolved ones): their mid frequencies. */
size_t bands_unresolved_count(const bands *b);
double bands_unresolved_hz(const bands *b, size_t i);

/* Band levels (dBFS) of one spectrum db[0 .. n/2]: out[i] for band i, the dB floor for
 * silence (every bin of the band at the floor). O(bins). */
void bands_levels(const bands *b, const float *db, float *out);

#endif
