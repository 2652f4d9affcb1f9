/* view_internal.h: the window's parts, shared by its files (view.h is the public side).
 *
 *   view.c          view_window (the job's) and view_run: set-up, the event loop
 *                   (dispatch only), pacing, clean-up
 *   view_env.c      the window's variables of the environment (its own door)
 *   view_settings.c the caller's settings, read from its public job by name
 *   view_worker.c   the analysis thread: a derived job, its stream the view's
 *   view_file.c     the picture's range and snapshot; the whole-file picture, its zoom/scroll
 *   view_live.c     the live picture, drawn a little at a time; the textures
 *   view_frame.c    one frame: layout, picture, spectrum strip, status, overlays
 *   view_overlay.c  text, status line, read-out, message, help
 *   view_input.c    keys, wheel, mouse, frequency zoom
 *   view_bands.c    fractional-octave band bars in the spectrum strip (the b key)
 *   view_strip.c    the strip's boxes: legend, tone figures, harmonics' numbers
 *   view_check.c    for the tests: view_config.verify checks and view_config.stats_path
 *   view_measure.c  the measurement panel: running average, tone marks, CSV export
 *   view_select.c   the selection (a time range, a band) and its spectrum; the two-point mark
 *   view_play.c     playback (the `p` key): the player (view_player.h), the playhead, following it
 *   view_player.c   the player: a stretch read again (spectro_source), played through PortAudio
 *   view_xform.c    transforms (the `x` key): mel, CQT, chroma, reassigned (docs/transforms.md)
 *   view_meter.c    the samples' views (view_sig.h): their keys, the instrument column, meters
 *   view_pitch.c    the pitch trace; view_wave.c the waveform strip; view_scope.c the scope
 *   view_compare.c  --compare A B: A over B, their levels at the cursor, the difference (d)
 *   view_transfer.c --transfer: magnitude, phase, coherence and delay instead of a spectrogram
 *
 *   analysis thread                          window thread (the caller's)
 *   derived job -> stream: dB -> view_store  events, then at most 60 times a second:
 *               (under `mu`, O(bins)/frame)    file: snapshot of the visible spectra
 *                                                (under mu) -> render (the --png code)
 *                                                -> picture, all of it
 *                                              live: the spectra new since the last
 *                                                picture -> their pixel columns, the
 *                                                rest kept (view_draw_live)
 *                                              + live spectrum, status line, overlays
 *                                              -> one streaming texture, updated where
 *                                                the picture changed -> present
 *
 * The window's picture is composed in one RGBA buffer of the drawable size:
 *
 *   +---------------------------------------------+-----------------+
 *   | render_draw: title, axes, panels, colour bar| spectrum curve  |
 *   |                                             | per channel     |
 *   +---------------------------------------------+-----------------+
 *   | status line                                                   |
 *   +---------------------------------------------------------------+
 *
 * Everything here runs on the window's thread except view_worker.c's sink calls, which
 * touch only `shared` (under its mu).
 */
#ifndef SPECTRO_VIEW_INTERNAL_H
#define SPECTRO_VIEW_INTERNAL_H

#include <SDL.h>
#include <SDL_ttf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "canvas.h"
#include "plot.h"
#include "render.h"
#include "spectro.h"
#include "view.h"
#include "view_player.h"
#include "view_settings.h"
#include "view_sig.h"
#include "view_store.h"

#define STORE_BUDGET_LIVE ((size_t)128 << 20)
#define STORE_BUDGET_FILE ((size_t)512 << 20)
#define FRAME_PERIOD (1.0 / 60.0)
#define MIN_WIN_W 560
#define MIN_WIN_H 360
#define MAX_LAT_SAMPLES 65536
#define HOLD_DECAY_DB_S 20.0 /* peak hold falls this fast after HOLD_TIME_S */
#define HOLD_TIME_S 1.0
#define TOAST_S 3.0
/* live: a frame may start this much before it is due, or wait this much after, for new
 * spectra (live_wait); together more than the usual time between two deliveries */
#define ALIGN_EARLY_S (0.5 * FRAME_PERIOD)
#define ALIGN_LATE_S (0.4 * FRAME_PERIOD)
/* live with vsync: after a present returns, new spectra are waited for from VSYNC_OPEN_S
 * to VSYNC_LATE_S (vsync_wait) */
#define VSYNC_OPEN_S (0.15 * FRAME_PERIOD)
#define VSYNC_LATE_S (0.5 * FRAME_PERIOD)
/* a file playing: its playhead's frames at most this often (the present returns at a
 * refresh with vsync: a little under two 60 Hz periods keeps them on every second one) */
#define PLAY_FRAME_S (1.75 * FRAME_PERIOD)
#define DIRECT_MAX_CHANNELS 16 /* more: the live panels go through the canvas (see view_damage) */

/* the renderer's palette (RENDER_COL_*) and the window's own colours */
static const rgb8 COL_STATUS_BG = {0x0b, 0x0c, 0x10};
static const rgb8 COL_PANEL_BG = {0x0d, 0x0f, 0x13};
static const rgb8 COL_GRID = {0x23, 0x27, 0x30};
static const rgb8 COL_CURVE = {0xf2, 0xf4, 0xf8};
static const rgb8 COL_HOLD = {0xff, 0xa0, 0x3c};
static const rgb8 COL_LIVE = {0xff, 0x4d, 0x4d};
static const rgb8 COL_PAUSED = {0xff, 0xc8, 0x3c};
static const rgb8 COL_BLACK = {0, 0, 0};
static const rgb8 COL_WHITE = {0xff, 0xff, 0xff};
static const rgb8 COL_AVG = {0x4d, 0xd0, 0xff};  /* the average's (selection's) curve */
static const rgb8 COL_TONE = {0xff, 0x6e, 0xc7}; /* the tone's marks and figures */
static const rgb8 COL_BAR = {0x5a, 0xc8, 0xfa};  /* the band bars */

#define VIEW_SHOWN_BOXES 40 /* the strip's boxes kept for the stats (view_note_box) */
#define VIEW_SHOWN_BARS 1024
#define VIEW_HELP_MAX 48 /* the help's lines (view_keys.c's table) */

#define VIEW_XFORM_MAX_COLS 256 /* a transform's columns the window shows (view_xform.c) */

/* What the window keeps of the run's spectro_stream_info (its strings outlive the run). */
typedef struct {
    char name[256];        /* the source: a path, "microphone", "synth:..." */
    char window[64];       /* canonical text, e.g. "kaiser:8.6" */
    char backend[16];      /* "cpu", "cuda", "cufft" */
    int rate;              /* Hz */
    int channels;          /* output channels */
    size_t n, hop, bins;
    int64_t source_frames; /* samples per channel the source promises; -1 unknown */
    int live;
    double time_first_s;   /* frame 0's time (its centre), from the input's start: --start moves it */
    int xform;             /* view_xf_kind shown (VIEW_XF_NONE 0: the linear spectrum); bins is
                            * then the transform's columns (reassign: the linear bins) */
    size_t cols;           /* > 0: the store holds the transform's columns, at col_hz */
    double col_hz[VIEW_XFORM_MAX_COLS];
} view_stream;

/* The analysis thread's part of a transform (view_xform.c). */
typedef struct {
    int kind;              /* view_xf_kind of the run */
    size_t bins;           /* values a row the store takes */
    spectro_reassign_grid *grid; /* reassign: the points onto the frame x bin grid */
    float *buf;            /* chroma's rows in dB */
    size_t cap;
} view_xf_run;

/* ---- state shared with the analysis thread (guarded by mu) ---- */

enum { VIEW_AVG_OFF, VIEW_AVG_EXP, VIEW_AVG_INF, VIEW_AVG_MODES }; /* the `a` key's cycle */
#define AVG_TAU_S 1.0 /* the exponential average's time constant */

/* The running averages (view_measure.c), fed by the sink from the analysis' own float dB
 * spectra, both from the analysis' start whatever the window shows (so that a finished
 * file's average is there when asked for): spectro.h's running average, power domain, per
 * output channel. */
typedef struct {
    int on;                /* made for the current stream */
    int channels, rate, source_channels, channel;
    size_t bins, n, hop;
    char channel_name[8];  /* "mix", "all", or "" (one channel picked) */
    char source[256];
    char decoder[16];      /* the stream's: "libsndfile", "ffmpeg"; "" none (microphone) */
    double start_s;        /* where the analysis began in the input */
    double time_first_s, time_step_s, bin_hz; /* the stream's */
    double enbw_bins;      /* of the analysis' window (the export's sidecar) */
    spectro_average *avg;  /* infinite: the power mean (--average mean's own), and the
                            * exponential one (AVG_TAU_S); NULL for a transform's rows */
} view_avg;

/* The transfer view's running H1 average (view_transfer.c), fed on the analysis thread
 * with the frames' transforms (spectro_stream_wants.complex) instead of spectra. */
typedef struct {
    int on;                /* --transfer without an output (view_settings.transfer) */
    const view_settings *set; /* the caller's: its channels, its reference (the window's) */
    pthread_mutex_t mu;    /* tf and the stream's fields: the feed adds, the window reads */
    spectro_transfer *tf;  /* the dump's average (spectro.h's transfer function) */
    int ref, meas;         /* the stream's channels of REF and MEAS */
    int rate;
    size_t n, bins;
    double aligned_s;      /* a pair's alignment (spectro_stream_info.aligned_s) */
    uint64_t gen;          /* bumped at every start: the window computes again */
    spectro_complex *held; /* the lower channel's block, until the higher one's comes */
    size_t held_cap, held_frames;
    uint64_t held_first;
} view_xfer_feed;

typedef struct {
    pthread_mutex_t mu;
    Uint32 wake_event;    /* SDL event that wakes the window's loop; set before any worker */
    int started;          /* on_start ran: info valid, store made */
    view_stream info;     /* what on_start saw */
    view_store *store;
    double anchor;        /* capture time of sample 0 (live), the run's spectro_job_capture_time */
    int have_anchor;
    uint64_t version;     /* bumped by every sink call */
    uint64_t next0;       /* channel 0's next frame index */
    uint64_t skipped;     /* frames the live analysis skipped (it fell behind) */
    int finished;         /* the worker returned */
    int err;              /* its result */
    sp_errinfo ei;
    spectro_stream_end end; /* how the last run ended: frames, samples, dropped, interrupted */
    const spectro_job *running; /* the run whose stream this is: its capture time (live) */
    uint64_t gen;         /* bumped when the store is replaced (a start or restart) */
    int want_wake;        /* the window waits for new spectra: wake it when they are in */
    double last_in;       /* when the last spectra came in (every channel) */
    double in_gap;        /* the usual time between two deliveries (moving average) */
    view_avg avg;         /* the running averages (view_measure.c) */
    view_xf_run xr;       /* a transform's state on the analysis thread (view_xform.c) */
    uint64_t maxima;      /* > 0: the run's store takes column maxima of groups of this many
                           * frames (view_worker.c): the averages are not fed */
    int need_frames;      /* the window needs every spectrum (the averages): no maxima asked
                           * for from the next start on (set by the window's thread) */
    view_sig sig;         /* the samples' views: under sig_mu, not mu (view_sig.h) */
    pthread_mutex_t sig_mu;
    view_xfer_feed xf;    /* the transfer view's average (its own lock) */
} shared;

typedef struct {
    view_settings cfg;    /* the window's settings of the analysis: FFT size, hop and
                           * transform, which the keys change (the rest is the caller's) */
    char window[64];      /* the window function the `w` key chose ("" the caller's) */
    spectro_job *pub;     /* the caller's job, which the runs are derived from */
    spectro_job *run;     /* the analysis running (view_worker_job), whose stream is the
                           * window's; the thread's until joined */
    shared *sh;
    atomic_int stop;      /* the window asked the run to stop */
    pthread_t thread;
    int running;
} worker;

/* ---- the window's own state ---- */

typedef struct {
    /* settings the keys change */
    freq_scale scale;
    int cmap;
    float db_lo, db_hi, gain;
    double zf_lo, zf_hi; /* frequency zoom in Hz; 0 = the configured range */
    int paused;
    uint64_t paused_frames;
    int help;
    /* time: live = frames per column (power of two); file = visible frames [v0, v1) */
    uint64_t live_zoom;
    double v0, v1;
    int file_view_set;
    /* mouse, in drawable pixels */
    int mx, my, mouse_in;
    int dragging;
    double drag_x, drag_v0;
    /* messages */
    char toast[640];
    double toast_until;
    int toast_up;      /* the toast shows in this frame: decided once, so that its claim, its
                        * drawing and the check's agree when it expires meanwhile */
    int shot_pending;
    /* the selection (view_select.c): frames [sel_f0, sel_f1) in the units of v0/v1 */
    int sel_on;
    double sel_f0, sel_f1;
} ui_state;

/* What a file's picture in pic_px was drawn from (view_draw_spectrogram): the same
 * again, with the same entries, draws the same pixels. */
typedef struct {
    render_config rc; /* its title in title, its panels' labels in labels */
    char title[600];
    char labels[600];
    int pic_w, pic_h, channels;
    int64_t a0;
    uint64_t span;
    size_t count, bins, n, hop;
    double rate, t_first;
} file_key;

/* What the last picture was drawn from, for the read-out and the mouse. */
typedef struct {
    render *r;
    int ok;
    int64_t a0;        /* first frame of entry 0 */
    uint64_t span;     /* frames per entry */
    size_t count;      /* entries */
    int channels;
    size_t bins, n, hop;
    double rate;
    double t_first;    /* frame 0's time (view_stream.time_first_s) */
    int16_t *snap;     /* channels * count * bins: entry i of channel c in slot (i + rot) % count */
    size_t snap_cap;
    size_t rot;        /* live: entries keep their slot as the picture scrolls; file: 0 */
    float *hold;       /* channels * bins: live peak hold (dB) */
    double *hold_t;    /* channels * bins: when each hold was set */
    size_t hold_cap, hold_t_cap;
    double hold_last;     /* when the hold last fell */
    uint64_t hold_frames; /* frames already folded into the hold */
    render_config key; /* the config plot_w was measured with (title, font aside) */
    double key_rate;
    size_t key_n;
    int key_channels, plot_w;
    float *fbuf;       /* bins floats */
    size_t fbuf_cap;
    char render_err[512];
    int xform;         /* the transform drawn (view_stream.xform), its columns (0: bins) */
    size_t cols;
    double col_hz[VIEW_XFORM_MAX_COLS];
    /* the file's picture in pic_px and r, kept while drawn_ok: drawn from drawn (its
     * entries in drawn_snap); a live picture's render (view_live.c) clears drawn_ok */
    int drawn_ok;
    file_key drawn;
    int16_t *drawn_snap;
    size_t drawn_snap_cap;
} picture;

/* The live picture, kept from one frame to the next (see view_draw_live). What it was
 * made for is its key: any change there starts it over. */
typedef struct {
    int valid;
    render_config rc;  /* p->r's config; rc.title points to title */
    char title[600];
    double rate;
    size_t n;
    int channels;
    float gain;
    uint64_t span, gen;
    size_t count;
    int chrome_ok;     /* chrome is p->r's picture */
    int canvas_ok;     /* the canvas holds chrome around the panels: nothing drew there since */
    uint8_t *chrome;   /* pic_w x pic_h: p->r's picture, panels left out (the time axis is redrawn) */
    size_t chrome_cap;
    int panel_h;
    uint8_t *ring;     /* channels x panel_h rows x count RGBA: pixel column of slot j at x = j */
    size_t ring_cap;
    int64_t *slot_e;   /* channels x count: the entry a slot holds */
    uint8_t *slot_st;  /* its view_store_entry_state when drawn (VIEW_STORE_OPEN: draw again) */
    uint8_t *slot_new; /* fetched this frame, to draw */
    size_t slot_e_cap, slot_st_cap, slot_new_cap;
} scroll;

/* view_config.verify (tests): every live picture is also drawn whole, the old way, from
 * the same snapshot, and compared. */
typedef struct {
    int on;
    uint64_t frames, mismatched, shown, shown_mismatched; /* shown: the texture read back */
    int16_t *snap;
    size_t snap_cap;
    uint8_t *px;
    size_t px_cap;
    uint8_t *ref;      /* the window expected (view_verify_overlays) */
    size_t ref_cap;
    int ref_ok;
    char first[700];   /* the first difference, for the stats */
    char pending[320]; /* a difference in the last frame shown (verify_commit) */
} verify;

/* Text rendered by SDL2_ttf, kept between frames: most labels come back every frame. */
#define TEXT_CACHE 48
typedef struct {
    SDL_Surface *sf;   /* NULL: free */
    uint64_t font_gen; /* the font it was rendered with (view.font_gen) */
    rgb8 col;
    uint64_t used;     /* when last drawn, for the oldest to go */
    char s[256];
} text_entry;

typedef struct {
    uint64_t drawn;
    double first, last;
    double *lat;
    size_t nlat;
    uint64_t newest_shown;
    double draw_s;      /* time spent composing pictures (view_draw_frame), in all */
} stats;

/* The selection's spectrum: its frames read again from the input at full precision, on a
 * thread of their own, into a power mean (view_select.c). */
typedef struct {
    pthread_t th;
    int running;          /* a thread to join */
    atomic_int done;
    spectro_job *run;     /* the analysis of the selection (view_worker_job) */
    spectro_average *acc; /* the power mean; the thread's until joined */
    int channels;
    size_t bins, n;
    uint64_t f0, f1;      /* frames [f0, f1) of the window's analysis */
    int err;
    sp_errinfo ei;
    int ready;            /* joined with the spectrum in acc */
} sel_job;

#define PANEL_TONE_CHANNELS 16

/* The measurement panel's window-side state (view_measure.c, view_select.c). */
typedef struct {
    int avg_mode;         /* VIEW_AVG_* */
    int tone_on;
    /* the spectra of this frame, copied under mu: shown (the average's curve) and toned */
    int show_src, tone_src; /* PANEL_SRC_* */
    float *db;            /* channels x bins dB: the curve's */
    size_t db_cap;
    uint64_t show_frames, tone_frames;
    int tone_ok;
    spectro_tone tone[PANEL_TONE_CHANNELS]; /* the first channels' */
    char tone_msg[200];
    /* the selection being made, and its band (Hz; 0, 0: all frequencies) */
    int sel_drag, sel_ready_seen;
    double sel_anchor, sel_hz0, sel_hz1;
    sel_job job;
    /* a plain click clears the selection: the left button went down here, no shift */
    int click_armed, click_x, click_y;
    /* the two-point mark: channel, entry-centre frame, Hz, bin, level (dB; NODATA: none) */
    int mark_on, mark_c;
    double mark_f, mark_hz, mark_db;
    size_t mark_k;
    /* the read-out's deltas, as last drawn (the stats) */
    int delta_on;
    double d_t, d_f, d_db, d_st;
    double cur_f, cur_hz, cur_db;
    view_avg meta;        /* the averages' stream as last fetched (no arrays) */
    char last_export[160];
    int reanalysed;       /* analyses started again for the averages (view_panel_frames) */
} panel_state;

/* The band bars (view_bands.c). */
typedef struct {
    int fraction;          /* 0 off, else 1/fraction octave */
    int weighting;         /* spectro_bands_weighting_name's index */
    spectro_bands *b;      /* made for: */
    int key_fraction;
    double key_rate;
    size_t key_n;
    char key_window[64];   /* the stream's window (view_stream.window) */
    float *lv, *db;        /* channels x bands levels as last drawn; a spectrum in dB */
    size_t lv_cap, db_cap;
    int shown;             /* channels drawn in the last frame */
} view_bands;

/* The strip's boxes (view_strip.c) of this frame, and what its legend names. */
#define VIEW_STRIP_BOXES 24
typedef struct {
    int curve;            /* the strip's spectrum curve is drawn (live: the newest; a file's:
                           * the one under the cursor) */
    int hold;             /* the hold's curve (live: peak hold; a file's: max of view) */
    int nbox;
    SDL_Rect box[VIEW_STRIP_BOXES]; /* the legend's entries and the tones' figures */
} view_strip;

/* Playback (view_play.c): the player, the stretch it plays, and for the stats the clock
 * as each frame drew it (the playback log: test hooks only). */
#define PLAY_LOG_MAX 8192
#define PLAY_LOG_COLS 7
typedef struct {
    view_player *pl;      /* NULL: not playing */
    int64_t first, end;   /* the stretch, input samples (end -1: to the input's end) */
    int channel;          /* SPECTRO_CHANNEL_MIX or a channel */
    int from_sel;         /* the selection's stretch (else from the cursor) */
    int head_seen;        /* the playhead was in the visible range at the last frame */
    int starts;           /* playbacks started */
    double head_f;        /* the playhead's frame position, as last drawn (NaN: none) */
    double *log;          /* PLAY_LOG_MAX x PLAY_LOG_COLS: stream time, dac time, buffer index,
                           * written, position, `first`, the playhead in view (0/1): the clock
                           * of each frame drawn while playing */
    size_t nlog;
    char last_err[512];   /* the last failure to play ("" none) */
} play_state;

/* --compare A B (view_compare.c): the analysis reads the pair, channel 0 A's mix and 1 B's,
 * which the picture stacks (one zoom, one scroll, one cursor); the d key draws B - A
 * instead, one panel in a diverging colour map. */
typedef struct {
    int on;
    int diff;             /* the d key */
    int16_t *ab;          /* diff: A's and B's entries as fetched (2 x count x bins) */
    size_t ab_cap;
    char title[600];
    char labels[600];     /* the panels' (render_config.panel_labels): "A: a.wav\nB: b.wav" */
} view_cmp;

/* The transfer view's window side (view_transfer.c): the three panels and their values. */
enum { XF_MAG, XF_PHASE, XF_COH, XF_PANELS };
typedef struct {
    int remove_delay;     /* the d key (--remove-delay) */
    uint64_t gen, averages; /* what the values were computed from */
    double computed_at;
    float *val;           /* XF_PANELS x bins: magnitude dB, phase (unwrapped), coherence */
    size_t val_cap, bins, n;
    int rate, ok;
    double delay_s;       /* the delay of MEAS after REF (spectro_transfer_delay and the
                           * alignment) */
    plot *panel[XF_PANELS];
    plot_config pc[XF_PANELS]; /* what each panel was made with */
    double plotted_at;    /* the values (computed_at) pic_px's panels were plotted from */
    int plotted_w, plotted_h;
    uint64_t plots;       /* times the panels were plotted (the stats) */
    spectro_transfer *copy; /* the feed's sums as last copied: computed from outside its lock */
    double held_max_s;    /* the longest the window held the feed's lock (the stats) */
    char title[600];
    /* the cursor as last drawn (the stats): its bin, NaN values when off the panels */
    int cur_on;
    size_t cur_k;
    double cur_hz, cur_mag, cur_ph, cur_coh;
} view_xfer;

typedef struct {
    view_settings user;  /* the caller's settings, read from its job (view_settings.h) */
    spectro_job *pub;    /* the caller's job: its stop (a signal) closes the window */
    view_config vc;
    worker w;
    shared sh;
    ui_state ui;
    picture pic;
    scroll scr;
    verify ver;
    stats st;
    panel_state pn;
    view_bands bd;
    view_strip sn;
    play_state play;
    view_sig_ui sg;   /* the samples' views (view_sig.h) */
    view_cmp cmp;
    view_xfer xf;
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int vsync, software;
    char renderer_name[64];
    int dw, dh;       /* drawable size */
    canvas cv;        /* dw x dh, all of it writable */
    uint8_t *pic_px;  /* the renderer's picture */
    size_t pic_cap;
    TTF_Font *font;
    int font_px;
    uint64_t font_gen; /* bumped whenever font changes */
    text_entry texts[TEXT_CACHE];
    uint64_t text_tick;
    char font_path[1024];
    int ttf;
    size_t n0, hop0;  /* the FFT size and hop asked for, for `n` */
    int xf_idx;       /* the `x` key's place in view_xform.c's cycle (0: linear) */
    view_xf xf_user;  /* the transform the command line asked for (its kind NONE: none),
                         * shown first and whenever the x key comes back to its kind */
    double fps_t0;
    uint64_t fps_n;
    double fps;
    double last_latency;
    double vs_late; /* live with vsync: the latest draw after a present (vsync_wait) */
    int live, finished; /* copies made under mu once per loop, for the window's thread */
    int line_h;
    /* what the texture must take from this frame: all of the canvas, or its parts that
     * changed (dmg); ring_panels: the live panels come from the ring's own texture */
    int dmg_all, ring_panels, ndmg;
    SDL_Rect dmg[64];
    SDL_Texture *ring_tex; /* the ring (scroll.ring), where the live panels are drawn from */
    int ring_tex_w, ring_tex_h, ring_tex_stale;
    int ring_live;         /* view_draw_live drew this frame: slots it fetched go to ring_tex */
    int shot_done;         /* view_config.shot_path written (or failed): the window closes */
    /* what the overlays (read-out, message, help) covered: put back at the next frame */
    int ncovered;
    SDL_Rect covered[8];
    /* the live pitch trace of this frame (view_pitch.c): a rect a pixel column, on the
     * first panel (the others' the same, moved down); 0: none */
    SDL_Rect *trace;
    int ntrace;
    size_t trace_cap;
    float *trace_hz;       /* the voiced f0s in view, for the stats' median */
    size_t trace_hz_cap;
    /* the texts last drawn, for SPECTRO_VIEW_STATS (the tests read them there) */
    char shown_status[64 + 768 + 256 + 4]; /* st | left | right */
    char shown_readout[320];
    char shown_help[VIEW_HELP_MAX * 96]; /* the help's lines as last drawn: "key: action | ..." */
    float shown_bar[2]; /* the colour bar's range (dBFS at its bottom and top) */
    /* the strip's boxes (legend entries, tone figures) and band bars as last drawn, for
     * SPECTRO_VIEW_STATS's "layout" (view_note_box, view_note_bar) */
    int nshown_boxes, nshown_bars;
    struct {
        char label[96];
        SDL_Rect r;
    } shown_boxes[VIEW_SHOWN_BOXES];
    SDL_Rect shown_bars[VIEW_SHOWN_BARS];
} view;

typedef struct {
    int pic_w, pic_h;   /* the renderer's part, top-left */
    int side_x, side_w; /* the spectrum strip */
    int inst_x, inst_w; /* the instrument column between them (meters, scope; 0 wide: none) */
    int status_y, status_h;
    int fs;
} layout;

/* view_worker.c */
/* A run of the caller's stream with the window's settings c (its FFT size, hop, window and
 * transform; with `range`, also its start, end and duration, never realtime, and quiet): a
 * job derived from pub (spectro_job_derive), which says its notes and warnings through
 * pub's message callback from the thread that runs it. *out is the caller's. */
int view_worker_job(spectro_job *pub, const view_settings *c, const char *window, int range, spectro_job **out,
                    sp_errinfo *ei);
int view_worker_start(worker *w, sp_errinfo *ei);
void view_worker_stop(worker *w);

/* view_file.c: the picture's range and snapshot (both kinds), the whole-file picture */
int view_grow(void **p, size_t *cap, size_t want, size_t elem);
uint64_t view_expected_frames(const view_stream *info);
double view_frame_time(const picture *p, double f);
void view_base_range(const view *v, double rate, size_t n, double *lo, double *hi);
render_config view_picture_config(view *v, const layout *L, const view_stream *info, char *title, size_t len);
void view_picture_range(view *v, const view_stream *info, size_t plot_w, uint64_t *newest);
const int16_t *view_snap_entry(const picture *p, int c, size_t i);
void view_entry_db(const view *v, const int16_t *s, float *db);
/* Where an entry has no spectrum (VIEW_STORE_NODATA: before the start, not yet analysed,
 * skipped): its panel column, h pixels down from px (pitch bytes a row), hatched in greys
 * no colour map has, by its slot (so that a column drawn alone and a whole redraw agree). */
void view_hatch_column(uint8_t *px, size_t pitch, int h, size_t slot);
int view_full_picture(view *v, const render_config *rc, const int16_t *snap, uint8_t *rgba, int hatch,
                      render **out, sp_errinfo *ei);
int view_draw_spectrogram(view *v, const layout *L, const view_stream *info, uint64_t *newest_out);
double view_total_frames(view *v);
void view_zoom_time(view *v, double a, double k);
void view_scroll_time(view *v, double frames);
double view_frame_at_x(view *v, int x);

/* view_live.c */
int view_draw_live(view *v, const layout *L, const view_stream *info, uint64_t *newest_out, int direct);
void view_damage(view *v, int x, int y, int w, int h);
void view_overlay_area(view *v, int x, int y, int w, int h);
void view_present(view *v);

/* view_frame.c */
/* inst_em: the instrument column's width in font sizes (view_sig_inst_em; 0: none) */
layout view_layout(int W, int H, int inst_em);
uint64_t view_draw_frame(view *v, const view_stream *info, int started);

/* view_overlay.c */
int view_font(view *v, int px);
int view_text(view *v, const char *s, int x, int y, rgb8 col);
void view_toast(view *v, const char *msg);
void view_draw_status(view *v, const layout *L, const view_stream *info, double latency);
/* Overlays are drawn in two passes: `draw` 0 only claims the areas they will cover
 * (view_overlay_area), so that no claim comes after another overlay's pixels. */
void view_draw_toast(view *v, const layout *L, int draw);
void view_draw_readout(view *v, const layout *L, int draw);
void view_draw_help(view *v, const layout *L, int draw);
void view_format_time(const picture *p, double t, char *buf, size_t len); /* as the time axis */

/* view_input.c: 1 to quit; *err for a failed restart */
int view_on_key(view *v, const SDL_Keysym *ks, int live, int *err, sp_errinfo *ei);
/* The analysis from the start again; same_frames: with the same settings (frame f is the
 * same audio: the selection and the mark stay). */
int view_restart(view *v, int same_frames, sp_errinfo *ei);
void view_wheel(view *v, const SDL_MouseWheelEvent *e, int live);
void view_mouse_motion(view *v, int x, int y, int live);
void view_mouse_button(view *v, int x, int y, int down);

/* view_measure.c: the running averages (the sink's side, under mu), the panel */
int view_avg_open(view_avg *a, const spectro_stream_info *in, sp_errinfo *ei);
/* A running average (modes: SPECTRO_AVERAGE_BIT()s) of the stream's spectra. */
int view_avg_create(const spectro_stream_info *in, unsigned modes, spectro_average **out, sp_errinfo *ei);
void view_avg_add(view_avg *a, int channel, size_t nframes, const float *db);
void view_avg_close(view_avg *a);
enum { PANEL_SRC_NONE, PANEL_SRC_SEL, PANEL_SRC_EXP, PANEL_SRC_INF };
const char *view_panel_src_name(int src);

/* The unit of every level the window shows: "dB SPL" with --spl-offset (the pipeline has
 * corrected the spectra: render_config.level_unit), else "dBFS". */
const char *view_level_unit(const view *v);
void view_panel_init(view *v);            /* --view's settings */
/* Once per loop: the panel comes to need the running averages in a run that did not feed
 * them (its picture took column maxima): the analysis starts again, taking spectra. */
int view_panel_frames(view *v, sp_errinfo *ei);
int view_panel_key(view *v, SDL_Keycode sym, int live); /* 1: taken */
void view_panel_strip(view *v, const layout *L); /* the curve, the tone's marks: after the strip */
void view_panel_free(view *v);

/* view_bands.c */
void view_bands_init(view *v);
void view_bands_free(view *v);
int view_bands_key(view *v, SDL_Keycode sym); /* 1: taken (b) */
/* The bars of the strip's spectrum: cur[c] (the store's), else fallback (channels x bins dB). */
void view_bands_draw(view *v, const layout *L, const int16_t *const *cur, const float *fallback);

/* view_strip.c: the strip's boxes are laid out (after view_panel_strip, before the band
 * bars, which keep out of them) and drawn over the rest. view_strip_keepout: for a bar over
 * columns [x, x + w) from row y to *y_end: 1 when row y is under a box (*y_end: the box's
 * bottom, where the bar may go on), else 0 with *y_end cut to the first box below y. */
void view_strip_layout(view *v, const layout *L);
void view_strip_draw(view *v, const layout *L);
int view_strip_keepout(const view *v, int x, int w, int y, int *y_end);

/* view_select.c */
void view_select_clear(view *v);
void view_select_restarted(view *v);      /* a new analysis: frames mean other audio */
int view_select_ready(view *v);           /* 1 when the selection's spectrum is in pn.job.acc */
void view_select_frames(view *v, uint64_t *a, uint64_t *b); /* its frames [a, b) */
int view_select_span(view *v, double *t0, double *t1); /* their audio in the input (s); 0: none */
int view_select_button(view *v, const SDL_MouseButtonEvent *e, int live); /* 1: taken */
int view_select_motion(view *v);          /* 1: taken (a selection is being dragged) */
int view_select_status(view *v, char *buf, size_t len);
void view_select_draw(view *v, const layout *L);  /* the shaded range (file view) */
int view_mark_toggle(view *v);            /* m: at the cursor; 0 when not on a panel */
void view_draw_mark(view *v, const layout *L, int draw); /* an overlay */
/* The read-out's lines for the cursor at (c, frame f, hz, db; NaN: no data) against the
 * mark: 0 without a mark. */
int view_mark_readout(view *v, int c, double f, double hz, double db, char *l1, char *l2, size_t len);

/* view_play.c */
int view_play_toggle(view *v);            /* p (and space once the analysis is complete) */
int view_play_tick(view *v);              /* once a loop: 1 while a frame is wanted (playing) */
void view_play_draw(view *v, const layout *L); /* the playhead (file view) */
int view_play_status(view *v, char *buf, size_t len); /* its status field; 0: none */
void view_play_free(view *v);

/* view_compare.c */
void view_compare_init(view *v);
void view_compare_free(view *v);
int view_compare_key(view *v, SDL_Keycode sym); /* 1: taken (d) */
/* The file picture's config (diff: one channel, rdbu over +-R dB) and, under mu, after its
 * entries were fetched into pic.snap: the difference made of A's and B's. */
void view_compare_config(view *v, render_config *rc);
void view_compare_snap(view *v);
/* The read-out's level line at entry i, bin k (A, B and B - A); the cursor's cross in the
 * other panel (pr: the cursor's panel; draw 0: only its areas claimed). */
void view_compare_readout(view *v, size_t i, size_t k, char *l3, size_t len);
void view_compare_cursor(view *v, int c, int my, int draw);

/* view_transfer.c: the feed (analysis thread), the view (window thread) */
void view_xfer_init(view *v);
void view_xfer_free(view *v);
int view_xfer_open(view_xfer_feed *xf, const spectro_stream_info *in, sp_errinfo *ei);
int view_xfer_add(view_xfer_feed *xf, int channel, uint64_t first, size_t nframes, const spectro_complex *z,
                  sp_errinfo *ei);
int view_xfer_key(view *v, SDL_Keycode sym); /* 1: taken (d) */
void view_xfer_draw(view *v, const layout *L, int started); /* the picture and the strip */
#ifdef SPECTRO_TEST_HOOKS
void view_xfer_stats(view *v, FILE *f); /* the stats' "transfer" member */
#endif

/* view_xform.c: the x key (analysis restarted), the spec for the key's place at the
 * current N (the n key calls it too), the panel's keys refused under a transform; the
 * sink's side (on the analysis thread: open, rows into the store by `store`, the grid's
 * last frames, free); the picture's columns, the strip's level at pixel row y of h, the
 * read-out's column and line (0: no columns). */
typedef int (*view_rows_fn)(shared *sh, int channel, uint64_t first, size_t nframes, const float *db,
                            sp_errinfo *ei);
void view_xform_init(view *v); /* the command line's transform first */
int view_xform_key(view *v, int *err, sp_errinfo *ei);
void view_xform_spec(view *v);
int view_xform_refuses(view *v, SDL_Keycode sym);
int view_xform_open(shared *sh, const spectro_stream_info *in, view_stream *info, sp_errinfo *ei);
int view_xform_rows(shared *sh, int channel, uint64_t first, size_t nframes, const float *rows, view_rows_fn store,
                    sp_errinfo *ei);
int view_xform_flush(shared *sh, view_rows_fn store, sp_errinfo *ei);
void view_xform_free(shared *sh);
void view_xform_picture(view *v, const view_stream *info, render_config *rc, char *title, size_t len);
float view_xform_strip_db(const view *v, const int16_t *s, int y, int h);
int view_xform_readout(const view *v, double u, size_t *k, char *line, size_t len);

/* view_meter.c, view_pitch.c, view_wave.c, view_scope.c (view_sig.h) */
int view_sig_key(view *v, SDL_Keycode sym, int live, int *err, sp_errinfo *ei); /* 1: taken */
int view_sig_inst_em(view *v);
void view_sig_draw_column(view *v, const layout *L); /* meters, live pitch, scope */
void view_sig_free(view *v);
void view_pitch_draw(view *v, const layout *L);      /* the trace (file and live views) */
/* Live, the panels from the ring's texture: the trace onto the renderer's output
 * (view_present), and into the canvas where `a` was composed again (view_overlay_area). */
void view_pitch_present(view *v);
void view_pitch_over(view *v, const SDL_Rect *a);
int view_pitch_readout(view *v, double f, char *buf, size_t len); /* 0: off */
int view_pitch_live(view *v, const layout *L, int x, int y);
int view_wave_height(const view *v, const layout *L); /* the strip's rows (0: none) */
void view_wave_draw(view *v, const layout *L);
void view_scope_draw(view *v, const layout *L, int x, int y, int w, int h);

/* view_check.c: for the tests (view_config), compiled only into a build with the test hooks
 * (-DSPECTRO_TEST_HOOKS=ON, docs/developer.md "Test hooks"); without them these do nothing. */
#ifdef SPECTRO_TEST_HOOKS
void view_verify_live(view *v, const layout *L, const render_config *rc);
void view_verify_shown(view *v);
void view_verify_overlays(view *v, const layout *L, int after);
void view_stats_frame(view *v, double t_present);
void view_write_stats(view *v, const char *path);
/* The strip's boxes and bars of this frame, for the stats' "layout": reset at the frame's
 * start, then each box (a legend entry, a tone's figures) and bar as it is drawn. */
void view_note_reset(view *v);
void view_note_box(view *v, const char *label, int x, int y, int w, int h);
void view_note_bar(view *v, int x, int y, int w, int h);
void view_play_stats(view *v, FILE *f);   /* view_play.c: the stats' "play" member */
void view_sig_stats(view *v, FILE *f);    /* view_meter.c: "meters", "pitch", "wave", "scope" */
#else
static inline void view_verify_live(view *v, const layout *L, const render_config *rc)
{
    (void)v, (void)L, (void)rc;
}
static inline void view_verify_shown(view *v)
{
    (void)v;
}
static inline void view_verify_overlays(view *v, const layout *L, int after)
{
    (void)v, (void)L, (void)after;
}
static inline void view_stats_frame(view *v, double t_present)
{
    (void)v, (void)t_present;
}
static inline void view_write_stats(view *v, const char *path)
{
    (void)v, (void)path;
}
static inline void view_note_reset(view *v)
{
    (void)v;
}
static inline void view_note_box(view *v, const char *label, int x, int y, int w, int h)
{
    (void)v, (void)label, (void)x, (void)y, (void)w, (void)h;
}
static inline void view_note_bar(view *v, int x, int y, int w, int h)
{
    (void)v, (void)x, (void)y, (void)w, (void)h;
}
#endif

#endif
