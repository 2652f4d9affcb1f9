/* test_cli: the command line's rows (src/app/cli_internal.h) hold to what they say.
 * - A default that --help writes and that the option takes (def_parses) is the program's own
 *   default: parsing it into a fresh config changes nothing but the "given" mark.
 * - Every numeric row's range is enforced at both ends, with the option named in the message.
 * - Every row has help; long and short names are unique; an option's value and its type agree.
 * - --fmin and --fmax reach every field their row names (picture, peaks, tone band).
 * - cli_given tells given options from defaults. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli_internal.h"
#include "test_util.h"

static int same_config(const cli_options *a, const cli_options *b)
{
    return memcmp(&a->an, &b->an, sizeof a->an) == 0 && a->shard_k == b->shard_k && a->shard_n == b->shard_n;
}

static void test_defaults_are_the_programs(void)
{
    int checked = 0;
    for (int i = 0; i < cli_row_count; i++) {
        const cli_option *row = &cli_rows[i];
        cli_options fresh, o;
        sp_errinfo ei = {{0}};
        char name[64];
        if (!row->def_parses)
            continue;
        cli_defaults(&fresh);
        cli_defaults(&o);
        snprintf(name, sizeof name, "--%s", row->longname);
        CHECK_MSG(cli_apply(&o, row, name, row->def, &ei) == SP_OK, "%s %s: %s", name, row->def, ei.msg);
        CHECK_MSG(same_config(&o, &fresh), "%s: --help says the default is %s, the program's differs", name,
                  row->def);
        CHECK(cli_given(&o, row->longname) && !cli_given(&fresh, row->longname));
        checked++;
    }
    CHECK(checked >= 3); /* fft-size, size, db-range at least */
}

static void expect_refused(const cli_option *row, const char *val)
{
    cli_options o;
    sp_errinfo ei = {{0}};
    char name[64];
    cli_defaults(&o);
    snprintf(name, sizeof name, "--%s", row->longname);
    CHECK_MSG(cli_apply(&o, row, name, val, &ei) == SP_EINVAL, "%s %s was taken", name, val);
    CHECK_MSG(strstr(ei.msg, name) != NULL, "%s %s: the message does not name it: %s", name, val, ei.msg);
}

static void expect_taken(const cli_option *row, const char *val)
{
    cli_options o;
    sp_errinfo ei = {{0}};
    char name[64];
    cli_defaults(&o);
    snprintf(name, sizeof name, "--%s", row->longname);
    CHECK_MSG(cli_apply(&o, row, name, val, &ei) == SP_OK, "%s %s: %s", name, val, ei.msg);
}

static void test_ranges(void)
{
    int numeric = 0;
    for (int i = 0; i < cli_row_count; i++) {
        const cli_option *row = &cli_rows[i];
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
    for (int i = 0; i < cli_row_count; i++) {
        const cli_option *a = &cli_rows[i];
        int takes_value = a->type != OPT_SWITCH && !(a->type == OPT_OUTPUT && !a->value);
        CHECK_MSG(a->help && (a->help[0] || a->list), "--%s has no help", a->longname);
        CHECK_MSG(takes_value == (a->value != NULL), "--%s: its value name and its type disagree", a->longname);
        CHECK_MSG(a->type != OPT_INT || (a->min >= 0 && a->max <= INT_MAX), "--%s: its range does not fit an int",
                  a->longname);
        CHECK_MSG(a->type != OPT_CUSTOM || a->parse, "--%s: a custom row without a parser", a->longname);
        CHECK_MSG((a->type != OPT_TEXT && !(a->type == OPT_OUTPUT && a->value)) || a->empty,
                  "--%s: no message for an empty value", a->longname);
        CHECK_MSG(cli_row_find(a->longname) == a, "--%s: found as another row", a->longname);
        for (int j = i + 1; j < cli_row_count; j++) {
            CHECK_MSG(strcmp(a->longname, cli_rows[j].longname) != 0, "--%s twice", a->longname);
            CHECK_MSG(!a->shortname || a->shortname != cli_rows[j].shortname, "-%c twice", a->shortname);
        }
    }
}

static void test_band_edges(void)
{
    cli_options o;
    sp_errinfo ei = {{0}};
    cli_defaults(&o);
    CHECK(cli_apply(&o, cli_row_find("fmin"), "--fmin", "125.5", &ei) == SP_OK);
    CHECK(cli_apply(&o, cli_row_find("fmax"), "--fmax", "8000", &ei) == SP_OK);
    CHECK(o.an.render.fmin == 125.5 && o.an.peak_fmin == 125.5 && o.an.measure.band_lo == 125.5);
    CHECK(o.an.render.fmax == 8000 && o.an.peak_fmax == 8000 && o.an.measure.band_hi == 8000);
}

static void test_parse_given(void)
{
    char a0[] = "spectro", a1[] = "-w", a2[] = "hamming", a3[] = "--peaks", a4[] = "in.wav";
    char *argv[] = {a0, a1, a2, a3, a4, NULL};
    cli_options o;
    sp_errinfo ei = {{0}};
    CHECK(cli_parse(5, argv, &o, &ei) == SP_OK);
    CHECK(cli_given(&o, "window") && cli_given(&o, "peaks"));
    CHECK(!cli_given(&o, "fft-size") && !cli_given(&o, "no-such-option"));
    CHECK(o.n_inputs == 1 && strcmp(o.an.input, "in.wav") == 0 && o.headless);
}

int main(void)
{
    test_rows_well_formed();
    test_defaults_are_the_programs();
    test_ranges();
    test_band_edges();
    test_parse_given();
    return check_done("test_cli");
}
