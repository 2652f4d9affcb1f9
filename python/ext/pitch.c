/* PitchTracker: spectro_pitch_tracker, YIN a frame at a time (ext.h). */
#include "ext.h"

typedef struct {
    PyObject_HEAD
    spectro_pitch_tracker *t;
    PyThread_type_lock lock;
    size_t n;
} ext_pitch;

static int pitch_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    ext_pitch *self = (ext_pitch *)self_;
    static char *kwlist[] = {"sample_rate", "fft_size", "fmin", "fmax", NULL};
    int rate, rc;
    unsigned long long n;
    double fmin = 0.0, fmax = 0.0;
    spectro_pitch_tracker *t = NULL;
    spectro_error err = {0, ""};
    if (self->t) {
        PyErr_SetString(PyExc_RuntimeError, "PitchTracker is already made");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iK|dd", kwlist, &rate, &n, &fmin, &fmax))
        return -1;
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS rc = spectro_pitch_tracker_create(rate, (size_t)n, fmin, fmax, &t, &err);
    Py_END_ALLOW_THREADS
    if (rc != SPECTRO_OK) {
        ext_raise(rc, &err);
        return -1;
    }
    self->t = t;
    self->n = (size_t)n;
    return 0;
}

static void pitch_dealloc(PyObject *self_)
{
    ext_pitch *self = (ext_pitch *)self_;
    spectro_pitch_tracker_destroy(self->t);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self_)->tp_free(self_);
}

/* estimate(frame) -> (f0, confidence): frame a float32 buffer of exactly fft_size samples */
static PyObject *pitch_estimate(PyObject *self_, PyObject *frame)
{
    ext_pitch *self = (ext_pitch *)self_;
    Py_buffer x;
    double f0 = 0.0, conf = 0.0;
    spectro_error err = {0, ""};
    int rc;
    if (!self->t) {
        PyErr_SetString(PyExc_ValueError, "the pitch tracker was not made");
        return NULL;
    }
    if (ext_get_buffer(frame, &x, 0, sizeof(float), "frame") != 0)
        return NULL;
    if ((size_t)x.len / sizeof(float) != self->n) {
        PyErr_Format(PyExc_ValueError, "frame: %zu samples given, fft_size is %zu", (size_t)x.len / sizeof(float),
                     self->n);
        PyBuffer_Release(&x);
        return NULL;
    }
    EXT_UNLOCKED(self->lock, rc = spectro_pitch_tracker_estimate(self->t, x.buf, &f0, &conf, &err));
    PyBuffer_Release(&x);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return Py_BuildValue("(dd)", f0, conf);
}

static PyMethodDef pitch_methods[] = {
    {"estimate", pitch_estimate, METH_O, "estimate(frame) -> (f0_hz, confidence): one frame of fft_size float32"},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_pitch_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spectro._spectro.PitchTracker",
    .tp_basicsize = sizeof(ext_pitch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PitchTracker(sample_rate, fft_size, fmin, fmax): spectro_pitch_tracker",
    .tp_new = PyType_GenericNew,
    .tp_init = pitch_init,
    .tp_dealloc = pitch_dealloc,
    .tp_methods = pitch_methods,
};
