/* view_sig: what the window takes of the samples themselves (the job stream's samples), for
 * the level meters (view_meter.c), the pitch trace (view_pitch.c), the waveform strip
 * (view_wave.c) and the oscilloscope (view_scope.c); the formulas are docs/measurements.md's
 * "Level meters" and "Pitch".
 *
 *   analysis thread (view_worker.c)             window thread
 *   samples -> meters: one BS.1770 meter a      the keys v f r o toggle them; the meters and
 *              channel, levels per 100 ms       the pitch are computed only while wanted
 *              step (spectro_loudness)          (a file's are then analysed again from its
 *           -> pitch: YIN per frame             start: view_restart), the waveform of a file
 *              (spectro_pitch_tracker)          and the scope of a live input always (a
 *           -> waveform: min/max of blocks      compare a sample)
 *           -> scope: the last samples
 *   all under view_sig.mu, a lock of its own: the spectra's path (shared.mu) never waits
 *   for it. The pitch's FFTs run outside it.
 */
#ifndef SPECTRO_VIEW_SIG_H
#define SPECTRO_VIEW_SIG_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "spectro.h"

#define SIG_METER_CH 8           /* channels metered: the first ones */
#define SIG_WAVE_BLOCK 64        /* samples a waveform block */
#define SIG_WAVE_GROUP 64        /* blocks a waveform group (the coarse level) */
#define SIG_SCOPE_LEN 16384      /* live samples kept for the scope (a power of two) */
#define SIG_HOLD_STEPS 30        /* the peak hold: the highest peak of the last 3 s */

typedef struct {
    pthread_mutex_t *mu;         /* shared.sig_mu: the views' own lock */
    int open;                    /* made for the current stream */
    int rate, channels, live;    /* source channels */
    size_t n, hop;
    double start_s;              /* sample 0 is this far into the input */
    uint64_t pos;                /* the next sample expected (a live jump: skipped samples) */
    /* what the window wants computed (set by its thread) and what this run computes
     * from its start (a file's meters and pitch are whole only then) */
    int want_meters, want_pitch;
    int meters_from_start, pitch_from_start;
    /* meters: one single-channel BS.1770 meter per channel, levels kept per step */
    spectro_loudness *lm[SIG_METER_CH];
    int nlm;
    uint64_t meter_first;        /* the sample the meters started at */
    float *deint;                /* the analysis thread's: one channel's samples */
    size_t deint_cap;
    /* pitch: f0 of frames pf_first .. pf_first + nf0 - 1 (0 unvoiced, NaN none) */
    spectro_pitch_tracker *yin;  /* the analysis thread's, with mono and have */
    float *mono;                 /* 2n: `have` mono samples that end at sample mono_end */
    size_t have;
    uint64_t mono_end;
    float *f0;
    size_t nf0, f0_cap;
    uint64_t pf_first;
    char pitch_err[512];         /* the estimator could not be made ("" none) */
    /* waveform (not live): min and max over every channel of each block of
     * SIG_WAVE_BLOCK samples, and of each group of SIG_WAVE_GROUP blocks */
    float *bmin, *bmax, *gmin, *gmax;
    size_t nb, b_cap, ng, g_cap;
    float cur_min, cur_max;      /* the block being filled */
    size_t cur_n;
    /* scope (live): the channels' mean, the last SIG_SCOPE_LEN samples */
    float *scope;
    uint64_t scope_n;            /* written in all */
} view_sig;

/* The window's side: the switches and what was last drawn (for the stats). */
typedef struct {
    int meters, pitch, wave, scope;
    /* the meters as last drawn: dBFS / LUFS (-inf: silence, NaN: not yet) */
    int nmeter;
    struct {
        double peak, rms, true_peak, momentary, short_term, hold;
        int bar_x, bar_y, bar_w, bar_h; /* the bar's frame (0 dBFS at its top) */
        int peak_y;                     /* the peak's top row */
    } meter[SIG_METER_CH];
    double meter_t;              /* the time (s) the meters read (NaN: live, the newest) */
    /* the pitch trace as last drawn: its points in view, and the cursor's note */
    int pitch_points;
    double pitch_med_hz;         /* the median f0 of the voiced points in view */
    int pitch_med_y;             /* ... its row in the first panel */
    char pitch_readout[600];
    /* the waveform strip and the scope as last drawn */
    int wave_x, wave_y, wave_w, wave_h;
    float *wave_lo, *wave_hi;    /* per column: min, max */
    size_t wave_cap;
    int scope_x, scope_y, scope_w, scope_h;
    int scope_trig;              /* 1: triggered on a rising zero crossing */
    float scope_start, scope_next; /* the first two samples drawn */
    double scope_peak;           /* the largest |x| shown */
} view_sig_ui;

/* The analysis thread's (view_worker.c): a new stream's state made apart (then swapped in
 * under the lock), the samples, the end. */
int view_sig_open(view_sig *s, pthread_mutex_t *mu, const spectro_stream_info *in, int want_meters, int want_pitch,
                  sp_errinfo *ei);
int view_sig_samples(view_sig *s, uint64_t first, size_t nframes, const float *x, sp_errinfo *ei);
/* Frees what open made (the lock stays); NULL parts are fine. */
void view_sig_clear(view_sig *s);

/* view_pitch.c's part of the samples (outside the lock) */
void view_pitch_samples(view_sig *s, uint64_t first, size_t nframes, const float *x);
/* view_wave.c's and view_scope.c's (under the lock) */
void view_wave_samples(view_sig *s, const float *x, size_t nframes);
void view_scope_samples(view_sig *s, const float *x, size_t nframes);
int view_wave_grow(view_sig *s); /* 0: out of memory */

/* The note nearest hz and the cents to it, "A4 +3 ct" (A4 = 440 Hz); "—" below 8 Hz. */
void view_note_name(double hz, char *buf, size_t len);

#endif
