/* view_play: playback in the file view (see view_internal.h, view_player.h).
 *
 * `p` (and space once the analysis is complete) plays the selection's audio, from its
 * first frame's first sample to its last frame's last (the span the status line shows),
 * or, without a selection, from the time under the cursor (the view's left edge when the
 * cursor is not on the picture) to the end of what the view analysed (--end / --duration,
 * else the input's end). It plays what the picture shows: the mix (the analysis' own), the
 * --channel picked, or with --channel all the channel whose panel the cursor is on (the
 * mix when it is on none). `p` again stops.
 *
 * The playhead is drawn at the sample the output's clock says is heard now (view_player.h),
 * in every channel's panel. Zoomed in, the view pages with it: when it leaves the visible
 * range on the right, the range moves so that it starts just before the playhead. The view
 * follows only while the playhead was visible: scrolled away by hand, the view stays. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static const rgb8 COL_PLAYHEAD = {0x6c, 0xff, 0x9a};

#define FOLLOW_LEAD 0.05 /* paged, the playhead starts this much of the view from its left */

/* The analysis' stream when it is a file's (not live). */
static int file_stream(view *v, view_stream *info)
{
    int ok;
    pthread_mutex_lock(&v->sh.mu);
    ok = v->sh.started;
    *info = v->sh.info;
    pthread_mutex_unlock(&v->sh.mu);
    return ok && !info->live && info->rate > 0 && info->hop > 0;
}

/* The input sample where frame 0 starts (the analysis' start). An input shorter than n has
 * its one frame's time at the centre of its samples, not of the n: the start would come out
 * before the input's; 0 bounds it (such an input starts at 0 or holds fewer samples after
 * --start than n, where playing from a little before --start does no harm). */
static int64_t start_sample(const view_stream *in)
{
    int64_t s = llround(in->time_first_s * in->rate - 0.5 * (double)in->n);
    return s > 0 ? s : 0;
}

/* Frame position (the units of ui.v0/v1: frame f spans [f, f+1), its centre at f + 1/2)
 * of input sample s, and back. */
static double frame_of_sample(const view_stream *in, double s)
{
    return (s - (double)start_sample(in) - 0.5 * (double)in->n) / (double)in->hop + 0.5;
}

static double sample_of_frame(const view_stream *in, double f)
{
    return (double)start_sample(in) + 0.5 * (double)in->n + (f - 0.5) * (double)in->hop;
}

/* The channel to play: the view's (see the header comment). */
static int play_channel(view *v)
{
    picture *p = &v->pic;
    int ch = v->w.cfg.channel;
    if (ch >= 0)
        return ch;
    if (ch == VIEW_CHANNEL_ALL && p->r && p->ok && v->ui.mouse_in)
        for (int c = 0; c < p->channels; c++) {
            render_rect pr = render_plot_rect(p->r, c);
            if (v->ui.my >= pr.y && v->ui.my < pr.y + pr.h && v->ui.mx >= pr.x && v->ui.mx < pr.x + pr.w)
                return c;
        }
    return SPECTRO_CHANNEL_MIX;
}

/* The input sample where the analysis ends (-1: the input's end). */
static int64_t end_sample(const view *v, int rate)
{
    const view_settings *c = &v->w.cfg;
    if (c->end > 0)
        return llround(c->end * rate);
    if (c->duration > 0)
        return llround(c->start * rate) + llround(c->duration * rate);
    return -1;
}

/* The stretch to play: [*first, *end) input samples. */
static void stretch(view *v, const view_stream *in, int64_t *first, int64_t *end)
{
    int64_t s0 = start_sample(in);
    picture *p = &v->pic;
    *end = end_sample(v, in->rate);
    v->play.from_sel = v->ui.sel_on;
    if (v->ui.sel_on) {
        uint64_t a, b;
        view_select_frames(v, &a, &b);
        *first = s0 + (int64_t)(a * in->hop);
        *end = s0 + (int64_t)((b - 1) * in->hop + in->n);
        return;
    }
    if (p->r && p->ok && v->ui.mouse_in) {
        render_rect top = render_plot_rect(p->r, 0), bot = render_plot_rect(p->r, p->channels - 1);
        if (v->ui.mx >= top.x && v->ui.mx < top.x + top.w && v->ui.my >= top.y && v->ui.my < bot.y + bot.h) {
            *first = llround(sample_of_frame(in, view_frame_at_x(v, v->ui.mx)));
            *first = *first > s0 ? *first : s0;
            return;
        }
    }
    *first = s0 + (int64_t)llround(fmax(v->ui.v0, 0.0) * (double)in->hop); /* the view's left edge */
}

/* How the input is read, as the caller's settings say (raw samples, the stream): into *c,
 * the raw format's text in raw. */
static void play_source(const view *v, spectro_source_config *c, char *raw, size_t len)
{
    const view_settings *u = &v->user;
    c->stream = u->stream;
    if (u->raw_format[0]) { /* as the setting reads: "f32le,48000,2" */
        snprintf(raw, len, "%s", u->raw_format);
        c->raw_format = raw;
    }
}

static void play_stop(view *v)
{
    view_player_stop(v->play.pl);
    v->play.pl = NULL;
    v->play.head_f = NAN;
}

static int play_start(view *v)
{
    play_state *ps = &v->play;
    view_player_config pc = view_player_config_default();
    view_stream in;
    spectro_error err = {0, {0}};
    char msg[600], t[40], raw[64];
    int code;
    if (!file_stream(v, &in)) {
        view_toast(v, "playback: in the file view only");
        return 0;
    }
    stretch(v, &in, &ps->first, &ps->end);
    if (ps->end >= 0 && ps->end <= ps->first) {
        view_toast(v, "playback: nothing after the cursor");
        return 0;
    }
    pc.input = v->user.input;
    play_source(v, &pc.source, raw, sizeof raw);
    pc.rate = in.rate;
    pc.device = v->vc.output_device;
    pc.first = ps->first;
    pc.end = ps->end;
    pc.channel = ps->channel = play_channel(v);
    if ((code = view_player_start(&pc, &ps->pl, &err)) != SPECTRO_OK) {
        ps->pl = NULL;
        snprintf(ps->last_err, sizeof ps->last_err, "%s", err.message);
        snprintf(msg, sizeof msg, "%s%.560s",
                 code == SPECTRO_ENODEV || code == SPECTRO_EAUDIO || code == SPECTRO_EUNSUPPORTED ? "no audio output: "
                                                                                              : "cannot play: ",
                 err.message);
        view_toast(v, msg);
        return 0;
    }
    ps->last_err[0] = '\0';
    ps->starts++;
    ps->head_seen = 1; /* page to it when it is not in view */
    view_format_time(&v->pic, (double)ps->first / in.rate, t, sizeof t);
    snprintf(msg, sizeof msg, "playing %sfrom %s", ps->from_sel ? "the selection " : "", t);
    if (ps->channel >= 0)
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), ", channel %d", ps->channel);
    view_toast(v, msg);
    return 1;
}

int view_play_toggle(view *v)
{
    if (v->play.pl) {
        play_stop(v);
        view_toast(v, "playback stopped");
        return 1;
    }
    return play_start(v);
}

/* Zoomed in, the view pages with the playhead (frame position f). */
static void follow(view *v, double f)
{
    double span = v->ui.v1 - v->ui.v0, total = view_total_frames(v);
    int visible;
    if (!(span > 0) || span >= total)
        return;
    visible = f >= v->ui.v0 && f < v->ui.v1;
    if (!visible && v->play.head_seen) {
        view_scroll_time(v, f - FOLLOW_LEAD * span - v->ui.v0);
        visible = f >= v->ui.v0 && f < v->ui.v1;
    }
    v->play.head_seen = visible;
}

int view_play_tick(view *v)
{
    play_state *ps = &v->play;
    view_player_clock c;
    view_stream in;
    if (!ps->pl)
        return 0;
    view_player_get_clock(ps->pl, &c);
    if (c.done) {
        play_stop(v);
        return 1;
    }
    if (file_stream(v, &in))
        follow(v, frame_of_sample(&in, (double)c.first + c.pos));
    return 1;
}

void view_play_draw(view *v, const layout *L)
{
    play_state *ps = &v->play;
    picture *p = &v->pic;
    view_player_clock c;
    view_stream in;
    (void)L;
    ps->head_f = NAN;
    if (!ps->pl || !p->r || !p->ok || !file_stream(v, &in))
        return;
    view_player_get_clock(ps->pl, &c);
    ps->head_f = frame_of_sample(&in, (double)c.first + c.pos);
#ifdef SPECTRO_TEST_HOOKS
    if (!ps->log)
        ps->log = malloc(PLAY_LOG_MAX * PLAY_LOG_COLS * sizeof *ps->log);
    if (ps->log && ps->nlog < PLAY_LOG_MAX) {
        double *e = ps->log + PLAY_LOG_COLS * ps->nlog++;
        e[0] = c.stream_time, e[1] = c.dac_time, e[2] = (double)c.buf_idx, e[3] = (double)c.written;
        e[4] = c.pos, e[5] = (double)c.first, e[6] = ps->head_f >= v->ui.v0 && ps->head_f < v->ui.v1;
    }
#endif
    for (int ch = 0; ch < p->channels; ch++) {
        render_rect pr = render_plot_rect(p->r, ch);
        double x = pr.x + (ps->head_f - (double)p->a0) / ((double)p->count * (double)p->span) * pr.w;
        int xi = (int)floor(x);
        if (xi < pr.x || xi >= pr.x + pr.w)
            continue;
        canvas_fill(&v->cv, xi - 1, pr.y, 3, pr.h, COL_BLACK);
        canvas_fill(&v->cv, xi, pr.y, 1, pr.h, COL_PLAYHEAD);
    }
}

int view_play_status(view *v, char *buf, size_t len)
{
    play_state *ps = &v->play;
    char t[40];
    if (ps->pl && v->pic.r && isfinite(ps->head_f)) {
        view_format_time(&v->pic, view_frame_time(&v->pic, ps->head_f - 0.5), t, sizeof t);
        snprintf(buf, len, "\xe2\x96\xb6 %s", t);
        return 1;
    }
    if (!ps->pl && ps->last_err[0]) {
        snprintf(buf, len, "no audio output");
        return 1;
    }
    return 0;
}

#ifdef SPECTRO_TEST_HOOKS
void view_play_stats(view *v, FILE *f)
{
    play_state *ps = &v->play;
    fprintf(f, ", \"play\": {\"starts\": %d, \"playing\": %d, \"first\": %lld, \"end\": %lld, \"channel\": %d, "
               "\"from_selection\": %d, \"error\": ",
            ps->starts, ps->pl != NULL, (long long)ps->first, (long long)ps->end, ps->channel, ps->from_sel);
    sp_json_string(f, ps->last_err);
    fprintf(f, ", \"clock\": [");
    /* per frame drawn while playing: stream time, dac time, buffer index, written, position, first */
    for (size_t i = 0; i < ps->nlog; i++) {
        const double *e = ps->log + PLAY_LOG_COLS * i;
        fprintf(f, "%s[%.9f, %.9f, %.0f, %.0f, %.6f, %.0f]", i ? ", " : "", e[0], e[1], e[2], e[3], e[4], e[5]);
    }
    fprintf(f, "], \"head_in_view\": [");
    for (size_t i = 0; i < ps->nlog; i++)
        fprintf(f, "%s%.0f", i ? ", " : "", ps->log[PLAY_LOG_COLS * i + 6]);
    fprintf(f, "]}");
}
#endif

void view_play_free(view *v)
{
    play_stop(v);
    free(v->play.log);
    v->play.log = NULL;
}
