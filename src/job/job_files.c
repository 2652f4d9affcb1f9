#define _XOPEN_SOURCE 700 /* realpath */
#include "job_files.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "sink_table.h"

/* The input, then per output its file and, for a dump, its sidecar. */
#define CHECK_MAX (1 + 2 * ANALYZE_MAX_OUTPUTS)

typedef struct {
    char label[PATH_MAX + 96]; /* SP_FIELD("png") " x.png", "the input rec.wav" */
    int input;
    int exists;
    dev_t dev;
    ino_t ino;
    nlink_t nlink;
    char norm[PATH_MAX];       /* its real path when it exists; the name it will have when not */
} named_file;

/* "/a/./b/../c" -> "/a/c", in place; `p` is absolute. */
static void collapse(char *p)
{
    char *out = p, *seg = p;
    while (*seg) {
        char *end;
        size_t len;
        while (*seg == '/')
            seg++;
        end = strchr(seg, '/');
        len = end ? (size_t)(end - seg) : strlen(seg);
        if (len == 0)
            break;
        if (len == 1 && seg[0] == '.') {
            /* nothing */
        } else if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            while (out > p && *--out != '/')
                ;
        } else {
            *out++ = '/';
            memmove(out, seg, len);
            out += len;
        }
        seg += len;
    }
    if (out == p)
        *out++ = '/';
    *out = 0;
}

/* The absolute name a file that does not exist yet will have: its directory's real path
 * (lexical where that does not exist either) and its last component. */
static void normalise(const char *path, char *out, size_t len)
{
    char *target = outfile_target(path), *slash, *dir_real = NULL, *cwd = NULL;
    const char *p = target ? target : path;
    slash = strrchr(p, '/');
    if (slash) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", slash == p ? 1 : (int)(slash - p), p);
        dir_real = realpath(dir, NULL);
    } else {
        dir_real = realpath(".", NULL);
    }
    if (dir_real)
        snprintf(out, len, "%s/%s", dir_real, slash ? slash + 1 : p);
    else if (p[0] == '/' || !(cwd = getcwd(NULL, 0)))
        snprintf(out, len, "%s", p);
    else
        snprintf(out, len, "%s/%s", cwd, p);
    collapse(out);
    free(cwd);
    free(dir_real);
    free(target);
}

/* Fills f for `path`; 0 when it is one to compare (not a character device). */
static int describe(named_file *f, const char *path)
{
    struct stat st;
    f->exists = stat(path, &st) == 0;
    if (f->exists) {
        char *real = realpath(path, NULL);
        if (S_ISCHR(st.st_mode)) {
            free(real);
            return -1;
        }
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        f->nlink = st.st_nlink;
        snprintf(f->norm, sizeof f->norm, "%s", real ? real : path);
        free(real);
    } else {
        normalise(path, f->norm, sizeof f->norm);
    }
    return 0;
}

/* Two existing files are one when their device and inode are, and they are hard links (more
 * than one name) or one real path (symlinks): an inode number that another process freed and
 * reused between the two stats (runs replacing one output at once) is not one file. */
static int same_file(const named_file *a, const named_file *b)
{
    if (a->exists != b->exists)
        return 0;
    if (!a->exists)
        return strcmp(a->norm, b->norm) == 0;
    return a->dev == b->dev && a->ino == b->ino && (a->nlink > 1 || strcmp(a->norm, b->norm) == 0);
}

/* The outputs' files: each with a path, and a dump's sidecar where it gets one
 * (dump_sidecar_for). Returns the count added at f. */
static int output_files(const analyze_config *an, named_file *f)
{
    int n = 0;
    for (int i = 0; i < an->n_outputs; i++) {
        const sink_request *q = &an->outputs[i];
        const sink_kind *k = sink_kind_find(q->kind);
        const char *opt = k ? k->option : q->kind;
        if (!q->path || strcmp(q->path, "-") == 0)
            continue;
        snprintf(f[n].label, sizeof f[n].label, "%s %s", opt, q->path);
        if (describe(&f[n], q->path) == 0)
            n++;
        if (k && k->sidecar) {
            char *side = NULL;
            if (dump_sidecar_for(q->path, &side) != SP_OK || !side)
                continue;
            snprintf(f[n].label, sizeof f[n].label, "the metadata of %s %s (%s)", opt, q->path, side);
            if (describe(&f[n], side) == 0)
                n++;
            free(side);
        }
    }
    return n;
}

int job_check_files(const analyze_config *an, sp_errinfo *ei)
{
    named_file *f = calloc(CHECK_MAX, sizeof *f);
    int n = 0, err = SP_OK;
    if (!f)
        return sp_fail(ei, SP_ENOMEM, "out of memory");
    /* a named input that exists; "-" (stdin), synth: and the microphone are no files */
    if (an->input && strcmp(an->input, "-") != 0 && describe(&f[0], an->input) == 0 && f[0].exists) {
        snprintf(f[0].label, sizeof f[0].label, "the input %s", an->input);
        f[0].input = 1;
        n = 1;
    }
    n += output_files(an, f + n);
    for (int i = 0; i < n && err == SP_OK; i++)
        for (int j = i + 1; j < n && err == SP_OK; j++) {
            if (!same_file(&f[i], &f[j]))
                continue;
            if (f[i].input)
                err = sp_fail(ei, SP_EINVAL, "%s would overwrite %s", f[j].label, f[i].label);
            else
                err = sp_fail(ei, SP_EINVAL, "%s and %s name the same file", f[i].label, f[j].label);
        }
    free(f);
    return err;
}
