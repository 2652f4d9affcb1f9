/* job_help: the settings as data (job_setting_doc_at), from which the program makes --help,
 * its man page and shell completion: the rows (job_internal.h) with the lists read from the
 * modules' own tables (windows, backends, scales, ...), so that a new window or backend
 * shows up in all of them. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bands.h"
#include "job_internal.h"
#include "colormap.h"
#include "dump.h"
#include "fft.h"
#include "measure.h"
#include "render.h"
#include "scale.h"
#include "source.h"
#include "window.h"

/* ---- lists --------------------------------------------------------------------------------- */

/* Appends an item to buf (at *at), with its note in parentheses, truncating at len. */
static void list_add(char *buf, size_t len, size_t *at, const char *sep, const char *item, const char *note)
{
    int w;
    if (*at >= len)
        return;
    w = snprintf(buf + *at, len - *at, "%s%s%s%s%s", sep, item, note ? " (" : "", note ? note : "", note ? ")" : "");
    if (w > 0)
        *at += (size_t)w;
}

/* A list of `count` names: bare ("a b c"), or for --help ("a (default), b, c"). */
typedef const char *(*name_at_fn)(int i, char *note, size_t note_len);

static void list_of(char *buf, size_t len, int bare, int count, name_at_fn name_at)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < count; i++) {
        char note[128] = "";
        const char *name = name_at(i, note, sizeof note);
        list_add(buf, len, &at, i == 0 ? "" : bare ? " " : ", ", name, bare || !note[0] ? NULL : note);
    }
}

static const char *window_at(int i, char *note, size_t len)
{
    static char item[96];
    window_help(i, item, sizeof item);
    if (window_spec_at(i).kind == window_spec_default().kind)
        snprintf(note, len, "default");
    return item;
}

void job_list_windows(char *buf, size_t len, int bare)
{
    if (bare) {
        size_t at = 0;
        buf[0] = 0;
        for (int i = 0; i < window_count(); i++)
            list_add(buf, len, &at, i ? " " : "", window_name(i), NULL);
        return;
    }
    list_of(buf, len, 0, window_count(), window_at);
}

/* The default backend's note says what it picks: "auto (default: cuda when ...)". */
static const char *backend_at(int i, char *note, size_t len)
{
    fft_backend_kind kind;
    if (fft_backend_parse(fft_backend_name(i), &kind) == SP_OK && kind == fft_config_default().backend)
        snprintf(note, len, "default: %s", fft_backend_help(i));
    return fft_backend_name(i);
}

void job_list_backends(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, fft_backend_count(), backend_at);
}

void job_backend_names(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < fft_backend_count(); i++)
        list_add(buf, len, &at, i ? ", " : "", fft_backend_name(i), NULL);
}

/* "OUT.npy (NumPy) or OUT.csv": not names to complete (bare: empty) */
void job_list_dump_formats(char *buf, size_t len, int bare)
{
    size_t at = 0;
    int n = dump_format_count();
    buf[0] = 0;
    for (int i = 0; i < n && !bare; i++) {
        char item[32];
        snprintf(item, sizeof item, "OUT%s", dump_format_ext(i));
        list_add(buf, len, &at, i == 0 ? "" : i + 1 < n ? ", " : " or ", item, dump_format_help(i));
    }
}

static const char *scale_at(int i, char *note, size_t len)
{
    if (i == (int)render_config_default().scale)
        snprintf(note, len, "default");
    return scale_name((freq_scale)i);
}

void job_list_scales(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, scale_count(), scale_at);
}

static const char *colormap_at(int i, char *note, size_t len)
{
    if (i == render_config_default().colormap)
        snprintf(note, len, "default");
    return colormap_name(i);
}

void job_list_colormaps(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, colormap_count(), colormap_at);
}

static const char *average_at(int i, char *note, size_t len)
{
    snprintf(note, len, "%s", measure_average_help(i));
    return measure_average_name(i);
}

void job_list_averages(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, measure_average_count(), average_at);
}

const char *const job_tone_formats[JOB_TONE_FORMAT_COUNT] = {"json", "text"};

static const char *tone_format_at(int i, char *note, size_t len)
{
    if (i == 0)
        snprintf(note, len, "default");
    return job_tone_formats[i];
}

void job_list_tone_formats(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, JOB_TONE_FORMAT_COUNT, tone_format_at);
}

static const char *weighting_at(int i, char *note, size_t len)
{
    if (i == 0)
        snprintf(note, len, "default: none");
    return bands_weighting_name((bands_weighting)i);
}

void job_list_weightings(char *buf, size_t len, int bare)
{
    list_of(buf, len, bare, BANDS_WEIGHT_COUNT, weighting_at);
}

/* "f32le, s16le, ... or u8": not names to complete alone (ENC,RATE,CH; bare: empty) */
void job_list_raw_encodings(char *buf, size_t len, int bare)
{
    size_t at = 0;
    int n = source_raw_count();
    buf[0] = 0;
    for (int i = 0; i < n && !bare; i++)
        list_add(buf, len, &at, i == 0 ? "" : i + 1 < n ? ", " : " or ", source_raw_name(i), NULL);
}

/* --channel: its words (an index is a number): completion only, --help spells them out */
void job_list_channels(char *buf, size_t len, int bare)
{
    snprintf(buf, len, "%s", bare ? "mix all" : "");
}

/* A row's whole help: the text, its list, what follows the list, and its default. */
static void row_text(const job_row *o, char *text, size_t len)
{
    char list[512] = "", def[96] = "";
    if (o->list)
        o->list(list, sizeof list, 0);
    if (o->def)
        snprintf(def, sizeof def, " (default %s)", o->def);
    snprintf(text, len, "%s%s%s%s", o->help, list, o->help_after ? o->help_after : "", def);
}

/* ---- the rows as data (man page, completion) ------------------------------------------------ */

int job_setting_count(void)
{
    return job_row_count;
}

/* "fft_size" for each row: its name as a field. */
static char field_names[JOB_MAX_ROWS][48];
static pthread_once_t field_names_once = PTHREAD_ONCE_INIT;

static void name_fields(void)
{
    for (int i = 0; i < job_row_count; i++) {
        snprintf(field_names[i], sizeof field_names[i], "%s", job_rows[i].longname);
        for (char *p = field_names[i]; *p; p++)
            *p = *p == '-' ? '_' : *p;
    }
}

int job_setting_doc_at(int i, job_setting_doc *out)
{
    const job_row *o;
    if (i < 0 || i >= job_row_count || !out)
        return SP_EINVAL;
    pthread_once(&field_names_once, name_fields);
    o = &job_rows[i];
    memset(out, 0, sizeof *out);
    out->name = field_names[i];
    out->alias = o->name;
    out->value = o->value;
    out->group = o->section != NULL;
    snprintf(out->section, sizeof out->section, "%s", o->section ? o->section : "");
    row_text(o, out->text, sizeof out->text);
    sp_render_fields(out->section, sizeof out->section);
    sp_render_fields(out->text, sizeof out->text);
    out->kind = o->kind ? o->kind : 'n';
    if (o->list)
        o->list(out->values, sizeof out->values, 1);
    if (out->values[0])
        out->kind = 'l';
    return SP_OK;
}
