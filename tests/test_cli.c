/* test_cli: a job's rows (src/job/job_internal.h), from which the program's options, --help,
 * man page and completion are made, hold to what they say.
 * - A default that help writes and that the setting takes (def_parses) is the job's own
 *   default: setting it on a fresh job changes nothing but the "given" mark.
 * - Every numeric row's range is enforced at both ends, with the field named in the message.
 * - Every row has help; names are unique; a setting's value and its type agree.
 * - fmin and fmax reach every field their row names (picture, peaks, tone band).
 * - job_given tells given settings from defaults; names with '-' and '_' are the same. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "job_internal.h"
#include "test_util.h"

static job *fresh(void)
{
    job *j = NULL;
    sp_errinfo ei = {{0}};
    if (job_create(&j, &ei) != SP_OK) {
        fprintf(stderr, "test_cli: %s\n", ei.msg);
        exit(1);
    }
    return j;
}

static int same_config(const job *a, const job *b)
{
    return memcmp(&a->an, &b->an, sizeof a->an) == 0 && a->shard_k == b->shard_k && a->shard_n == b->shard_n;
}

static void test_defaults_are_the_jobs(void)
{
    int checked = 0;
    for (int i = 0; i < job_row_count; i++) {
        const job_row *row = &job_rows[i];
        job *clean, *o;
        sp_errinfo ei = {{0}};
        if (!row->def_parses)
            continue;
        clean = fresh();
        o = fresh();
        CHECK_MSG(job_set(o, row->longname, row->def, &ei) == SP_OK, "%s %s: %s", row->longname, row->def, ei.msg);
        CHECK_MSG(same_config(o, clean), "%s: help says the default is %s, the job's differs", row->longname,
                  row->def);
        CHECK(job_given(o, row->longname) && !job_given(clean, row->longname));
        job_destroy(clean);
        job_destroy(o);
        checked++;
    }
    CHECK(checked >= 3); /* fft-size, size, db-range at least */
}

/* The field as a message marks it (SP_FIELD). */
static void marked(const job_row *row, char *buf, size_t len)
{
    snprintf(buf, len, SP_FIELD_MARK "%s" SP_FIELD_MARK, row->name ? row->name : row->longname);
    for (char *p = buf; *p; p++)
        *p = *p == '-' ? '_' : *p;
}

static void expect_refused(const job_row *row, const char *val)
{
    job *o = fresh();
    sp_errinfo ei = {{0}};
    char name[64];
    marked(row, name, sizeof name);
    CHECK_MSG(job_set(o, row->longname, val, &ei) == SP_EINVAL, "%s %s was taken", row->longname, val);
    CHECK_MSG(strstr(ei.msg, name) != NULL, "%s %s: the message does not name it: %s", row->longname, val, ei.msg);
    job_destroy(o);
}

static void expect_taken(const job_row *row, const char *val)
{
    job *o = fresh();
    sp_errinfo ei = {{0}};
    CHECK_MSG(job_set(o, row->longname, val, &ei) == SP_OK, "%s %s: %s", row->longname, val, ei.msg);
    job_destroy(o);
}

static void test_ranges(void)
{
    int numeric = 0;
    for (int i = 0; i < job_row_count; i++) {
        const job_row *row = &job_rows[i];
        char v[64];
        if (row->type == OPT_SIZE || row->type == OPT_INT) {
            snprintf(v, sizeof v, "%.0f", row->min);
            expect_taken(row, v);
            snprintf(v, sizeof v, "%.0f", row->max);
            expect_taken(row, v);
            snprintf(v, sizeof v, "%.0f", row->max + 1);
            expect_refused(row, v);
            if (row->min > 0) {
                snprintf(v, sizeof v, "%.0f", row->min - 1);
                expect_refused(row, v);
            }
            expect_refused(row, "x");
            numeric++;
        } else if (row->type == OPT_REAL || row->type == OPT_TIME) {
            snprintf(v, sizeof v, "%g", row->min);
            if (row->strict)
                expect_refused(row, v);
            else
                expect_taken(row, v);
            snprintf(v, sizeof v, "%g", row->min - 1);
            expect_refused(row, v);
            expect_refused(row, "nan");
            numeric++;
        }
    }
    CHECK(numeric >= 8);
}

static void test_rows_well_formed(void)
{
    for (int i = 0; i < job_row_count; i++) {
        const job_row *a = &job_rows[i];
        int takes_value = a->type != OPT_SWITCH && !(a->type == OPT_OUTPUT && !a->value);
        CHECK_MSG(a->help && (a->help[0] || a->list), "%s has no help", a->longname);
        CHECK_MSG(takes_value == (a->value != NULL), "%s: its value name and its type disagree", a->longname);
        CHECK_MSG(a->type != OPT_INT || (a->min >= 0 && a->max <= INT_MAX), "%s: its range does not fit an int",
                  a->longname);
        CHECK_MSG(a->type != OPT_CUSTOM || a->parse, "%s: a custom row without a parser", a->longname);
        CHECK_MSG((a->type != OPT_TEXT && !(a->type == OPT_OUTPUT && a->value)) || a->empty,
                  "%s: no message for an empty value", a->longname);
        CHECK_MSG(job_row_find(a->longname) == a, "%s: found as another row", a->longname);
        for (int j = i + 1; j < job_row_count; j++) {
            CHECK_MSG(strcmp(a->longname, job_rows[j].longname) != 0, "%s twice", a->longname);
            CHECK_MSG(!a->name || !job_rows[j].name || strcmp(a->name, job_rows[j].name) != 0, "alias %s twice",
                      a->name);
        }
    }
}

static void test_band_edges(void)
{
    job *o = fresh();
    sp_errinfo ei = {{0}};
    CHECK(job_set(o, "fmin", "125.5", &ei) == SP_OK);
    CHECK(job_set(o, "fmax", "8000", &ei) == SP_OK);
    CHECK(o->an.render.fmin == 125.5 && o->an.peak_fmin == 125.5 && o->an.measure.band_lo == 125.5);
    CHECK(o->an.render.fmax == 8000 && o->an.peak_fmax == 8000 && o->an.measure.band_hi == 8000);
    job_destroy(o);
}

static void test_set_given(void)
{
    job *o = fresh();
    sp_errinfo ei = {{0}};
    CHECK(job_set(o, "window", "hamming", &ei) == SP_OK && job_set(o, "peaks", NULL, &ei) == SP_OK);
    CHECK(job_set(o, "no_such_setting", "1", &ei) == SP_EINVAL && strstr(ei.msg, "no such setting"));
    CHECK(job_set(o, "hop", NULL, &ei) == SP_EINVAL && strstr(ei.msg, "missing value"));
    CHECK(job_set(o, "psd", "maybe", &ei) == SP_EINVAL && strstr(ei.msg, "takes no value"));
    CHECK(job_set(o, "psd", "0", &ei) == SP_OK && !job_given(o, "psd"));
    CHECK(job_set(o, "raw_format", "f32le,48000,1", &ei) == SP_OK && job_given(o, "raw-format"));
    CHECK(job_add_input(o, "in.wav", &ei) == SP_OK);
    CHECK(job_given(o, "window") && job_given(o, "peaks"));
    CHECK(!job_given(o, "fft-size") && !job_given(o, "no-such-option"));
    CHECK(job_prepare(o, &ei) == SP_OK);
    CHECK(o->n_inputs == 1 && strcmp(o->an.input, "in.wav") == 0 && o->headless);
    job_destroy(o);
}

int main(void)
{
    test_rows_well_formed();
    test_defaults_are_the_jobs();
    test_ranges();
    test_band_edges();
    test_set_given();
    return check_done("test_cli");
}
