/* view_settings: the window's settings, read from the caller's public job by name
 * (spectro_job_get, after spectro_job_prepare: the values the job's run takes) and parsed
 * here, with the drawing toolkit's lookups for the colour map and the scale. The window
 * reads nothing else of the job's settings; its own analyses are jobs derived from it
 * (view_worker.c), to which it gives the transform and the window back as text. */
#ifndef SPECTRO_VIEW_SETTINGS_H
#define SPECTRO_VIEW_SETTINGS_H

#include <stddef.h>

#include "err.h"
#include "render.h"
#include "spectro.h"

/* The setting channel's "mix" and "all" (an index otherwise). */
#define VIEW_CHANNEL_MIX (-1)
#define VIEW_CHANNEL_ALL (-2)

/* The transforms the window shows (docs/transforms.md), VIEW_XF_NONE 0: the linear
 * spectrum. MFCC only comes from a job with an output (the window refuses it). */
typedef enum { VIEW_XF_NONE, VIEW_XF_MEL, VIEW_XF_MFCC, VIEW_XF_CHROMA, VIEW_XF_CQT, VIEW_XF_REASSIGN } view_xf_kind;

#define VIEW_CQT_DEFAULT_FMIN 32.703195662574829 /* C1, the setting cqt's default lowest bin */

/* A transform as its settings ask for it. */
typedef struct {
    view_xf_kind kind;
    int bands;      /* mel: bands; cqt: bins an octave; 0: the setting's default */
    int coeffs;     /* mfcc */
    double tuning;  /* chroma: semitones from A4 = 440 Hz */
    double fmin;    /* Hz; < 0: the transform's default (fmin not given) */
    double fmax;    /* Hz; 0: Nyquist */
} view_xf;

typedef struct {
    const char *input;       /* the input the window shows (compare: B), the job's copy;
                              * NULL: the microphone */
    int realtime;
    size_t n, hop;           /* the FFT size and hop the run takes */
    char window[64];         /* the window function as the run takes it ("kaiser:20" with tone) */
    int channel;             /* VIEW_CHANNEL_MIX, VIEW_CHANNEL_ALL or an index */
    double start, end, duration; /* the input's range in s (end, duration 0: none) */
    char raw_format[64];     /* the setting raw_format's text ("" none) */
    int stream;              /* the setting stream */
    view_xf xform;           /* the transform asked for */
    render_config render;    /* the pictures: size, scale, colour map and range, fmin/fmax,
                              * the levels' unit, the font the job finds (font_search) */
    char font[4096];         /* render.font_search's storage (a path) */
    double band_lo, band_hi; /* the tone's band (fmin, fmax given); < 0: 20 Hz, 20 kHz */
    double tone_hz;          /* tone F; 0: the strongest */
    int compare;             /* compare: A over B */
    const char *compare_a, *compare_b; /* their paths (the job's inputs 0 and 1) */
    int transfer;            /* transfer without an output: the transfer view */
    int transfer_ref, transfer_meas; /* its channels */
    int remove_delay;
    char reference[4096];    /* the setting reference's path ("" none) */
    /* the panel's start: view with tone (its tone analysis on) or with average mean (the
     * running average in infinite mode); bands with no output: the band bars (1/B octave,
     * 0 off), weighted by weighting (spectro_bands_weighting_name's index) */
    int panel_tone, panel_average;
    int bands, bands_weighting;
} view_settings;

/* No transform: kind VIEW_XF_NONE, fmin -1 (the default), fmax 0. */
view_xf view_xf_none(void);

/* s from pub, prepared (spectro_job_prepare, as spectro_job_run does first). SP_EINVAL with
 * the job's line where a value does not read as its setting says (a setting added to the
 * job that the window does not know yet). */
int view_settings_read(spectro_job *pub, view_settings *s, sp_errinfo *ei);

/* The transform as the settings that ask for it, set on a derived job j; its fmin, fmax. */
int view_settings_set_xform(spectro_job *j, const view_xf *x, spectro_error *e);

#endif
