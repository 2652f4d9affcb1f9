/* spectro._spectro: the module, its errors, buffers and the DLPack import (ext.h). */
#include "ext.h"

#include <stdint.h>
#include <string.h>

PyObject *ext_raise(int code, const spectro_error *err)
{
    PyObject *type;
    const char *text = err && err->message[0] ? err->message : spectro_strerror(code);
    switch (code) {
    case SPECTRO_EINVAL:
        type = PyExc_ValueError;
        break;
    case SPECTRO_EINPUT:
    case SPECTRO_EIO:
        type = PyExc_OSError;
        break;
    case SPECTRO_ENOMEM:
        type = PyExc_MemoryError;
        break;
    case SPECTRO_EINTERRUPTED:
        type = PyExc_KeyboardInterrupt;
        break;
    default:
        type = PyExc_RuntimeError;
    }
    PyErr_SetString(type, text);
    return NULL;
}

int ext_get_buffer(PyObject *obj, Py_buffer *view, int writable, size_t itemsize, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0)
        return -1;
    if (view->len < 0 || (size_t)view->len % itemsize != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s: a buffer of %zu-byte items is needed", what, itemsize);
        return -1;
    }
    return 0;
}

/* ---- DLPack (the ABI of dlpack.h, v0.6 to v0.8: the capsule "dltensor") ------------------ */

typedef struct {
    int32_t device_type; /* 1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed */
    int32_t device_id;
} ext_dl_device;

typedef struct {
    uint8_t code; /* 2 float */
    uint8_t bits;
    uint16_t lanes;
} ext_dl_dtype;

typedef struct {
    void *data;
    ext_dl_device device;
    int32_t ndim;
    ext_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides; /* NULL: C-contiguous */
    uint64_t byte_offset;
} ext_dl_tensor;

typedef struct ext_dl_managed {
    ext_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct ext_dl_managed *self);
} ext_dl_managed;

/* Reads, without consuming, the tensor of a capsule: the capsule stays its producer's (its
 * destructor frees it), so the caller keeps it alive while the pointer is used. */
PyObject *ext_dlpack_info(PyObject *self, PyObject *capsule)
{
    (void)self;
    const ext_dl_managed *m;
    const ext_dl_tensor *t;
    int64_t count = 1, expect = 1;
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
        PyErr_SetString(PyExc_TypeError, "y.__dlpack__() did not return a DLPack capsule");
        return NULL;
    }
    m = PyCapsule_GetPointer(capsule, "dltensor");
    if (!m)
        return NULL;
    t = &m->dl_tensor;
    if (t->dtype.code != 2 || t->dtype.bits != 32 || t->dtype.lanes != 1) {
        PyErr_SetString(PyExc_TypeError, "a device array must be float32 here");
        return NULL;
    }
    if (t->ndim < 0 || t->ndim > 8) {
        PyErr_SetString(PyExc_ValueError, "a device array of 0 to 8 dimensions is needed");
        return NULL;
    }
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "a device array with a negative extent");
            return NULL;
        }
        /* C order; an extent of 1 may carry any stride */
        if (t->strides && t->shape[i] > 1 && t->strides[i] != expect) {
            PyErr_SetString(PyExc_ValueError, "a device array must be C-contiguous here");
            return NULL;
        }
        expect *= t->shape[i];
        count *= t->shape[i];
    }
    return Py_BuildValue("(KLii)", (unsigned long long)((uintptr_t)t->data + t->byte_offset), (long long)count,
                         (int)t->device.device_type, (int)t->device.device_id);
}

/* ---- the module ------------------------------------------------------------------------ */

static PyObject *version(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return PyUnicode_FromString(spectro_version());
}

/* (name, ...) tuples of a table of the library's names */
static PyObject *names(const char *(*name)(int), int count)
{
    PyObject *t = PyTuple_New(count);
    for (int i = 0; t && i < count; i++) {
        PyObject *s = PyUnicode_FromString(name(i) ? name(i) : "");
        if (!s) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

static PyObject *tables(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return Py_BuildValue("{s:N,s:N,s:N,s:N}", "windows", names(spectro_window_name, spectro_window_count()),
                         "backends", names(spectro_backend_name, spectro_backend_count()), "averages",
                         names(spectro_average_name, spectro_average_count()), "raw_formats",
                         names(spectro_raw_format_name, spectro_raw_format_count()));
}

static PyObject *frame_count(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long samples, n, hop;
    if (!PyArg_ParseTuple(args, "KKK", &samples, &n, &hop))
        return NULL;
    return PyLong_FromUnsignedLongLong(spectro_frame_count(samples, (size_t)n, (size_t)hop));
}

/* pitch(samples, channels, rate, n, hop, fmin, fmax, f0, confidence) -> frames: spectro_pitch
 * over interleaved float32 samples into two float64 buffers. */
static PyObject *pitch(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *x_obj, *f0_obj, *conf_obj;
    int channels, rate, rc;
    unsigned long long n, hop;
    double fmin, fmax;
    Py_buffer x, f0, conf;
    size_t frames = 0, room;
    spectro_error err = {0, ""};
    if (!PyArg_ParseTuple(args, "OiiKKddOO", &x_obj, &channels, &rate, &n, &hop, &fmin, &fmax, &f0_obj, &conf_obj))
        return NULL;
    if (ext_get_buffer(x_obj, &x, 0, sizeof(float), "samples") != 0)
        return NULL;
    if (ext_get_buffer(f0_obj, &f0, 1, sizeof(double), "f0") != 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    if (ext_get_buffer(conf_obj, &conf, 1, sizeof(double), "confidence") != 0) {
        PyBuffer_Release(&x);
        PyBuffer_Release(&f0);
        return NULL;
    }
    room = (size_t)(f0.len < conf.len ? f0.len : conf.len) / sizeof(double);
    if (channels < 1 || (size_t)x.len / sizeof(float) % (size_t)channels != 0) {
        rc = SPECTRO_EINVAL;
        snprintf(err.message, sizeof err.message, "samples: not a whole number of frames of %d channels", channels);
    } else {
        size_t count = (size_t)x.len / sizeof(float) / (size_t)channels;
        Py_BEGIN_ALLOW_THREADS rc = spectro_pitch(x.buf, count, channels, rate, (size_t)n, (size_t)hop, fmin, fmax,
                                                  f0.buf, conf.buf, room, &frames, &err);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&f0);
    PyBuffer_Release(&conf);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return PyLong_FromSize_t(frames);
}

static PyMethodDef methods[] = {
    {"version", version, METH_NOARGS, "the library's version, the spectro program's"},
    {"tables", tables, METH_NOARGS, "the names of windows, backends, averages and raw encodings"},
    {"frame_count", frame_count, METH_VARARGS, "frame_count(samples, fft_size, hop): frames a channel"},
    {"dlpack_info", ext_dlpack_info, METH_O, "dlpack_info(capsule) -> (pointer, count, device_type, device_id)"},
    {"loudness", ext_loudness, METH_VARARGS,
     "loudness(samples, sample_rate, channels, weights, series) -> dict (interleaved float32 samples)"},
    {"pitch", pitch, METH_VARARGS,
     "pitch(samples, channels, rate, n, hop, fmin, fmax, f0, confidence) -> frames (spectro_pitch)"},
    {"run", ext_run, METH_VARARGS,
     "run(inputs, settings, environment[, frames]) -> (code, message, [(level, line), ...]): a spectro_job"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_spectro", "spectro's C library (spectro.h)", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__spectro(void);
PyMODINIT_FUNC PyInit__spectro(void)
{
    PyObject *m;
    if (PyType_Ready(&ext_source_type) < 0 || PyType_Ready(&ext_analyzer_type) < 0 ||
        PyType_Ready(&ext_bands_type) < 0 || PyType_Ready(&ext_transform_type) < 0 ||
        PyType_Ready(&ext_pitch_type) < 0)
        return NULL;
    if (!(m = PyModule_Create(&module)))
        return NULL;
    Py_INCREF(&ext_source_type);
    Py_INCREF(&ext_analyzer_type);
    Py_INCREF(&ext_bands_type);
    Py_INCREF(&ext_transform_type);
    Py_INCREF(&ext_pitch_type);
    if (PyModule_AddObject(m, "Source", (PyObject *)&ext_source_type) < 0 ||
        PyModule_AddObject(m, "Analyzer", (PyObject *)&ext_analyzer_type) < 0 ||
        PyModule_AddObject(m, "Bands", (PyObject *)&ext_bands_type) < 0 ||
        PyModule_AddObject(m, "Transform", (PyObject *)&ext_transform_type) < 0 ||
        PyModule_AddObject(m, "PitchTracker", (PyObject *)&ext_pitch_type) < 0 ||
        PyModule_AddIntConstant(m, "CHANNEL_MIX", SPECTRO_CHANNEL_MIX) < 0 ||
        PyModule_AddIntConstant(m, "CHANNEL_ALL", SPECTRO_CHANNEL_ALL) < 0 ||
        PyModule_AddIntConstant(m, "EUNSUPPORTED", SPECTRO_EUNSUPPORTED) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
