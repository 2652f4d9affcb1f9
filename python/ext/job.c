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

/* run(inputs, settings, environment) -> (code, message, [(level, line), ...]): inputs a
 * sequence of str, settings a sequence of (name, value or None); the job's failure to take a
 * setting or an input raises at once (ValueError naming the field). */
PyObject *ext_run(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *inputs, *settings, *result = NULL;
    int environment, code;
    spectro_job *job = NULL;
    spectro_error err = {0, ""};
    lines l = {NULL, 0, 0, 0};
    if (!PyArg_ParseTuple(args, "OOp", &inputs, &settings, &environment))
        return NULL;
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
    Py_BEGIN_ALLOW_THREADS code = spectro_job_run(job, &err);
    Py_END_ALLOW_THREADS
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
