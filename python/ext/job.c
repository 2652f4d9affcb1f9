/* run(): spectro_job, the program's run, from Python: settings by name, inputs, the lines the
 * run says gathered and handed back (no Python is called while the job runs without the GIL). */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text; /* "LEVEL\tline\n"..., grown as lines come */
    size_t len, cap;
    int failed; /* out of memory for a line */
} lines;

static void gather(void *user, int level, const char *line)
{
    lines *l = user;
    size_t need = strlen(line) + 4;
    if (l->failed)
        return;
    if (l->len + need + 1 > l->cap) {
        size_t cap = (l->cap ? l->cap * 2 : 1024) + need;
        char *grown = realloc(l->text, cap);
        if (!grown) {
            l->failed = 1;
            return;
        }
        l->text = grown;
        l->cap = cap;
    }
    l->len += (size_t)snprintf(l->text + l->len, l->cap - l->len, "%d\t%s\n", level, line);
}

/* [(level, line), ...] of what was gathered. */
static PyObject *lines_list(const lines *l)
{
    PyObject *out = PyList_New(0);
    const char *p = l->text;
    while (out && p && *p) {
        const char *tab = strchr(p, '\t'), *nl = tab ? strchr(tab, '\n') : NULL;
        PyObject *item;
        if (!tab || !nl)
            break;
        item = Py_BuildValue("(is#)", atoi(p), tab + 1, (Py_ssize_t)(nl - tab - 1));
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
        p = nl + 1;
    }
    return out;
}

/* The frames callback's side (spectro_job_set_frames): on the job's thread, with the GIL
 * taken for the call. fn gets (rows: bytes of count x bins x depth float32, channel, first,
 * count, info: dict, freqs_hz as bytes of float64); False from it stops the run, an exception
 * too (kept, and raised by run once the job has ended). */
typedef struct {
    PyObject *fn;
    PyObject *exc[3]; /* the first exception fn raised (3.12 on: exc[0] alone) */
    int kept;         /* one is kept */
    int stopped;      /* fn asked the run to stop */
} py_frames;

/* The exception being raised into p (the first only), cleared; and raised again. */
static void exc_keep(py_frames *p)
{
    if (p->kept) {
        PyErr_Clear();
        return;
    }
#if PY_VERSION_HEX >= 0x030C0000
    p->exc[0] = PyErr_GetRaisedException();
#else
    PyErr_Fetch(&p->exc[0], &p->exc[1], &p->exc[2]);
#endif
    p->kept = 1;
}

static void exc_raise(py_frames *p)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(p->exc[0]);
#else
    PyErr_Restore(p->exc[0], p->exc[1], p->exc[2]);
#endif
    p->kept = 0;
}

static PyObject *frames_info(const spectro_frames_info *in)
{
    return Py_BuildValue("{s:s,s:i,s:i,s:n,s:n,s:n,s:n,s:z,s:y#,s:z,s:d,s:d,s:O}", "source", in->source,
                         "sample_rate", in->sample_rate, "channels", in->channels, "fft_size", (Py_ssize_t)in->fft_size,
                         "hop", (Py_ssize_t)in->hop, "bins", (Py_ssize_t)in->bins, "depth", (Py_ssize_t)in->depth,
                         "transform", in->transform, "freqs_hz", (const char *)in->freqs_hz,
                         (Py_ssize_t)(in->bins * sizeof *in->freqs_hz), "unit", in->unit, "time_first_s",
                         in->time_first_s, "time_step_s", in->time_step_s, "live", in->live ? Py_True : Py_False);
}

static int call_frames(void *user, const spectro_frames_info *in, int channel, uint64_t first, size_t count,
                       const float *rows)
{
    py_frames *p = user;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *info = frames_info(in), *r = NULL;
    if (info)
        r = PyObject_CallFunction(p->fn, "y#iKnO", (const char *)rows,
                                  (Py_ssize_t)(count * in->bins * in->depth * sizeof *rows), channel,
                                  (unsigned long long)first, (Py_ssize_t)count, info);
    Py_XDECREF(info);
    if (!r) {
        exc_keep(p);
        p->stopped = 1;
    } else {
        p->stopped |= r == Py_False;
        Py_DECREF(r);
    }
    PyGILState_Release(g);
    return p->stopped;
}

/* run(inputs, settings, environment[, frames]) -> (code, message, [(level, line), ...]):
 * inputs a sequence of str, settings a sequence of (name, value or None); the job's failure
 * to take a setting or an input raises at once (ValueError naming the field). frames: a
 * callable for every block of frames (call_frames); its exception is raised after the run,
 * and a stop it asked for is no error. */
PyObject *ext_run(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *inputs, *settings, *frames = Py_None, *result = NULL;
    int environment, code;
    spectro_job *job = NULL;
    spectro_error err = {0, ""};
    lines l = {NULL, 0, 0, 0};
    py_frames pf = {NULL, {NULL, NULL, NULL}, 0, 0};
    if (!PyArg_ParseTuple(args, "OOp|O", &inputs, &settings, &environment, &frames))
        return NULL;
    if (frames != Py_None && !PyCallable_Check(frames)) {
        PyErr_SetString(PyExc_TypeError, "frames: a callable");
        return NULL;
    }
    if (!PySequence_Check(inputs) || !PySequence_Check(settings)) {
        PyErr_SetString(PyExc_TypeError, "run(inputs, settings, environment): two sequences");
        return NULL;
    }
    if ((code = spectro_job_create(&job, &err)) != SPECTRO_OK)
        return ext_raise(code, &err);
    for (Py_ssize_t i = 0; i < PySequence_Size(settings); i++) {
        PyObject *pair = PySequence_GetItem(settings, i);
        const char *name, *value = NULL;
        PyObject *v;
        int ok = pair && PyTuple_Check(pair) && PyTuple_Size(pair) == 2 &&
                 (name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(pair, 0))) != NULL;
        v = ok ? PyTuple_GET_ITEM(pair, 1) : NULL;
        if (ok && v != Py_None && !(value = PyUnicode_AsUTF8(v)))
            ok = 0;
        if (!ok) {
            Py_XDECREF(pair);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a setting is a (name, str or None) pair");
            goto done;
        }
        code = spectro_job_set(job, name, value, &err);
        Py_DECREF(pair);
        if (code != SPECTRO_OK) {
            ext_raise(code, &err);
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < PySequence_Size(inputs); i++) {
        PyObject *item = PySequence_GetItem(inputs, i);
        const char *path = item ? PyUnicode_AsUTF8(item) : NULL;
        code = path ? spectro_job_add_input(job, path, &err) : SPECTRO_OK;
        Py_XDECREF(item);
        if (!path)
            goto done;
        if (code != SPECTRO_OK) {
            ext_raise(code, &err);
            goto done;
        }
    }
    if (environment && (code = spectro_job_read_environment(job, &err)) != SPECTRO_OK) {
        ext_raise(code, &err);
        goto done;
    }
    spectro_job_set_messages(job, gather, &l);
    if (frames != Py_None) {
        pf.fn = frames;
        spectro_job_set_frames(job, call_frames, &pf);
    }
    Py_BEGIN_ALLOW_THREADS code = spectro_job_run(job, &err);
    Py_END_ALLOW_THREADS
    if (pf.kept) {
        exc_raise(&pf);
        goto done;
    }
    if (pf.stopped && code == SPECTRO_EINTERRUPTED) /* the callback's own stop */
        code = SPECTRO_OK;
    if (l.failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(isN)", code, code == SPECTRO_OK ? "" : err.message, lines_list(&l));
done:
    free(l.text);
    spectro_job_destroy(job);
    return result;
}
