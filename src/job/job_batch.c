#include "job_batch.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze.h"
#include "clock.h"
#include "dump.h"
#include "progress.h"
#include "job_report.h"
#include "sink_table.h"

#define PATH_BYTES 4096
#define PAR_FILES_MAX 16 /* sessions at once on the cpu backend */

/* The whole list, before --shard takes its share: the command line's FILEs (argv's
 * strings), then --files-from's lines (own[], freed at the end). */
typedef struct {
    const char **path;
    int count, cap;
    char **own;
    int n_own;
} input_list;

/* ---- outputs: patterns and directories ----------------------------------------------------- */

int batch_output_is_dir(const char *path)
{
    struct stat st;
    size_t len = path ? strlen(path) : 0;
    if (len == 0)
        return 0;
    return path[len - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* The placeholders of an output pattern; input_parts makes what each stands for. */
enum { PH_STEM, PH_NAME, PH_DIR, PH_COUNT };
static const char *const PLACEHOLDERS[PH_COUNT] = {[PH_STEM] = "{stem}", [PH_NAME] = "{name}", [PH_DIR] = "{dir}"};

/* The placeholder p starts with (PH_*), or -1. */
static int placeholder_at(const char *p)
{
    for (int i = 0; i < PH_COUNT; i++)
        if (strncmp(p, PLACEHOLDERS[i], strlen(PLACEHOLDERS[i])) == 0)
            return i;
    return -1;
}

static int has_placeholder(const char *path)
{
    for (int i = 0; i < PH_COUNT; i++)
        if (strstr(path, PLACEHOLDERS[i]))
            return 1;
    return 0;
}

static int unknown_placeholder(const sink_kind *k, const char *pattern, const char *at, sp_errinfo *ei)
{
    return sp_fail(ei, SP_EINVAL, "%s %s: unknown placeholder at \"%.12s\" (use {stem}, {name} or {dir})", k->option,
                   pattern, at);
}

static int has_pattern(const char *path)
{
    return has_placeholder(path) || batch_output_is_dir(path);
}

/* An input's {dir}, {name} and {stem}: "a/b/x.tar.wav" -> "a/b", "x.tar.wav", "x.tar";
 * "x.wav" -> ".", ...; "-" is "stdin", the microphone (NULL) "microphone". */
static void input_parts(const char *input, char *dir, char *name, char *stem)
{
    const char *slash, *base, *dot;
    if (!input || strcmp(input, "-") == 0) {
        strcpy(dir, ".");
        strcpy(name, input ? "stdin" : "microphone");
        strcpy(stem, name);
        return;
    }
    slash = strrchr(input, '/');
    base = slash ? slash + 1 : input;
    if (!slash)
        strcpy(dir, ".");
    else
        snprintf(dir, PATH_BYTES, "%.*s", slash == input ? 1 : (int)(slash - input), input);
    snprintf(name, PATH_BYTES, "%s", base);
    dot = strrchr(base, '.');
    snprintf(stem, PATH_BYTES, "%.*s", dot && dot != base ? (int)(dot - base) : (int)strlen(base), base);
}

/* The output of kind `k` asked for at `pattern`, for `input`, into out[PATH_BYTES]. */
static int expand(const sink_kind *k, const char *pattern, const char *input, char *out, sp_errinfo *ei)
{
    static char dir[PATH_BYTES], name[PATH_BYTES], stem[PATH_BYTES];
    const char *const part[PH_COUNT] = {[PH_STEM] = stem, [PH_NAME] = name, [PH_DIR] = dir};
    size_t at = 0, len = strlen(pattern);
    const char *p = pattern;
    input_parts(input, dir, name, stem);
    if (batch_output_is_dir(pattern)) {
        at = (size_t)snprintf(out, PATH_BYTES, "%s%s%s%s", pattern, pattern[len - 1] == '/' ? "" : "/", stem,
                              k->dir_ext ? k->dir_ext : "");
        return at < PATH_BYTES ? SP_OK : sp_fail(ei, SP_EINVAL, "%s %s: the path for %s is too long", k->option,
                                                  pattern, input);
    }
    while (*p && at < PATH_BYTES) {
        const char *value = NULL;
        size_t skip = 0;
        if (*p == '{') {
            int ph = placeholder_at(p);
            if (ph < 0)
                return unknown_placeholder(k, pattern, p, ei);
            value = part[ph];
            skip = strlen(PLACEHOLDERS[ph]);
        }
        if (value) {
            at += (size_t)snprintf(out + at, PATH_BYTES - at, "%s", value);
            p += skip;
        } else {
            out[at++] = *p++;
        }
    }
    if (at >= PATH_BYTES)
        return sp_fail(ei, SP_EINVAL, "%s %s: the path for %s is too long", k->option, pattern, input);
    out[at] = 0;
    return SP_OK;
}

/* The directory part of a pattern that no placeholder changes ("o2" of "o2/{stem}.csv",
 * "out" of "out/{dir}/{stem}.npy"), into dir; 0 when it has none ("{dir}/x.npy", "x.npy"). */
static int fixed_dir(const char *path, char *dir, size_t len)
{
    const char *brace = strchr(path, '{'), *slash = NULL;
    for (const char *p = path; *p && (!brace || p < brace); p++)
        if (*p == '/')
            slash = p;
    if (!slash)
        return 0;
    snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return 1;
}

/* Every '{' starts a placeholder we know; a directory given as DIR/, and the part of a
 * pattern before its first placeholder, exist (otherwise every file would fail on it);
 * several inputs need a pattern or a directory. What a placeholder makes is checked per
 * file before it is analysed (sink_requests_check_paths). */
static int check_output(const sink_kind *k, const char *path, int several, sp_errinfo *ei)
{
    struct stat st;
    char dir[PATH_BYTES];
    size_t len = strlen(path);
    for (const char *p = strchr(path, '{'); p; p = strchr(p + 1, '{'))
        if (placeholder_at(p) < 0)
            return unknown_placeholder(k, path, p, ei);
    if (several && !has_pattern(path))
        return sp_fail(ei, SP_EINVAL,
                       "%s %s: several inputs need a pattern ({stem}, {name}, {dir}) or a directory (DIR/)",
                       k->option, path);
    if (len > 0 && path[len - 1] == '/' && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
        return sp_fail(ei, SP_EINVAL, "%s %s: no such directory", k->option, path);
    if (has_placeholder(path) && fixed_dir(path, dir, sizeof dir) && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return sp_fail(ei, SP_EINVAL, "%s %s: no such directory: %s", k->option, path, dir);
    return SP_OK;
}

int batch_expand_single(job *o, sp_errinfo *ei)
{
    static char paths[ANALYZE_MAX_OUTPUTS][PATH_BYTES];
    int err;
    for (int j = 0; j < o->an.n_outputs; j++) {
        sink_request *q = &o->an.outputs[j];
        const sink_kind *k = sink_kind_find(q->kind);
        size_t len = q->path ? strlen(q->path) : 0;
        if (len == 0 || strcmp(q->path, "-") == 0)
            continue;
        /* one file: only DIR/ is a directory; an existing one named without the slash is
         * refused as before (the dump's check, which --dump deferred for directories) */
        if (!has_placeholder(q->path) && q->path[len - 1] != '/') {
            if (k->check_path && (err = k->check_path(q->path, ei)) != SP_OK)
                return err;
            continue;
        }
        if ((err = check_output(k, q->path, 0, ei)) != SP_OK ||
            (err = expand(k, q->path, o->an.input, paths[j], ei)) != SP_OK)
            return err;
        q->path = paths[j];
    }
    return SP_OK;
}

/* ---- the list --------------------------------------------------------------------------- */

static int list_add(input_list *l, const char *path, sp_errinfo *ei)
{
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        const char **p = realloc(l->path, (size_t)cap * sizeof *p);
        if (!p)
            return sp_fail(ei, SP_ENOMEM, "out of memory for the input list");
        l->path = p;
        l->cap = cap;
    }
    l->path[l->count++] = path;
    return SP_OK;
}

/* Keeps one entry of the list: own[] holds the copy that path[] points to. */
static int list_keep(input_list *l, const char *text, size_t len, sp_errinfo *ei)
{
    char **own = realloc(l->own, (size_t)(l->n_own + 1) * sizeof *own), *copy = NULL;
    if (own)
        l->own = own;
    if (!own || !(copy = malloc(len + 1)))
        return sp_fail(ei, SP_ENOMEM, "out of memory for the input list");
    memcpy(copy, text, len);
    copy[len] = '\0';
    l->own[l->n_own++] = copy;
    return list_add(l, copy, ei);
}

/* A line of a newline-separated list: its end (\n, \r\n) is not part of it; a blank line,
 * or one whose first non-blank character is '#', is skipped (a path that starts with '#'
 * is written ./#name). */
static int list_line(input_list *l, const char *line, size_t len, sp_errinfo *ei)
{
    size_t lead = 0;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    while (lead < len && (line[lead] == ' ' || line[lead] == '\t'))
        lead++;
    if (lead == len || line[lead] == '#')
        return SP_OK;
    return list_keep(l, line, len, ei);
}

/* The list's whole text, then its entries. A list that holds a NUL byte is NUL-separated
 * (find -print0): each name is taken as it is, only empty ones skipped, since such a list
 * exists for names with newlines, '#' or blanks in them. Any other is one path a line. */
static int list_read(input_list *l, const char *from, sp_errinfo *ei)
{
    FILE *f = strcmp(from, "-") == 0 ? stdin : fopen(from, "r");
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    int err = SP_OK, nul;
    if (!f)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("files_from") " %s: cannot read: %s", from, strerror(errno));
    do {
        if (len == cap) {
            char *t = realloc(text, (cap = cap ? 2 * cap : 65536));
            if (!t) {
                err = sp_fail(ei, SP_ENOMEM, "out of memory for the input list");
                break;
            }
            text = t;
        }
        len += n = fread(text + len, 1, cap - len, f);
    } while (n > 0);
    if (err == SP_OK && ferror(f))
        err = sp_fail(ei, SP_EINVAL, SP_FIELD("files_from") " %s: cannot read: %s", from, strerror(errno));
    nul = len > 0 && memchr(text, '\0', len) != NULL;
    for (size_t at = 0, end; err == SP_OK && at < len; at = end + 1) {
        const char *sep = memchr(text + at, nul ? '\0' : '\n', len - at);
        end = sep ? (size_t)(sep - text) : len;
        if (nul)
            err = end > at ? list_keep(l, text + at, end - at, ei) : SP_OK;
        else
            err = list_line(l, text + at, end - at, ei);
    }
    free(text);
    if (f != stdin)
        fclose(f);
    return err;
}

static int list_build(const job *o, input_list *l, sp_errinfo *ei)
{
    int err;
    for (int i = 0; i < o->n_inputs; i++)
        if ((err = list_add(l, o->inputs[i], ei)) != SP_OK)
            return err;
    if (o->files_from && (err = list_read(l, o->files_from, ei)) != SP_OK)
        return err;
    if (l->count == 0)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("files_from") " %s: lists no input", o->files_from ? o->files_from : "");
    if (o->files_from && strcmp(o->files_from, "-") == 0)
        for (int i = 0; i < l->count; i++)
            if (strcmp(l->path[i], "-") == 0)
                return sp_fail(ei, SP_EINVAL, "-: standard input holds the list (" SP_FIELD("files_from") " -), not "
                                              "audio");
    return SP_OK;
}

static void list_free(input_list *l)
{
    for (int i = 0; i < l->n_own; i++)
        free(l->own[i]);
    free(l->own);
    free(l->path);
}

/* ---- collisions: no two outputs (or sidecars) the same file, no output an input ------------ */

typedef struct {
    char *path;  /* normalised: no "//", no "./" */
    int input;   /* list index */
    int output;  /* index in the config's outputs; -1: the input itself */
    int sidecar; /* the dump's OUT.json */
} claim;

static char *normalise(const char *path)
{
    size_t len = strlen(path);
    char *s = malloc(len + 1), *w = s;
    const char *p = path;
    if (!s)
        return NULL;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    for (; *p; p++) {
        if (*p == '/' && w > s && w[-1] == '/')
            continue;
        if (*p == '/' && p[1] == '.' && p[2] == '/') {
            p++;
            continue;
        }
        *w++ = *p;
    }
    *w = 0;
    return s;
}

static int claim_cmp(const void *a, const void *b)
{
    const claim *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : x->output - y->output; /* an input's own claim (-1) first */
}

/* "--dump out/{stem}.npy: a/x.wav and b/x.wav both map to out/x.npy" and its kin. */
static int collision(const job *o, const input_list *l, const claim *a, const claim *b, sp_errinfo *ei)
{
    const sink_request *qb = &o->an.outputs[b->output];
    const char *ob = sink_kind_find(qb->kind)->option;
    if (a->output < 0)
        return sp_fail(ei, SP_EINVAL, "%s %s: for %s it would write %s, which is an input", ob, qb->path,
                       l->path[b->input], a->path);
    if (a->output == b->output && a->sidecar == b->sidecar)
        return sp_fail(ei, SP_EINVAL, "%s %s: %s and %s both map to %s", ob, qb->path, l->path[a->input],
                       l->path[b->input], a->path);
    return sp_fail(ei, SP_EINVAL, "%s %s: %s for %s, which %s%s also writes (for %s)", ob, qb->path, b->path,
                   l->path[b->input], sink_kind_find(o->an.outputs[a->output].kind)->option,
                   a->sidecar ? " (its .json)" : "", l->path[a->input]);
}

/* Sorted claims: equal neighbours are a clash, unless both are inputs (the same file
 * listed twice is analysed twice). */
static int check_collisions(const job *o, const input_list *l, char **paths, sp_errinfo *ei)
{
    int nout = o->an.n_outputs, n = 0, err = SP_OK;
    claim *c = calloc((size_t)l->count * (size_t)(1 + 2 * nout), sizeof *c);
    if (!c)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    for (int i = 0; i < l->count; i++) {
        c[n++] = (claim){normalise(l->path[i]), i, -1, 0};
        for (int j = 0; j < nout; j++) {
            const char *p = paths[(size_t)i * (size_t)nout + (size_t)j];
            if (!p)
                continue;
            c[n++] = (claim){normalise(p), i, j, 0};
            if (sink_kind_find(o->an.outputs[j].kind)->sidecar) {
                char *side = NULL;
                int err_side = dump_sidecar_for(p, &side);
                if (err_side != SP_OK || side) /* out of memory: a NULL claim, reported below */
                    c[n++] = (claim){side ? normalise(side) : NULL, i, j, 1};
                free(side);
            }
        }
    }
    for (int i = 0; i < n && err == SP_OK; i++)
        if (!c[i].path)
            err = sp_fail(ei, SP_ENOMEM, "out of memory");
    if (err == SP_OK)
        qsort(c, (size_t)n, sizeof *c, claim_cmp);
    for (int i = 1; i < n && err == SP_OK; i++)
        if (strcmp(c[i - 1].path, c[i].path) == 0 && c[i].output >= 0)
            err = collision(o, l, &c[i - 1], &c[i], ei);
    for (int i = 0; i < n; i++)
        free(c[i].path);
    free(c);
    return err;
}

/* paths[i * nout + j]: input i's output j, expanded (NULL: an output without a path, or
 * standard output). */
static int outputs_build(const job *o, const input_list *l, char ***out, sp_errinfo *ei)
{
    int nout = o->an.n_outputs, err;
    char **paths = calloc((size_t)l->count * (size_t)(nout ? nout : 1), sizeof *paths);
    *out = paths;
    if (!paths)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    if ((err = sink_requests_check_stdout(o->an.outputs, nout, ei)) != SP_OK)
        return err;
    for (int j = 0; j < nout; j++) {
        const sink_request *q = &o->an.outputs[j];
        if (q->path && (err = check_output(sink_kind_find(q->kind), q->path, l->count > 1, ei)) != SP_OK)
            return err;
    }
    for (int i = 0; i < l->count; i++)
        for (int j = 0; j < nout; j++) {
            const sink_request *q = &o->an.outputs[j];
            char buf[PATH_BYTES];
            if (!q->path || strcmp(q->path, "-") == 0)
                continue;
            if ((err = expand(sink_kind_find(q->kind), q->path, l->path[i], buf, ei)) != SP_OK)
                return err;
            if (!(paths[(size_t)i * (size_t)nout + (size_t)j] = strdup(buf)))
                return sp_fail(ei, SP_ENOMEM, "out of memory");
        }
    return check_collisions(o, l, paths, ei);
}

/* ---- the run -------------------------------------------------------------------------------- */

typedef struct {
    int files, done, failed;
    int noted;              /* the cpu fallback's note was printed */
    int out_lost;           /* standard output failed: 1 its reader left, 2 a write failed */
    double audio_s, plan_s, fft_s, sink_s, wait_s;
    char backend[16];
} tally;

/* The errors that end the batch: the machine's, not the file's (and a signal). */
static int ends_batch(int err)
{
    return err == SP_EINTERRUPTED || err == SP_EGPU || err == SP_ENODEV || err == SP_EUNSUPPORTED;
}

/* What main says after a run of one file, for one file of several. */
static void report_file(const job *o, const analyze_result *res, tally *t)
{
    t->done++;
    t->audio_s += res->info.rate > 0 ? (double)res->samples / res->info.rate : 0.0;
    t->plan_s += res->plan_s;
    t->fft_s += res->fft_s;
    t->sink_s += res->sink_s;
    t->wait_s += res->wait_s;
    snprintf(t->backend, sizeof t->backend, "%s", res->backend);
    if (!o->quiet) {
        job_report_fallback(o, res, o->verbose, &t->noted);
        job_report_warnings(o, res);
    }
    if (o->verbose)
        job_say(o, JOB_SAY_INFO, "%s: %s, %d Hz, %d channel%s; %llu frames in %.3f s (%.1fx real time)",
                res->info.name, res->info.format, res->info.rate, res->info.channels,
                res->info.channels == 1 ? "" : "s", (unsigned long long)res->frames, res->seconds,
                res->seconds > 0 ? (double)res->samples / res->info.rate / res->seconds : 0.0);
    if (o->verbose)
        job_report_clipped(o, res);
}

/* One line naming the file (the message names it, or it goes first); a stop is "interrupted",
 * whatever the stop broke on its way (main's fail_run says the same). */
static void report_failure(const job *o, const char *input, int err, const sp_errinfo *ei)
{
    const char *msg = err == SP_EINTERRUPTED ? sp_strerror(err) : job_message(err, ei);
    if (strstr(msg, input))
        job_say(o, JOB_SAY_ERROR, "%s", msg);
    else
        job_say(o, JOB_SAY_ERROR, "%s: %s", input, msg);
}

/* A file failed, and standard output has failed (a write to it: its reader gone, a full
 * disk): the files after it would fail the same way, so the batch ends there, as the run of
 * one file does: quietly when the reader has gone (`| head`), else with the file's one
 * line. Only run_share meets it: a batch that writes there runs one file at a time. */
static int stdout_lost(const job *o, const char *input, int err, const sp_errinfo *ei, tally *t)
{
    if (!o->run.out || !ferror(o->run.out))
        return 0;
    t->out_lost = job_reader_gone(o->run.out) ? 1 : 2;
    if (t->out_lost == 2)
        report_failure(o, input, err, ei);
    return 1;
}

/* The outputs of input i, for the session. */
static void requests_of(const job *o, char **paths, int i, sink_request *req)
{
    int nout = o->an.n_outputs;
    for (int j = 0; j < nout; j++) {
        const char *p = paths[(size_t)i * (size_t)nout + (size_t)j];
        req[j] = o->an.outputs[j];
        if (p)
            req[j].path = p;
    }
}

/* The share of the list: inputs i with i % N == K, run one after another in one session;
 * the return is the first error that ended the batch, else SP_OK. */
static int run_share(const job *o, const input_list *l, char **paths, tally *t, progress *pg)
{
    analyze_config cfg = o->an;
    analyze_context ctx = o->run;
    analyze_session *s = NULL;
    int step = o->shard_n > 0 ? o->shard_n : 1, first = o->shard_n > 0 ? o->shard_k : 0, err;
    sp_errinfo ei = {{0}};
    cfg.input = NULL;
    ctx.label_inputs = 1;
    if ((err = analyze_session_create(&cfg, &ctx, &s, &ei)) != SP_OK) {
        job_say(o, JOB_SAY_ERROR, "%s", job_message(err, &ei));
        return err;
    }
    analyze_session_set_progress(s, pg);
    for (int i = first; i < l->count; i += step) {
        sink_request req[ANALYZE_MAX_OUTPUTS];
        analyze_result res;
        requests_of(o, paths, i, req);
        analyze_session_next(s, i + step < l->count ? l->path[i + step] : NULL);
        ei.msg[0] = 0;
        err = analyze_session_run(s, l->path[i], req, o->an.n_outputs, &res, &ei);
        if (err != SP_OK && job_stop_asked(&o->run))
            err = SP_EINTERRUPTED;
        sp_stderr_lock(); /* the next file may be opening on the read-ahead's thread */
        progress_clear(pg);
        if (err == SP_OK)
            report_file(o, &res, t);
        else if (!stdout_lost(o, l->path[i], err, &ei, t)) {
            t->failed++;
            report_failure(o, l->path[i], err, &ei);
        }
        sp_stderr_unlock();
        if (err == SP_OK)
            continue;
        if (ends_batch(err))
            break;
        err = SP_OK;
        if (t->out_lost)
            break;
    }
    analyze_session_destroy(s);
    return err;
}

/* ---- the share on several sessions at once (the cpu backend) ------------------------------ */

/* A file of the share: its run's outcome, once done. */
typedef struct {
    int done, err;
    analyze_result res;
    sp_errinfo ei;
} file_slot;

typedef struct {
    const job *o;
    const input_list *l;
    char **paths;
    analyze_config cfg;     /* the sessions' config: the cpu threads shared out */
    analyze_context ctx;    /* and how they run: no bar of their own */
    int first, step, count; /* the share: list index first + k*step for k < count */
    int next;               /* the next k a session takes */
    int stop;               /* an error ended the batch: no file is started after it */
    int running;            /* sessions still taking files */
    int create_err;         /* the first session that could not be made says why */
    sp_errinfo create_ei;
    file_slot *slot;        /* count of them */
    pthread_t th[PAR_FILES_MAX];
    int started;            /* th[0 .. started-1] run share_worker */
    progress_tap tap[PAR_FILES_MAX]; /* each session's count, for the bar (progress_watch) */
    int taps;               /* sessions given a tap so far */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} par_share;

/* The sessions a share may run at once: one a core (PAR_FILES_MAX at most), no more than
 * its files; 1 when an output goes to standard output (its files' lines stay in order). */
static int share_width(const job *o, int files)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int w = cpus < 1 ? 1 : cpus > PAR_FILES_MAX ? PAR_FILES_MAX : (int)cpus;
    for (int j = 0; j < o->an.n_outputs; j++) {
        const sink_kind *k = sink_kind_find(o->an.outputs[j].kind);
        if (!k || k->writes_stdout(o->an.outputs[j].path))
            return 1;
    }
    return w < files ? w : files < 1 ? 1 : files;
}

/* Bytes the outputs write for `frames` frames: the spectra of those that write them all. */
static uint64_t share_written(const job *o, size_t bins, uint64_t frames)
{
    uint64_t bytes = 0;
    for (int j = 0; j < o->an.n_outputs; j++) {
        const sink_kind *k = sink_kind_find(o->an.outputs[j].kind);
        dump_format fmt;
        if (k && k->writes_spectra && dump_format_from_path(o->an.outputs[j].path, &fmt, NULL) == SP_OK)
            bytes += dump_bytes(fmt, bins, frames);
    }
    return bytes;
}

/* --backend auto over a share: the share weighed as one job (fft_config_choose), its frames
 * from the files' sizes read as 16-bit mono (fewer than a compressed file holds: the
 * estimate leans to the cpu), the cpu on `width` threads (sessions at once), the GPU's start
 * paid once; the host's decoding (the files' bytes) and writing (the spectra a dump writes)
 * shared by the cpu's sessions, done by the GPU's one session alone. */
static fft_choice share_auto(const job *o, const input_list *l, int width)
{
    fft_config fc = fft_config_default();
    fft_choice c;
    uint64_t frames = 0, read = 0;
    int first = o->shard_n > 0 ? o->shard_k : 0, step = o->shard_n > 0 ? o->shard_n : 1;
    fc.backend = FFT_BACKEND_AUTO;
    fc.n = o->an.n;
    fc.hop = o->an.hop ? o->an.hop : fft_default_hop(o->an.n);
    fc.max_batch = 8192;
    fc.tuning = o->an.fft_tuning;
    if (fc.tuning.cpu_threads <= 0)
        fc.tuning.cpu_threads = width;
    for (int i = first; i < l->count; i += step) {
        struct stat st;
        uint64_t samples = stat(l->path[i], &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size / 2 : 0;
        frames += samples < fc.n ? 1 : (samples - fc.n) / fc.hop + 1;
        read += samples * 2;
    }
    fc.job.n = fc.n;
    fc.job.hop = fc.hop;
    fc.job.channels = 1;
    fc.job.frames = frames;
    fc.job.rate = 48000;
    fc.job.host_bytes = read + share_written(o, fc.n / 2 + 1, frames);
    fc.job.host_width = width;
    if (fft_config_choose(&fc, &c) != SP_OK)
        memset(&c, 0, sizeof c);
    return c;
}

/* How the share runs: how many sessions at once, and on which backend (cfg's, which the
 * caller copies from o->an). Several sessions only on the cpu backend, where a small file
 * keeps few of the FFT threads busy: named, or auto's choice for the whole share (-v says
 * it); a GPU backend keeps one session (one CUDA start, the next file read ahead), and under
 * auto its start counts once for the share, not for each file. */
static int share_plan(const job *o, const input_list *l, int files, analyze_config *cfg)
{
    int width = share_width(o, files);
    fft_choice c;
    char line[320];
    if (o->an.backend == FFT_BACKEND_CPU)
        return width;
    if (o->an.backend != FFT_BACKEND_AUTO || width < 2)
        return 1;
    c = share_auto(o, l, width);
    if (o->verbose && c.made) {
        fft_choice_format(&c, line, sizeof line);
        job_say(o, JOB_SAY_INFO, "backend for the %d files: %s", files, line);
    }
    if (c.made && c.kind == FFT_BACKEND_CPU) {
        cfg->backend = FFT_BACKEND_CPU;
        return width;
    }
    cfg->fft_tuning.auto_gpu_start = 1e-9; /* paid once for the share: each file weighs its work alone */
    return 1;
}

/* A session's thread: takes the share's next file until none is left or the batch ends. */
static void *share_worker(void *arg)
{
    par_share *ps = arg;
    analyze_session *s = NULL;
    progress pg; /* draws nothing: its count goes to the batch's bar through a tap */
    sp_errinfo ei = {{0}};
    int err = analyze_session_create(&ps->cfg, &ps->ctx, &s, &ei);
    progress_begin_files(&pg, NULL, 0, 1);
    pthread_mutex_lock(&ps->mu);
    progress_publish_to(&pg, &ps->tap[ps->taps++]);
    analyze_session_set_progress(s, &pg);
    if (err != SP_OK && ps->create_err == SP_OK) {
        ps->create_err = err;
        ps->create_ei = ei;
    }
    while (err == SP_OK && !ps->stop && ps->next < ps->count) {
        int k = ps->next++, i = ps->first + k * ps->step;
        file_slot *fs = &ps->slot[k];
        sink_request req[ANALYZE_MAX_OUTPUTS];
        pthread_mutex_unlock(&ps->mu);
        requests_of(ps->o, ps->paths, i, req);
        fs->err = analyze_session_run(s, ps->l->path[i], req, ps->o->an.n_outputs, &fs->res, &fs->ei);
        if (fs->err != SP_OK && job_stop_asked(&ps->ctx))
            fs->err = SP_EINTERRUPTED;
        pthread_mutex_lock(&ps->mu);
        fs->done = 1;
        ps->stop |= ends_batch(fs->err);
        pthread_cond_broadcast(&ps->cv);
    }
    ps->running--;
    pthread_cond_broadcast(&ps->cv);
    pthread_mutex_unlock(&ps->mu);
    analyze_session_destroy(s);
    return NULL;
}

/* A signal breaks a blocking call (the open of a FIFO that waits for its reader) only in the
 * thread it reaches, this one: the stop signal (the flag holds its number) is passed on to
 * the sessions' threads, at every tick, for one that was not blocked yet when it came. */
static void share_forward_stop(const par_share *ps)
{
    int sig = ps->ctx.stop ? atomic_load(ps->ctx.stop) : 0;
    if (sig != SIGINT && sig != SIGTERM)
        return;
    for (int w = 0; w < ps->started; w++)
        pthread_kill(ps->th[w], sig);
}

/* A tick of the waits below: up to 0.1 s on ps->cv (ps->mu held), then the stop passed on. */
static void share_tick(par_share *ps)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&ps->cv, &ps->mu, &until);
    share_forward_stop(ps);
}

/* Waits until file k of the share is done (1), or will never be (0: not started, and the
 * batch ended or no session is left); the bar's clock keeps moving meanwhile. */
static int share_wait(par_share *ps, int k, progress *pg)
{
    int done;
    pthread_mutex_lock(&ps->mu);
    while (!ps->slot[k].done && (k < ps->next || (!ps->stop && ps->running > 0))) {
        share_tick(ps);
        pthread_mutex_unlock(&ps->mu);
        sp_stderr_lock();
        progress_update(pg, 0);
        sp_stderr_unlock();
        pthread_mutex_lock(&ps->mu);
    }
    done = ps->slot[k].done;
    pthread_mutex_unlock(&ps->mu);
    return done;
}

/* The share on `workers` sessions at once: every message and the bar as run_share gives
 * them, in the list's order (each file reported when it and those before it are done). */
static int run_share_parallel(const job *o, const input_list *l, char **paths, tally *t, progress *pg,
                              int workers, int count)
{
    par_share ps;
    int err = SP_OK, k;
    memset(&ps, 0, sizeof ps);
    if (!(ps.slot = calloc((size_t)count, sizeof *ps.slot))) {
        job_say(o, JOB_SAY_ERROR, "out of memory for a batch of %d files", count);
        return SP_ENOMEM;
    }
    ps.o = o;
    ps.l = l;
    ps.paths = paths;
    ps.cfg = o->an;
    ps.cfg.input = NULL;
    ps.ctx = o->run;
    ps.ctx.label_inputs = 1;
    ps.ctx.progress = 0; /* the bar is this thread's, per file */
    if (ps.cfg.fft_tuning.cpu_threads <= 0) { /* the default threads shared out */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        ps.cfg.fft_tuning.cpu_threads = cpus > workers ? (int)(cpus / workers) : 1;
    }
    ps.first = o->shard_n > 0 ? o->shard_k : 0;
    ps.step = o->shard_n > 0 ? o->shard_n : 1;
    ps.count = count;
    pthread_mutex_init(&ps.mu, NULL);
    pthread_cond_init(&ps.cv, NULL);
    progress_watch(pg, ps.tap, workers); /* the sessions count their files as they go */
    pthread_mutex_lock(&ps.mu);
    for (; ps.started < workers; ps.started++) {
        ps.running++;
        if (pthread_create(&ps.th[ps.started], NULL, share_worker, &ps) != 0) {
            ps.running--;
            break;
        }
    }
    pthread_mutex_unlock(&ps.mu);
    for (k = 0; ps.started > 0 && k < count; k++) {
        file_slot *fs = &ps.slot[k];
        if (!share_wait(&ps, k, pg))
            break;
        sp_stderr_lock(); /* the other sessions open their files meanwhile */
        progress_clear(pg);
        if (fs->err == SP_OK)
            report_file(o, &fs->res, t);
        else {
            t->failed++;
            report_failure(o, l->path[ps.first + k * ps.step], fs->err, &fs->ei);
        }
        sp_stderr_unlock();
        if (fs->err == SP_OK)
            continue;
        if (ends_batch(fs->err)) {
            err = fs->err;
            break;
        }
    }
    pthread_mutex_lock(&ps.mu);
    ps.stop = 1;
    while (ps.running > 0) /* a session that waits for a FIFO's reader hears of a signal */
        share_tick(&ps);
    pthread_mutex_unlock(&ps.mu);
    for (int w = 0; w < ps.started; w++)
        pthread_join(ps.th[w], NULL);
    if (err == SP_OK && k < count) { /* no session could be made, or all of them failed */
        err = ps.started ? ps.create_err : SP_ENOMEM;
        job_say(o, JOB_SAY_ERROR, "%s", !ps.started ? "cannot start the batch's threads"
                                       : job_message(err, &ps.create_ei));
    }
    pthread_cond_destroy(&ps.cv);
    pthread_mutex_destroy(&ps.mu);
    free(ps.slot);
    return err;
}

int job_batch_run(job *o, sp_errinfo *ei_out)
{
    input_list l;
    char **paths = NULL;
    tally t;
    progress pg;
    int err, rc, workers = 1;
    double t0 = sp_now();
    memset(&l, 0, sizeof l);
    memset(&t, 0, sizeof t);
    if ((err = list_build(o, &l, ei_out)) != SP_OK || (err = outputs_build(o, &l, &paths, ei_out)) != SP_OK) {
        rc = err; /* before any work: the caller says it */
        goto done;
    }
    for (int i = o->shard_n > 0 ? o->shard_k : 0; i < l.count; i += o->shard_n > 0 ? o->shard_n : 1)
        t.files++;
    progress_begin_files(&pg, stderr, o->run.progress, t.files);
    {
        job share = *o; /* the share's backend and tuning (share_plan) */
        workers = share_plan(o, &l, t.files, &share.an);
        err = workers > 1 ? run_share_parallel(&share, &l, paths, &t, &pg, workers, t.files)
                          : run_share(&share, &l, paths, &t, &pg);
    }
    progress_end(&pg);
    /* a standard output that failed ended the batch with one line at most (stdout_lost) */
    if (t.failed || err != SP_OK)
        job_say(o, JOB_SAY_ERROR, "%d of %d files failed%s", t.failed, t.files,
                t.done + t.failed + (t.out_lost != 0) < t.files ? "; the rest were not analysed" : "");
    if (o->verbose)
        job_say(o, JOB_SAY_INFO,
                "%d files, %.1f s of audio in %.3f s (%d at a time); time: %.3f s making the %s plan, "
                "%.3f s in FFT calls, %.3f s in output, %.3f s waiting for input",
                t.done, t.audio_s, sp_now() - t0, workers, t.plan_s, t.backend[0] ? t.backend : "(no)", t.fft_s,
                t.sink_s, t.wait_s);
    /* what ended it was said (ei_out stays empty) */
    rc = err != SP_OK ? err : t.failed || t.out_lost == 2 ? SP_EIO : SP_OK;
done:
    if (paths)
        for (size_t i = 0; i < (size_t)l.count * (size_t)(o->an.n_outputs ? o->an.n_outputs : 1); i++)
            free(paths[i]);
    free(paths);
    list_free(&l);
    return rc;
}
