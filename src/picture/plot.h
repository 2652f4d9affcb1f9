/* plot: a spectrum plot (--png with --average): level against frequency.
 *
 *   +--------------------------------------------------------------+
 *   | title                                                        |
 *   |  L    0 -+--------------------------------------------+      |
 *   |  e        |   997.0 Hz  -0.0 dB                 ch 0 |       |
 *   |  v  -20 -|        ^                                  |       |
 *   |  e        |  grid |       one curve per channel      |       |
 *   |  l -120 -+--------------------------------------------+      |
 *   |          20 Hz     100 Hz      1 kHz       10 kHz            |
 *   |                        Frequency                             |
 *   +--------------------------------------------------------------+
 *
 * The frequency axis is the picture's (--scale linear/log/mel, --fmin/--fmax: scale.h's map
 * and ticks, left = fmin), the level axis spans --db-range (top = its high end). A pixel
 * column shows the highest bin that falls in it, or the value interpolated between the two
 * nearest bins where a column is narrower than a bin; levels outside the range sit on its
 * edge. Curves take their colours from the colour map (one channel: 0.85 along it; several:
 * 0.3 .. 0.95, with a legend). Up to PLOT_MAX_LABELS peaks are labelled, most prominent
 * first (topographic prominence in dB, at least 10 dB), with the frequency and level of the
 * --peaks refinement (peaks.h, through plot_config.refine), skipping any whose label would
 * overlap another's label or marker. The output depends on the spectra and the config alone.
 *
 * Built with the renderer only (SPECTRO_HAVE_RENDER: SDL2_ttf, libpng); without it
 * plot_create refuses with the renderer's message.
 *
 * Thread safety: one thread uses a plot at a time; create and destroy (SDL2_ttf's init
 * count) must not run concurrently with render_create/render_destroy.
 */
#ifndef SPECTRO_PLOT_H
#define SPECTRO_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "render.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PLOT_MAX_LABELS 5

typedef struct {
    render_config rc;   /* size, scale, colour map, --db-range, --fmin/--fmax, fonts, title
                         * (NULL or "": none); the strings are borrowed until destroy */
    double rate;        /* Hz */
    size_t n;           /* FFT size: spectra hold n/2+1 bins, bin k at k*rate/n */
    int channels;       /* curves, 1 .. RENDER_MAX_CHANNELS */
    const char *ylabel; /* the level axis' caption; NULL: "Level (dBFS)" */
    /* A labelled peak's frequency and level from its bin and the levels of bins bin-1, bin,
     * bin+1: the --peaks refinement (peaks.h's peaks_refine with the spectra's window),
     * handed down by the caller since the picture stage does not link the sinks; required.
     * ctx is borrowed until destroy. */
    void (*refine)(const void *ctx, size_t bin, float l, float c, float r, double *hz, double *db);
    const void *refine_ctx;
    int no_labels;      /* 1: no peak labels (curves that are not levels: a phase, a
                         * coherence); refine may then be NULL */
    double mark_hz;     /* > 0: a vertical line across the plot at this frequency (PLOT_COL_MARK),
                         * with mark_text (borrowed; NULL: none) beside its top (--bandwidth's
                         * cut-off) */
    const char *mark_text;
} plot_config;

extern const rgb8 PLOT_COL_MARK; /* the marked frequency's line */

typedef struct plot plot;

/* A labelled peak, as the last plot_draw placed it. */
typedef struct {
    int channel;
    double hz, db;      /* the peak between bins (plot_config.refine) */
    int x, y;           /* its marker's pixel */
    render_rect box;    /* the label's box */
    char text[64];      /* "997.0 Hz  −0.0 dB" (UTF-8) */
} plot_label;

/* Loads the font and lays the picture out. SP_EINVAL naming the option (--size, --fmin,
 * --fmax, --db-range) for a bad config, SP_EIO without a font, SP_EUNSUPPORTED when built
 * without the renderer. */
int plot_create(const plot_config *cfg, plot **out, sp_errinfo *ei);

/* Draws the spectra (db[c]: n/2+1 levels of channel c) into rgba: width*height*4 bytes,
 * rows top-down, R G B A, opaque. */
int plot_draw(plot *p, const float *const *db, uint8_t *rgba, sp_errinfo *ei);

/* plot_draw into a buffer of its own, then png_write_rgba (temporary file and rename;
 * SP_EIO naming the path). */
int plot_write_png(plot *p, const float *const *db, const char *path, sp_errinfo *ei);

/* The plotting area (the curves' pixels), and where a frequency's column and a level's row
 * fall in the picture (not clamped). */
render_rect plot_area(const plot *p);
double plot_x_of_hz(const plot *p, double hz);
double plot_y_of_db(const plot *p, double db);

/* Moves the marked frequency (plot_config.mark_hz; 0: none) before the next draw. */
void plot_set_mark(plot *p, double hz);

/* The labels of the last plot_draw (at most max); returns how many. */
int plot_labels(const plot *p, plot_label *out, int max);

void plot_destroy(plot *p); /* NULL is a no-op */

#ifdef __cplusplus
}
#endif
#endif
