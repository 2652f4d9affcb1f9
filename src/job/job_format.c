/* job_format: a job's settings read back (job_get), each as the text its row's parser takes,
 * so that setting what was read changes nothing (as FFmpeg's av_opt_get does for an
 * AVOption). The common types are written from the row; a row with a value of its own
 * language (OPT_CUSTOM) names its format beside its parser (job_internal.h). */
#include "job.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bands.h"
#include "colormap.h"
#include "job_internal.h"
#include "measure.h"
#include "numfmt.h"
#include "scale.h"
#include "stft.h"

#define FIELD(o, off, type) ((const type *)(const void *)((const char *)(o) + (off)))

/* printf into buf, cut where too long; the length the whole text takes. */
static size_t put(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static size_t put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n < 0 ? 0 : (size_t)n;
}

/* A double as the fewest digits that read back as it (sp_fmt_num's "20", not "2e+01"). */
static size_t put_num(char *buf, size_t len, double v)
{
    char num[SP_FMT_NUM_MAX];
    return put(buf, len, "%s", sp_fmt_num(num, v, 0));
}

/* The settings as given: job_prepare keeps them (it changes the outputs' kinds and drops
 * some, --view's; compare forgets that average was given). */
static const analyze_config *given_config(const job *o)
{
    return o->prepared ? &o->given_an : &o->an;
}

static int given(const job *o, const job_row *row)
{
    return (o->prepared ? o->given_rows : o->given)[row - job_rows] != 0;
}

int job_was_given(const job *o, const char *name)
{
    const job_row *row = name ? job_row_find(name) : NULL;
    return row && given(o, row);
}

size_t job_format_fft_size(const job *o, const job_row *row, char *buf, size_t len)
{
    return put(buf, len, "%zu", *FIELD(o, row->field, size_t));
}

/* Before job_prepare, a window it would change (--tone's kaiser:20) is not yet the run's. */
size_t job_format_window(const job *o, const job_row *row, char *buf, size_t len)
{
    const analyze_config *a = given_config(o);
    char text[64];
    for (int i = 0; !o->prepared && !given(o, row) && i < a->n_outputs; i++)
        if (strcmp(a->outputs[i].kind, "tone") == 0)
            return put(buf, len, "%s", "");
    window_format(FIELD(o, row->field, window_spec), text, sizeof text);
    return put(buf, len, "%s", text);
}

size_t job_format_channel(const job *o, const job_row *row, char *buf, size_t len)
{
    int c = *FIELD(o, row->field, int);
    return c == STFT_CHANNEL_MIX ? put(buf, len, "mix") : c == STFT_CHANNEL_ALL ? put(buf, len, "all")
                                                                              : put(buf, len, "%d", c);
}

size_t job_format_backend(const job *o, const job_row *row, char *buf, size_t len)
{
    fft_backend_kind want = *FIELD(o, row->field, fft_backend_kind), k;
    for (int i = 0; i < fft_backend_count(); i++)
        if (fft_backend_parse(fft_backend_name(i), &k) == SP_OK && k == want)
            return put(buf, len, "%s", fft_backend_name(i));
    return put(buf, len, "%s", "");
}

/* An output as given: its path, or "1" for one without (peaks); "" ("0") when not asked. */
size_t job_format_output(const job *o, const job_row *row, char *buf, size_t len)
{
    const analyze_config *a = given_config(o);
    for (int i = 0; i < a->n_outputs; i++)
        if (strcmp(a->outputs[i].kind, row->output) == 0)
            return put(buf, len, "%s", row->value ? a->outputs[i].path : "1");
    return put(buf, len, "%s", row->value ? "" : "0");
}

size_t job_format_picture_size(const job *o, const job_row *row, char *buf, size_t len)
{
    return put(buf, len, "%dx%d", *FIELD(o, row->field, int), *FIELD(o, row->also[0], int));
}

size_t job_format_scale(const job *o, const job_row *row, char *buf, size_t len)
{
    return put(buf, len, "%s", scale_name(*FIELD(o, row->field, freq_scale)));
}

size_t job_format_colormap(const job *o, const job_row *row, char *buf, size_t len)
{
    const char *name = colormap_name(*FIELD(o, row->field, int));
    return put(buf, len, "%s", name ? name : "");
}

/* Before job_prepare, a range that spl_offset will move is not yet the run's. */
size_t job_format_db_range(const job *o, const job_row *row, char *buf, size_t len)
{
    char lo[SP_FMT_NUM_MAX], hi[SP_FMT_NUM_MAX];
    if (!o->prepared && !given(o, row) && job_given(o, "spl-offset"))
        return put(buf, len, "%s", "");
    return put(buf, len, "%s:%s", sp_fmt_num(lo, *FIELD(o, row->field, float), 0),
               sp_fmt_num(hi, *FIELD(o, row->also[0], float), 0));
}

size_t job_format_raw_format(const job *o, const job_row *row, char *buf, size_t len)
{
    const source_raw_format *r = FIELD(o, row->field, source_raw_format);
    const char *enc = r->encoding >= 0 ? source_raw_name(r->encoding) : NULL;
    return enc ? put(buf, len, "%s,%d,%d", enc, r->rate, r->channels) : put(buf, len, "%s", "");
}

size_t job_format_shard(const job *o, const job_row *row, char *buf, size_t len)
{
    int n = *FIELD(o, row->also[0], int);
    return n > 0 ? put(buf, len, "%d/%d", *FIELD(o, row->field, int), n) : put(buf, len, "%s", "");
}

size_t job_format_average(const job *o, const job_row *row, char *buf, size_t len)
{
    const char *name = measure_average_name((int)*FIELD(o, row->field, measure_average));
    return put(buf, len, "%s", name ? name : "");
}

size_t job_format_real(const job *o, const job_row *row, char *buf, size_t len)
{
    return put_num(buf, len, *FIELD(o, row->field, double));
}

size_t job_format_calibrate(const job *o, const job_row *row, char *buf, size_t len)
{
    char level[SP_FMT_NUM_MAX], hz[SP_FMT_NUM_MAX];
    return put(buf, len, "%s@%s", sp_fmt_num(level, *FIELD(o, row->field, double), 0),
               sp_fmt_num(hz, o->an.measure.tone_hz, 0));
}

size_t job_format_tone(const job *o, const job_row *row, char *buf, size_t len)
{
    double hz = *FIELD(o, row->field, double);
    return hz > 0 ? put_num(buf, len, hz) : put(buf, len, "auto");
}

size_t job_format_tone_format(const job *o, const job_row *row, char *buf, size_t len)
{
    return put(buf, len, "%s", job_tone_formats[*FIELD(o, row->field, int) ? 1 : 0]);
}

/* The window's band bars too (job_prepare moves bands there when there is no output). */
size_t job_format_bands(const job *o, const job_row *row, char *buf, size_t len)
{
    int b = *FIELD(o, row->field, int);
    if (!b)
        b = o->view_bands;
    return b ? put(buf, len, "%d", b) : put(buf, len, "%s", "");
}

size_t job_format_weighting(const job *o, const job_row *row, char *buf, size_t len)
{
    return put(buf, len, "%s", bands_weighting_name((bands_weighting)*FIELD(o, row->field, int)));
}

size_t job_format_tuning(const job *o, const job_row *row, char *buf, size_t len)
{
    return *FIELD(o, row->also[0], int) ? put(buf, len, "auto") : put_num(buf, len, *FIELD(o, row->field, double));
}

size_t job_format_transfer(const job *o, const job_row *row, char *buf, size_t len)
{
    const analyze_config *a = given_config(o); /* compare sets its own channels */
    (void)row;
    return put(buf, len, "%d:%d", a->measure.transfer_ref, a->measure.transfer_meas);
}

/* A number of a row's range as text; "" out of it (0: not set, the run decides). */
static size_t format_typed(const job *o, const job_row *row, char *buf, size_t len)
{
    double v;
    switch (row->type) {
    case OPT_SWITCH: return put(buf, len, "%d", *FIELD(o, row->field, int) != 0);
    case OPT_SIZE: v = (double)*FIELD(o, row->field, size_t); break;
    case OPT_INT: v = (double)*FIELD(o, row->field, int); break;
    case OPT_REAL:
    case OPT_TIME: v = *FIELD(o, row->field, double); break;
    case OPT_TEXT: {
        const char *t = *FIELD(o, row->field, const char *);
        return put(buf, len, "%s", t ? t : "");
    }
    case OPT_OUTPUT: return job_format_output(o, row, buf, len);
    default: return (size_t)-1;
    }
    if (row->type == OPT_TIME ? (v < 0 || (row->strict && v <= 0))
                              : (v < row->min || (row->strict && v <= row->min) ||
                                 ((row->type == OPT_SIZE || row->type == OPT_INT) && v > row->max)))
        return put(buf, len, "%s", "");
    if (row->type == OPT_SIZE)
        return put(buf, len, "%zu", *FIELD(o, row->field, size_t));
    return row->type == OPT_INT ? put(buf, len, "%d", *FIELD(o, row->field, int)) : put_num(buf, len, v);
}

int job_get(const job *o, const char *name, char *value, size_t len, sp_errinfo *ei)
{
    const job_row *row = name ? job_row_find(name) : NULL;
    char field[64];
    size_t n;
    if (!row)
        return sp_fail(ei, SP_EINVAL, "%s: no such setting", name ? name : "(null)");
    snprintf(field, sizeof field, "%s", row->name ? row->name : row->longname);
    for (char *p = field; *p; p++)
        *p = *p == '-' ? '_' : *p;
    if (!value || len == 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD_MARK "%s" SP_FIELD_MARK ": no room for the value (value NULL or len 0)",
                       field);
    if (row->unset_empty && !given(o, row))
        n = put(value, len, "%s", "");
    else if (row->format)
        n = row->format(o, row, value, len);
    else
        n = format_typed(o, row, value, len);
    if (n == (size_t)-1)
        return sp_fail(ei, SP_EINVAL, SP_FIELD_MARK "%s" SP_FIELD_MARK ": its row has no format", field);
    if (n >= len)
        return sp_fail(ei, SP_EINVAL, SP_FIELD_MARK "%s" SP_FIELD_MARK ": its value takes %zu bytes with its NUL, "
                       "more than the %zu given", field, n + 1, len);
    return SP_OK;
}
