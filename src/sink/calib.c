#include "calib.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALIB_MAX_ROWS 100000
#define LINE_MAX_BYTES 4096

struct calib {
    double *hz, *db;        /* rows, hz rising */
    double *log_hz;
    size_t n;
    double sens;            /* "Sens Factor" */
};

void calib_destroy(calib *c)
{
    if (!c)
        return;
    free(c->hz);
    free(c->db);
    free(c->log_hz);
    free(c);
}

/* The file's name without its directories, for messages. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* 1 when p starts with word, in any case. */
static int starts_with_word(const char *p, const char *word)
{
    for (; *word; p++, word++)
        if (tolower((unsigned char)*p) != *word)
            return 0;
    return 1;
}

/* "Sens Factor =-1.378dB, SERNO: 7023305": the number after '=' (1), none here (0), or
 * a line that names it without a number (-1). */
static int sens_factor(const char *line, double *out)
{
    const char *p = line, *eq;
    char *end;
    for (; *p; p++)
        if (starts_with_word(p, "sens factor"))
            break;
    if (!*p)
        return 0;
    if (!(eq = strchr(p, '=')))
        return -1;
    errno = 0;
    *out = strtod(eq + 1, &end);
    return end == eq + 1 || errno || !isfinite(*out) ? -1 : 1;
}

/* "freq dB [phase]" (blanks, tabs or commas between): 0, or -1 when the line is not one. */
static int parse_row(char *line, double *hz, double *db)
{
    double v[3];
    int n = 0;
    char *p = line, *end;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (n == 3)
            return -1;
        errno = 0;
        v[n] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[n]))
            return -1;
        n++;
        p = end;
        if (*p && *p != ' ' && *p != '\t' && *p != ',' && *p != '\r' && *p != '\n')
            return -1;
    }
    if (n < 2)
        return -1;
    *hz = v[0];
    *db = v[1];
    return 0;
}

/* Appends a row, growing the arrays. */
static int push_row(calib *c, size_t *cap, double hz, double db)
{
    if (c->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 256;
        double *h = realloc(c->hz, nc * sizeof *h), *d;
        if (h)
            c->hz = h;
        if (!h || !(d = realloc(c->db, nc * sizeof *d)))
            return -1;
        c->db = d;
        *cap = nc;
    }
    c->hz[c->n] = hz;
    c->db[c->n] = db;
    c->n++;
    return 0;
}

/* One line of the file into c; SP_EINVAL naming the line. */
static int take_line(calib *c, size_t *cap, char *line, const char *name, long no, sp_errinfo *ei)
{
    char *p = line;
    double hz, db;
    int s = sens_factor(line, &c->sens);
    while (isspace((unsigned char)*p))
        p++;
    if (s < 0)
        return sp_fail(ei, SP_EINVAL, "%s:%ld: a \"Sens Factor\" line without a number (\"Sens Factor =-1.5dB\")", name,
                       no);
    if (s > 0 || !*p || *p == '*' || *p == '#' || *p == ';' || *p == '"')
        return SP_OK;
    if (parse_row(p, &hz, &db) != 0)
        return sp_fail(ei, SP_EINVAL, "%s:%ld: expected freq_hz dB [phase] (numbers), or a comment starting with * # ; "
                                      "or \"", name, no);
    if (!(hz > 0.0))
        return sp_fail(ei, SP_EINVAL, "%s:%ld: frequency %g Hz: must be above 0", name, no, hz);
    if (c->n > 0 && !(hz > c->hz[c->n - 1]))
        return sp_fail(ei, SP_EINVAL, "%s:%ld: frequency %g Hz: the rows' frequencies must rise (the row before: "
                                      "%g Hz)",
                       name, no, hz, c->hz[c->n - 1]);
    if (c->n == CALIB_MAX_ROWS)
        return sp_fail(ei, SP_EINVAL, "%s:%ld: more than %d rows", name, no, CALIB_MAX_ROWS);
    if (push_row(c, cap, hz, db) != 0)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    return SP_OK;
}

int calib_load(const char *path, calib **out, sp_errinfo *ei)
{
    FILE *f;
    calib *c;
    char line[LINE_MAX_BYTES];
    size_t cap = 0;
    long no = 0;
    int err = SP_OK;
    *out = NULL;
    if (!(f = fopen(path, "r")))
        return sp_fail(ei, SP_EIO, SP_FIELD("calibration") " %s: cannot read: %s", path, strerror(errno));
    if (!(c = calloc(1, sizeof *c))) {
        fclose(f);
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    }
    while (err == SP_OK && fgets(line, sizeof line, f)) {
        no++;
        if (!strchr(line, '\n') && !feof(f))
            err = sp_fail(ei, SP_EINVAL, "%s:%ld: a line longer than %d bytes", base_name(path), no,
                          LINE_MAX_BYTES - 2);
        else
            err = take_line(c, &cap, line, base_name(path), no, ei);
    }
    if (err == SP_OK && ferror(f))
        err = sp_fail(ei, SP_EIO, SP_FIELD("calibration") " %s: cannot read: %s", path, strerror(errno));
    fclose(f);
    if (err == SP_OK && c->n == 0)
        err = sp_fail(ei, SP_EINVAL, "%s:%ld: no rows (freq_hz dB [phase])", base_name(path), no);
    if (err == SP_OK && !(c->log_hz = malloc(c->n * sizeof *c->log_hz)))
        err = sp_fail(ei, SP_ENOMEM, "out of memory");
    for (size_t i = 0; err == SP_OK && i < c->n; i++)
        c->log_hz[i] = log(c->hz[i]);
    if (err != SP_OK) {
        calib_destroy(c);
        return err;
    }
    *out = c;
    return SP_OK;
}

double calib_db_at(const calib *c, double hz)
{
    size_t lo = 0, hi;
    double t;
    if (!c)
        return 0.0;
    if (!(hz > c->hz[0]))
        return c->db[0] + c->sens;
    if (hz >= c->hz[c->n - 1])
        return c->db[c->n - 1] + c->sens;
    hi = c->n - 1; /* hz[lo] < hz < hz[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->hz[mid] <= hz)
            lo = mid;
        else
            hi = mid;
    }
    t = (log(hz) - c->log_hz[lo]) / (c->log_hz[hi] - c->log_hz[lo]);
    return c->db[lo] + t * (c->db[hi] - c->db[lo]) + c->sens;
}

void calib_offsets(const calib *c, double offset_db, double bin_hz, size_t bins, float *out)
{
    for (size_t k = 0; k < bins; k++)
        out[k] = (float)(offset_db - calib_db_at(c, (double)k * bin_hz));
}
