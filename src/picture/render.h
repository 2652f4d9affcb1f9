/* render: draws the spectrogram picture offscreen, for --png and for the SDL2 window
 * (the same drawing code).
 *
 *   +--------------------------------------------------------------+
 *   | title (file name and settings)                          dBFS |
 *   |  F  20 kHz -+--------------------------------------+    +--+ 0 |
 *   |  r         |  spectrogram, one panel per channel,   |    |  | -20
 *   |  e  10 kHz -|  stacked top to bottom (top = fmax)    |    |  | ...
 *   |  q         +--------------------------------------+    +--+ -120
 *   |             0:00     0:30     1:00     1:30                  |
 *   |                      Time (m:ss)                             |
 *   +--------------------------------------------------------------+
 *
 * Every frame counts: a pixel column shows the MAXIMUM of the frames that fall in it
 * (nothing is dropped), and frames are stretched when there are fewer than pixels.
 * Memory is bounded whatever the input's length: each channel keeps at most a few times
 * the plot width of accumulated columns (per-pixel-row maxima, 8-bit levels); when they
 * are full, neighbouring columns merge pairwise (max) and the frames per column double.
 * A pixel row shows the maximum of the bins that fall in it, or the value interpolated
 * between the two nearest bins when the row is narrower than a bin (the bottom of a log
 * scale); the bin -> row mapping is computed once at create.
 *
 * Labels are drawn with SDL2_ttf (no display or SDL video needed) in DejaVu Sans, looked
 * for at cfg.font, cfg.font_search, the usual system paths and SPECTRO_FONT_DIR (set at
 * build time); anti-aliased, sized from the picture.
 *
 * Thread safety: one thread uses a render at a time. render_create and render_destroy
 * (SDL2_ttf's init count) must not run concurrently with each other.
 */
#ifndef SPECTRO_RENDER_H
#define SPECTRO_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "scale.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RENDER_MIN_WIDTH 200
#define RENDER_MIN_HEIGHT 150
#define RENDER_MAX_SIZE 16384

typedef struct {
    int width, height;   /* whole picture in pixels (default 1920x1080) */
    freq_scale scale;    /* default linear */
    int colormap;        /* colormap.h id, default viridis */
    float db_lo, db_hi;  /* colour range in dBFS, default -120, 0 */
    double fmin, fmax;   /* Hz; fmin 0 = 0 Hz (log: scale_log_default_fmin), fmax 0 = Nyquist */
    const char *title;   /* top line, UTF-8, copied; NULL or "" = none */
    const char *font;    /* a TTF file; NULL = look for DejaVu Sans */
    const char *font_search; /* tried first in that search, skipped when unreadable, its
                              * bold cut beside it for the title ($SPECTRO_FONT); NULL = none */
    const char *font_bundled; /* tried after the system's fonts: the font installed with
                               * spectro (the app finds it beside its binary); NULL = none */
    const char *level_unit; /* the colour bar's caption and the levels' unit: "dB SPL" with
                             * --spl-offset; NULL: "dBFS" */
    int font_no_system;  /* tests: search neither the system's font folders nor the
                          * source tree's, only font, font_search and font_bundled */
    /* Rows of a transform instead of spectra (docs/transforms.md): `columns` values a frame,
     * drawn bottom up in equal shares of a panel, the axis from the columns' frequencies
     * col_hz (borrowed during render_create): labelled in Hz (col_notes 0: mel), at each C
     * as a note (1: cqt, "C4"), or each column's pitch class (2: chroma), or by index (3:
     * MFCC, col_hz then holds the coefficients' numbers, the axis "MFCC k"). caption: the
     * colour bar's ("dBFS" when NULL). columns 0: n/2+1 bins of spectra on `scale`. */
    size_t columns;
    const double *col_hz;
    int col_notes;
    const char *caption;
    int top_gap;         /* rows left empty between the title and the panels (the window's
                          * waveform strip); default 0 */
    int fold_signed;     /* a difference's picture (--compare): frames, bins and columns that
                          * share a pixel show the value farthest from the middle of the
                          * colour range, either side (the largest difference, + or -), not
                          * the loudest; default 0 */
    const char *panel_labels; /* the panels' labels, top to bottom, one a line ('\n' between
                               * them; copied), each drawn at its panel's top-left on a dark
                               * box, even over the only panel; panels past the lines: "ch 1" as
                               * without. NULL: "ch 0", "ch 1", ... where there are several */
} render_config;

render_config render_config_default(void);

/* The frequency axis cfg asks for at `rate` Hz with n-point spectra (fmax 0 = Nyquist, a
 * log axis from fmin 0 starts at scale_log_default_fmin): SP_EINVAL naming --fmin/--fmax
 * when the range is empty or past Nyquist. The picture and the spectrum plot share it. */
int render_scale_map(const render_config *cfg, double rate, size_t n, scale_map *map, sp_errinfo *ei);

/* Smallest of 1, 2, 5 x 10^k at least min_step: the axes' tick steps. */
double render_nice_125(double min_step);

/* v with `decimals` decimals and a real minus sign (U+2212), as the labels show it. */
void render_format_signed(double v, int decimals, char *buf, size_t len);

#define RENDER_MAX_CHANNELS 256 /* panels one picture stacks (--channel all) */

typedef struct render render;

/* rate: sample rate (Hz); n: FFT size (spectra hold n/2+1 bins); t0, dt: the first
 * frame's time and the frame step (s), for the time axis; channels: stacked
 * spectrograms, one per channel, top to bottom; frames_hint: expected frames per
 * channel (-1 unknown), only a hint for the accumulator's first layout.
 * SP_EINVAL (message names the option: --size, --fmin, --fmax, --db-range, --colormap)
 * for a bad config; SP_EIO when no font can be loaded; SP_ENOMEM. */
int render_create(const render_config *cfg, double rate, size_t n, double t0, double dt, int channels,
                  int64_t frames_hint, render **out, sp_errinfo *ei);

/* Adds nframes spectra (n/2+1 dB values each, row-major) of channel `channel`, frame
 * indices first .. first+nframes-1. Frames normally come in order; any order is accepted.
 * Cost: a vectorised max over the bins per frame, plus O(bins + plot rows) once per
 * accumulated column (in order is cheapest). SP_EINVAL for bad arguments. Matches
 * stft_sink_fn's shape, so it can sit behind a sink directly. */
int render_add(render *r, int channel, uint64_t first, size_t nframes, const float *db);

/* As render_add of frames f0 .. f1-1 whose per-bin maximum is max_db (bins values), when
 * they lie in one accumulated column (within aligned groups of render_frames_per_column
 * frames): the same picture as adding each of them, from one row (sink.h's maxima). */
int render_add_max(render *r, int channel, uint64_t f0, uint64_t f1, const float *max_db);

/* A block of column maxima as fft_stft_reduce makes them (fft_peak_req: a row of bins values
 * for each group of span frames that frames first .. first+nframes-1 touch): the same
 * picture as render_add_max of each row. Where span is render_frames_per_column, the rows
 * that are whole columns are mapped to pixel rows on several threads (par.h). */
int render_add_max_rows(render *r, int channel, uint64_t first, size_t nframes, uint64_t span, const float *rows);

/* The frames per accumulated column the picture starts with (made from its frames_hint;
 * later merges double it, so groups of this many stay within one column). */
uint64_t render_frames_per_column(const render *r);

/* Draws the whole picture into a caller-owned RGBA8888 buffer (width*height*4 bytes,
 * rows top-down, bytes R G B A, opaque). It can be drawn again after more render_add
 * calls (drawing only folds the column being filled into the accumulator). */
int render_draw(render *r, uint8_t *rgba, sp_errinfo *ei);

/* render_draw into a temporary buffer, then png_write_rgba (temporary file + rename;
 * SP_EIO naming the path, nothing left behind on failure). */
int render_write_png(render *r, const char *path, sp_errinfo *ei);

void render_destroy(render *r); /* NULL is a no-op */

/* ---- layout (for the window's mouse read-out, and the tests) ---- */

typedef struct {
    int x, y, w, h;
} render_rect;

/* The picture's palette, shared with the window so that its parts read as one picture. */
typedef struct {
    uint8_t r, g, b;
} rgb8;
extern const rgb8 RENDER_COL_BG, RENDER_COL_FRAME, RENDER_COL_TICK, RENDER_COL_LABEL,
    RENDER_COL_TITLE;

/* The spectrogram panel of a channel (pixel rows y .. y+h-1, top = fmax). */
render_rect render_plot_rect(const render *r, int channel);
/* The colour bar (top row = the colour map at 1.0 = db_hi, bottom row at 0.0 = db_lo). */
render_rect render_colorbar_rect(const render *r);
/* The box of a panel's label, drawn over the panel when there are several channels or
 * cfg.panel_labels names it (w = h = 0 otherwise). */
render_rect render_label_rect(const render *r, int channel);
/* That label's text into buf ("" when the panel has none); returns its length. */
size_t render_label_text(const render *r, int channel, char *buf, size_t len);
/* The frequency scale the panels use (fmin/fmax resolved). */
const scale_map *render_scale(const render *r);

/* Accumulator state of a channel: columns in use, frames per column, frames seen. */
int render_accum_info(const render *r, int channel, size_t *columns, size_t *capacity, uint64_t *frames_per_column,
                      uint64_t *frames);

/* ---- drawing in parts (the window's scrolling picture) ---- */

/* render_draw restricted to the pixels inside `area` (clipped to the picture): they come
 * out exactly as render_draw makes them, the rest of rgba is left alone. rgba is the
 * picture's top-left pixel, rows `pitch` bytes apart (>= width*4), so the picture may sit
 * in a larger image. keep_panels: the panels' pixels are the caller's (drawn with
 * render_draw_column): they are neither cleared nor drawn from the frames added, only
 * what lies over them (channel labels) is drawn. Cost: the parts that meet `area`. */
int render_draw_area(render *r, uint8_t *rgba, size_t pitch, render_rect area, int keep_panels, sp_errinfo *ei);

/* One panel column, as render_draw draws a column that holds the single spectrum db
 * (n/2+1 dB values): render_plot_rect().h RGBA pixels, top (fmax) first, `pitch` bytes
 * apart. O(bins + rows). */
void render_draw_column(render *r, const float *db, uint8_t *rgba, size_t pitch);

/* Moves the time axis: the first frame's time t0 and the frame step dt (s), over
 * `frames` frames (-1: the frames added, as after render_create). For a caller that
 * draws the panels itself. SP_EINVAL for a bad t0 or dt. */
int render_set_time(render *r, double t0, double dt, int64_t frames);

/* The label font: cfg->font, cfg->font_search, the system's DejaVu Sans, SPECTRO_FONT_DIR.
 * `found` receives the path; SP_EIO with advice when there is none. */
int render_find_font(const render_config *cfg, char *found, size_t len, sp_errinfo *ei);

#ifdef __cplusplus
}
#endif
#endif
