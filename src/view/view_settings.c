/* view_settings: the window's settings from the public job (view_settings.h). Each value is
 * read as the text spectro_job_set takes ("" where not set: the run decides) and parsed
 * here; what the job made of the settings together (the hop, tone's window, the colour
 * range that spl_offset moves) is read after its prepare. */
#include "view_settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "scale.h"

view_xf view_xf_none(void)
{
    view_xf x;
    memset(&x, 0, sizeof x);
    x.kind = VIEW_XF_NONE;
    x.fmin = -1.0;
    return x;
}

/* One setting's text into buf; the job's line on failure. */
static int get(spectro_job *pub, const char *name, char *buf, size_t len, sp_errinfo *ei)
{
    spectro_error e = {0, {0}};
    int code = spectro_job_get(pub, name, buf, len, &e);
    return code == SPECTRO_OK ? SP_OK : sp_fail(ei, code, "%s", e.message);
}

static int bad(const char *name, const char *text, sp_errinfo *ei)
{
    return sp_fail(ei, SP_EINVAL, "the window cannot read " SP_FIELD_MARK "%s" SP_FIELD_MARK " \"%s\"", name, text);
}

/* A number, or `none` where the setting reads "" (not set). */
static int get_num(spectro_job *pub, const char *name, double none, double *out, sp_errinfo *ei)
{
    char text[64], *end;
    int err = get(pub, name, text, sizeof text, ei);
    if (err != SP_OK)
        return err;
    if (!text[0]) {
        *out = none;
        return SP_OK;
    }
    errno = 0;
    *out = strtod(text, &end);
    return errno || end == text || *end ? bad(name, text, ei) : SP_OK;
}

static int get_int(spectro_job *pub, const char *name, int none, int *out, sp_errinfo *ei)
{
    double v = 0;
    int err = get_num(pub, name, none, &v, ei);
    *out = (int)v;
    return err;
}

/* A switch ("1" on). */
static int get_on(spectro_job *pub, const char *name, int *on, sp_errinfo *ei)
{
    char text[8];
    int err = get(pub, name, text, sizeof text, ei);
    *on = err == SP_OK && strcmp(text, "1") == 0;
    return err;
}

static int read_channel(spectro_job *pub, view_settings *s, sp_errinfo *ei)
{
    char text[32];
    int err = get(pub, "channel", text, sizeof text, ei);
    if (err != SP_OK)
        return err;
    if (strcmp(text, "mix") == 0)
        s->channel = VIEW_CHANNEL_MIX;
    else if (strcmp(text, "all") == 0)
        s->channel = VIEW_CHANNEL_ALL;
    else
        return get_int(pub, "channel", 0, &s->channel, ei);
    return SP_OK;
}

/* The pictures' settings, the font the job finds, the levels' unit; fmin and fmax as read
 * (-1: not set). */
static int read_render(spectro_job *pub, view_settings *s, double fmin, double fmax, sp_errinfo *ei)
{
    render_config *rc = &s->render;
    spectro_error e = {0, {0}};
    char text[128];
    float lo, hi;
    int err, w, h, set;
    *rc = render_config_default();
    if ((err = get(pub, "size", text, sizeof text, ei)) != SP_OK)
        return err;
    if (sscanf(text, "%dx%d", &w, &h) != 2)
        return bad("size", text, ei);
    rc->width = w;
    rc->height = h;
    if ((err = get(pub, "scale", text, sizeof text, ei)) != SP_OK ||
        (err = scale_parse(text, &rc->scale, ei)) != SP_OK ||
        (err = get(pub, "colormap", text, sizeof text, ei)) != SP_OK ||
        (err = colormap_parse(text, &rc->colormap, ei)) != SP_OK ||
        (err = get(pub, "db_range", text, sizeof text, ei)) != SP_OK)
        return err;
    if (sscanf(text, "%f:%f", &lo, &hi) != 2)
        return bad("db_range", text, ei);
    rc->db_lo = lo;
    rc->db_hi = hi;
    rc->fmin = fmin > 0 ? fmin : 0.0;
    rc->fmax = fmax > 0 ? fmax : 0.0;
    set = spectro_job_is_set(pub, "spl_offset");
    rc->level_unit = set == 1 ? "dB SPL" : NULL;
    if (spectro_job_font(pub, s->font, sizeof s->font, &e) != SPECTRO_OK)
        return sp_fail(ei, e.code, "%s", e.message);
    rc->font_search = s->font; /* found: tried first, its bold cut beside it for the title */
    return SP_OK;
}

/* The transform the settings ask for (one at most: the job's prepare checked); fmin and
 * fmax as read (-1: not set). */
static int read_xform(spectro_job *pub, view_xf *x, double fmin, double fmax, sp_errinfo *ei)
{
    int mel, mfcc, cqt, chroma, reassign, err;
    *x = view_xf_none();
    if ((err = get_int(pub, "mel", 0, &mel, ei)) != SP_OK || (err = get_int(pub, "mfcc", 0, &mfcc, ei)) != SP_OK ||
        (err = get_int(pub, "cqt", 0, &cqt, ei)) != SP_OK || (err = get_on(pub, "chroma", &chroma, ei)) != SP_OK ||
        (err = get_on(pub, "reassign", &reassign, ei)) != SP_OK ||
        (err = get_num(pub, "tuning", 0.0, &x->tuning, ei)) != SP_OK)
        return err;
    x->fmin = fmin;
    x->fmax = fmax > 0 ? fmax : 0.0;
    x->kind = mfcc       ? VIEW_XF_MFCC
              : mel      ? VIEW_XF_MEL
              : chroma   ? VIEW_XF_CHROMA
              : cqt      ? VIEW_XF_CQT
              : reassign ? VIEW_XF_REASSIGN
                         : VIEW_XF_NONE;
    x->bands = cqt ? cqt : mel;
    x->coeffs = mfcc;
    return SP_OK;
}

/* A pair's settings: compare's files, transfer's channels and reference. */
static int read_pairs(spectro_job *pub, view_settings *s, sp_errinfo *ei)
{
    char text[64];
    int err;
    if ((err = get_on(pub, "compare", &s->compare, ei)) != SP_OK ||
        (err = get_on(pub, "remove_delay", &s->remove_delay, ei)) != SP_OK ||
        (err = get(pub, "reference", s->reference, sizeof s->reference, ei)) != SP_OK ||
        (err = get(pub, "transfer", text, sizeof text, ei)) != SP_OK)
        return err;
    if (s->compare) {
        s->compare_a = spectro_job_input(pub, 0);
        s->compare_b = spectro_job_input(pub, 1);
        s->input = s->compare_b; /* the run reads B beside A */
    }
    s->transfer_ref = s->transfer_meas = -1;
    if (text[0] && !s->compare) {
        if (sscanf(text, "%d:%d", &s->transfer_ref, &s->transfer_meas) != 2)
            return bad("transfer", text, ei);
        s->transfer = 1;
    }
    return SP_OK;
}

/* The panel's start (view with tone, average), the tone's frequency (tone F Hz; "auto" or
 * not set: the strongest tone, 0) and the band bars (bands, weighting). */
static int read_panel(spectro_job *pub, view_settings *s, sp_errinfo *ei)
{
    char tone[64], average[16], weighting[8];
    int view, err;
    if ((err = get_on(pub, "view", &view, ei)) != SP_OK || (err = get(pub, "tone", tone, sizeof tone, ei)) != SP_OK ||
        (err = get(pub, "average", average, sizeof average, ei)) != SP_OK ||
        (err = get_int(pub, "bands", 0, &s->bands, ei)) != SP_OK ||
        (err = get(pub, "weighting", weighting, sizeof weighting, ei)) != SP_OK)
        return err;
    if (tone[0] && strcmp(tone, "auto") != 0) {
        char *end;
        errno = 0;
        s->tone_hz = strtod(tone, &end);
        if (errno || end == tone || *end)
            return bad("tone", tone, ei);
    }
    s->panel_tone = view && tone[0];
    s->panel_average = view && average[0];
    for (int i = 0; weighting[0] && i < spectro_bands_weighting_count(); i++)
        if (strcmp(weighting, spectro_bands_weighting_name(i)) == 0)
            s->bands_weighting = i;
    return SP_OK;
}

int view_settings_read(spectro_job *pub, view_settings *s, sp_errinfo *ei)
{
    double n, hop, fmin, fmax; /* fmin, fmax -1: not set (a given fmin is >= 0, fmax > 0) */
    int err;
    memset(s, 0, sizeof *s);
    s->input = spectro_job_input(pub, 0);
    if ((err = get_num(pub, "fft_size", 0, &n, ei)) != SP_OK || (err = get_num(pub, "hop", 0, &hop, ei)) != SP_OK ||
        (err = get(pub, "window", s->window, sizeof s->window, ei)) != SP_OK ||
        (err = get_on(pub, "realtime", &s->realtime, ei)) != SP_OK || (err = read_channel(pub, s, ei)) != SP_OK ||
        (err = get_num(pub, "start", 0.0, &s->start, ei)) != SP_OK ||
        (err = get_num(pub, "end", 0.0, &s->end, ei)) != SP_OK ||
        (err = get_num(pub, "duration", 0.0, &s->duration, ei)) != SP_OK ||
        (err = get_num(pub, "fmin", -1.0, &fmin, ei)) != SP_OK || (err = get_num(pub, "fmax", -1.0, &fmax, ei)) != SP_OK ||
        (err = get(pub, "raw_format", s->raw_format, sizeof s->raw_format, ei)) != SP_OK ||
        (err = get_int(pub, "stream", 0, &s->stream, ei)) != SP_OK ||
        (err = read_xform(pub, &s->xform, fmin, fmax, ei)) != SP_OK ||
        (err = read_render(pub, s, fmin, fmax, ei)) != SP_OK || (err = read_pairs(pub, s, ei)) != SP_OK)
        return err;
    s->band_lo = fmin;
    s->band_hi = fmax;
    if (n < 1 || hop < 1)
        return sp_fail(ei, SP_EINVAL, "the window's job is not prepared (spectro_job_prepare): no hop");
    s->n = (size_t)n;
    s->hop = (size_t)hop;
    return read_panel(pub, s, ei);
}

/* A setting of a derived run from a number: "%.17g" gives the double back exactly. */
static int set_num(spectro_job *j, const char *name, double x, spectro_error *e)
{
    char text[40];
    snprintf(text, sizeof text, "%.17g", x);
    return spectro_job_set(j, name, text, e);
}

int view_settings_set_xform(spectro_job *j, const view_xf *x, spectro_error *e)
{
    int err = SPECTRO_OK;
    switch (x->kind) {
    case VIEW_XF_MEL: err = set_num(j, "mel", x->bands, e); break;
    case VIEW_XF_MFCC:
        err = set_num(j, "mfcc", x->coeffs, e);
        if (err == SPECTRO_OK && x->bands > 0)
            err = set_num(j, "mel", x->bands, e);
        break;
    case VIEW_XF_CHROMA:
        err = spectro_job_set(j, "chroma", NULL, e);
        if (err == SPECTRO_OK && x->tuning != 0)
            err = set_num(j, "tuning", x->tuning, e);
        break;
    case VIEW_XF_CQT: err = set_num(j, "cqt", x->bands, e); break;
    case VIEW_XF_REASSIGN: err = spectro_job_set(j, "reassign", NULL, e); break;
    default: return SPECTRO_OK;
    }
    if (err == SPECTRO_OK && x->fmin >= 0)
        err = set_num(j, "fmin", x->fmin, e);
    if (err == SPECTRO_OK && x->fmax > 0)
        err = set_num(j, "fmax", x->fmax, e);
    return err;
}
