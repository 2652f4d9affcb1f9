/* loudness(samples, sample_rate, channels, weights, series): spectro_loudness over one
 * interleaved float32 buffer, the GIL released while it measures. */
#include "ext.h"

#include <math.h>

/* A number, or None where the program's JSON says null. */
static PyObject *number(double v)
{
    if (isfinite(v))
        return PyFloat_FromDouble(v);
    Py_RETURN_NONE;
}

static PyObject *result_dict(const spectro_loudness_result *r)
{
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:K}", "integrated_lufs", number(r->integrated_lufs),
                         "loudness_range_lu", number(r->loudness_range_lu), "momentary_max_lufs",
                         number(r->momentary_max_lufs), "short_term_max_lufs", number(r->short_term_max_lufs),
                         "true_peak_dbtp", number(r->true_peak_dbtp), "sample_peak_dbfs",
                         number(r->sample_peak_dbfs), "frames", (unsigned long long)r->frames);
}

/* The series as two lists of floats (NaN before a block is whole), into d. */
static int add_series(PyObject *d, const spectro_loudness *m)
{
    uint64_t steps = spectro_loudness_steps(m);
    PyObject *mo = PyList_New((Py_ssize_t)steps), *st = PyList_New((Py_ssize_t)steps);
    int rc = -1;
    for (uint64_t i = 0; mo && st && i < steps; i++) {
        PyObject *a = PyFloat_FromDouble(spectro_loudness_momentary(m, i));
        PyObject *b = PyFloat_FromDouble(spectro_loudness_short_term(m, i));
        if (!a || !b) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto done;
        }
        PyList_SET_ITEM(mo, (Py_ssize_t)i, a);
        PyList_SET_ITEM(st, (Py_ssize_t)i, b);
    }
    if (mo && st && PyDict_SetItemString(d, "momentary_lufs", mo) == 0 &&
        PyDict_SetItemString(d, "short_term_lufs", st) == 0)
        rc = 0;
done:
    Py_XDECREF(mo);
    Py_XDECREF(st);
    return rc;
}

PyObject *ext_loudness(PyObject *self, PyObject *args)
{
    PyObject *obj, *wobj, *d = NULL;
    Py_buffer x, w = {0};
    int rate, channels, series, rc;
    spectro_loudness *m = NULL;
    spectro_loudness_result r = {sizeof r, 0, 0, 0, 0, 0, 0, 0, 0};
    spectro_error err;
    (void)self;
    if (!PyArg_ParseTuple(args, "OiiOp", &obj, &rate, &channels, &wobj, &series))
        return NULL;
    if (ext_get_buffer(obj, &x, 0, sizeof(float), "samples") != 0)
        return NULL;
    if (wobj != Py_None && ext_get_buffer(wobj, &w, 0, sizeof(double), "weights") != 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (channels < 1 || (size_t)x.len / sizeof(float) % (size_t)channels != 0 ||
        (w.buf && (size_t)w.len / sizeof(double) != (size_t)channels)) {
        PyErr_SetString(PyExc_ValueError, "loudness: the buffers do not hold whole frames of `channels`");
        goto fail;
    }
    if ((rc = spectro_loudness_create(rate, channels, w.buf, &m, &err)) != SPECTRO_OK) {
        ext_raise(rc, &err);
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = spectro_loudness_add(m, x.buf, (size_t)x.len / sizeof(float) / (size_t)channels, &err);
    if (rc == SPECTRO_OK)
        rc = spectro_loudness_get_result(m, &r, &err);
    Py_END_ALLOW_THREADS
    if (rc != SPECTRO_OK) {
        ext_raise(rc, &err);
        goto fail;
    }
    if ((d = result_dict(&r)) && series && add_series(d, m) != 0)
        Py_CLEAR(d);
fail:
    spectro_loudness_destroy(m);
    PyBuffer_Release(&x);
    if (w.buf)
        PyBuffer_Release(&w);
    return d;
}
