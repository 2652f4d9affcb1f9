/* xform: transforms beyond the linear STFT (docs/transforms.md): mel, MFCC, chroma,
 * constant-Q and reassigned spectrograms, each a row of the transform table (xform_table.c)
 * and a file of its own.
 *
 * A transform is made for one frame size n, rate and analysis window. It takes the frames
 * themselves (the framer's stft_set_frames) and turns each into one row of xform_width
 * floats (xform_rows): on the pool's threads (base/par.h), each part windowing its frames
 * with the windows the transform needs (1 to 3), transforming them with a cpu plan of its
 * own and reducing the spectra while they are in its cache. Levels follow docs/design.md
 * "Levels (dBFS)": the power of bin k is p_k = a_k^2, a full-scale sine on a bin 1 (0 dB).
 *
 * Thread safety: one thread calls xform_rows at a time (its parts' plans and buffers are
 * the transform's); the other functions read only.
 */
#ifndef SPECTRO_XFORM_H
#define SPECTRO_XFORM_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "fft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { XFORM_NONE, XFORM_MEL, XFORM_MFCC, XFORM_CHROMA, XFORM_CQT, XFORM_REASSIGN } xform_kind;

#define XFORM_MEL_DEFAULT_BANDS 128 /* --mfcc's bands when --mel is not given (librosa's) */
#define XFORM_CQT_DEFAULT_FMIN 32.703195662574829 /* C1 */
#define XFORM_MAX_BANDS 4096
#define XFORM_CQT_MAX_BPO 96 /* --cqt's bins per octave */

typedef struct {
    xform_kind kind;
    int bands;          /* mel: the bands (mfcc: 0 = XFORM_MEL_DEFAULT_BANDS); cqt: bins per octave */
    int coeffs;         /* mfcc: K */
    double fmin, fmax;  /* Hz; fmin < 0: the default (mel 0, cqt C1); fmax 0: the default
                         * (mel: Nyquist, cqt: the highest bin below Nyquist) */
    double tuning;      /* chroma: semitones from A4 = 440 Hz, -0.5 .. 0.5 */
    int tuning_auto;    /* chroma: the caller estimates the tuning from the frames
                         * (xform_tuning_estimate) and makes the transform again with it in
                         * .tuning (the sidecar says "tuning_auto": true) */
} xform_spec;

/* XFORM_NONE, fmin -1, fmax 0. */
xform_spec xform_spec_default(void);

typedef struct xform xform;

/* Makes the transform for frames of n samples at `rate`, analysed with window[0..n) (the
 * run's, borrowed only during the call). SP_EINVAL with a message in the transform's terms
 * ("mel: 600 bands ...", "cqt: fmin 32.7 Hz needs N >= 32768") for a spec that has no
 * meaning at this n and rate; SP_ENOMEM. */
int xform_create(const xform_spec *spec, size_t n, double rate, const float *window, xform **out, sp_errinfo *ei);
void xform_destroy(xform *x); /* NULL is a no-op */

/* The transform's name ("mel"), floats per frame, values per bin (1; reassign 3: Hz, s, dB)
 * and the frequency of each of the width/depth columns (Hz; NULL for mfcc). */
const char *xform_name(const xform *x);
size_t xform_width(const xform *x);
size_t xform_depth(const xform *x);
const double *xform_freqs(const xform *x);
/* 1 when the values are dB levels (mel, cqt): what a power mean averages. */
int xform_is_db(const xform *x);
/* The sidecar's members for the transform: ",\n  \"transform\": {...}" (owned by x). */
const char *xform_json(const xform *x);

/* nframes rows into out[f*width ..]: frame f is the n samples at sig + f*hop; t0 the time
 * of frame 0's centre and dt the frame step (s: reassignment's times). SP_ENOMEM, or the
 * device's error after xform_use_plan (xform_error says which). */
int xform_rows(xform *x, const float *sig, size_t hop, size_t nframes, double t0, double dt, float *out);

/* chroma's --tuning auto (xform_tuning.c): librosa's estimate_tuning on the power spectra
 * of the frames in the spans (frame f of a span: the n samples at sig + f*hop), windowed
 * with window[0..n) at `rate`: the pitch of each frame's peaks between 150 Hz and 4 kHz
 * above a tenth of the frame's largest (parabolic interpolation), those at or above the
 * median peak's magnitude counted in a histogram of their distance from the equal-tempered
 * pitch in 1/100 semitone; the fullest bin's lower edge, -0.5 .. 0.49 semitone (0 without
 * a peak). SP_ENOMEM. */
typedef struct {
    const float *sig;
    size_t hop, nframes;
} xform_span;
int xform_tuning_estimate(const xform_span *spans, size_t nspans, size_t n, double rate, const float *window,
                          double *tuning, sp_errinfo *ei);

/* The rows beside plan's FFT from now on, where its backend has a filter bank for this
 * transform (mel, MFCC, chroma, CQT, reassignment on a GPU backend; docs/transforms.md
 * "Where it runs"): the frames go to the device, only the rows come back. plan (made for
 * x's n and window, with frame step hop) must outlive x and be used by no one else during
 * xform_rows. Returns 1
 * when the device makes the rows, 0 when they stay on the host (the cpu backend, another
 * transform, a size the device lacks), or an error (SP_EGPU, SP_ENOMEM; message in ei). */
int xform_use_plan(xform *x, fft_plan *plan, size_t hop, sp_errinfo *ei);
/* The plan of xform_use_plan is about to go (a session's last run releases it early): the
 * bank made beside it goes first; the rows stay on the host from now on. NULL: nothing. */
void xform_drop_plan(xform *x);
/* xform_rows on device memory after xform_use_plan returned 1: d_sig and d_out CUDA
 * pointers of the plan's device, frames at the plan's hop; returns once the rows are
 * written (reassignment's times: offsets from each frame's time). SP_EUNSUPPORTED when
 * the rows are not made on a device. */
int xform_rows_device(xform *x, const float *d_sig, size_t nframes, float *d_out);
/* "gpu" after xform_use_plan returned 1, else "cpu". */
const char *xform_where(const xform *x);
/* After xform_rows failed: what went wrong ("out of memory", the device's error). */
const char *xform_error(const xform *x);

/* The table of transforms (xform_table.c): ids 0 .. xform_count()-1; the name and one line
 * of help; NULL out of range. */
int xform_count(void);
const char *xform_kind_name(xform_kind kind);
/* 1 when the transform has a filter bank that a GPU backend may run (xform_use_plan). */
int xform_kind_banked(xform_kind kind);

#ifdef __cplusplus
}
#endif
#endif
