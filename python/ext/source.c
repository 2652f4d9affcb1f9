/* Source: a spectro_source (ext.h). */
#include "ext.h"

typedef struct {
    PyObject_HEAD
    spectro_source *src;
    PyThread_type_lock lock;
    spectro_source_info info;
} ext_source;

static int source_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    ext_source *self = (ext_source *)self_;
    static char *kwlist[] = {"path", "start", "end", "raw_format", "stream", NULL};
    PyObject *path_obj = NULL, *path = NULL;
    const char *raw = NULL;
    spectro_source_config cfg = spectro_source_config_default();
    spectro_error err = {0};
    spectro_source *src = NULL;
    int rc;
    if (self->src) {
        PyErr_SetString(PyExc_RuntimeError, "Source is already open");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ddzi", kwlist, &path_obj, &cfg.start, &cfg.end, &raw,
                                     &cfg.stream))
        return -1;
    if (!PyUnicode_FSConverter(path_obj, &path))
        return -1;
    cfg.raw_format = raw;
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        Py_DECREF(path);
        PyErr_NoMemory();
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS rc = spectro_source_open(PyBytes_AS_STRING(path), &cfg, &src, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (rc != SPECTRO_OK) {
        ext_raise(rc, &err);
        return -1;
    }
    self->info.size = sizeof self->info;
    if ((rc = spectro_source_get_info(src, &self->info)) != SPECTRO_OK) {
        spectro_source_close(src);
        ext_raise(rc, NULL);
        return -1;
    }
    self->src = src;
    return 0;
}

static void source_dealloc(PyObject *self_)
{
    ext_source *self = (ext_source *)self_;
    spectro_source_close(self->src);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self_)->tp_free(self_);
}

static int open_or_raise(const ext_source *self)
{
    if (self->src)
        return 1;
    PyErr_SetString(PyExc_ValueError, "the source is closed");
    return 0;
}

/* read(out) -> frames: fills the writable float32 buffer out (whole frames of `channels`
 * samples) from the source; 0 at its end. */
static PyObject *source_read(PyObject *self_, PyObject *out_obj)
{
    ext_source *self = (ext_source *)self_;
    Py_buffer out;
    size_t got = 0, max_frames;
    spectro_error err = {0};
    int rc;
    if (!open_or_raise(self) || ext_get_buffer(out_obj, &out, 1, sizeof(float), "out") != 0)
        return NULL;
    max_frames = (size_t)out.len / sizeof(float) / (size_t)self->info.channels;
    EXT_UNLOCKED(self->lock, rc = self->src ? spectro_source_read(self->src, out.buf, max_frames, &got, &err)
                                            : SPECTRO_EINVAL);
    PyBuffer_Release(&out);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return PyLong_FromSize_t(got);
}

static PyObject *source_close(PyObject *self_, PyObject *noargs)
{
    ext_source *self = (ext_source *)self_;
    spectro_source *src;
    (void)noargs;
    if (!self->lock) /* never opened (__new__ without __init__) */
        Py_RETURN_NONE;
    /* taken under the lock, so that a read in another thread finishes first */
    EXT_UNLOCKED(self->lock, src = self->src; self->src = NULL);
    Py_BEGIN_ALLOW_THREADS spectro_source_close(src);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *source_info(PyObject *self_, PyObject *noargs)
{
    ext_source *self = (ext_source *)self_;
    const spectro_source_info *i = &self->info;
    (void)noargs;
    return Py_BuildValue("{s:i,s:i,s:L,s:L,s:d,s:K,s:O,s:s,s:s,s:s}", "sample_rate", i->sample_rate, "channels",
                         i->channels, "length", (long long)i->length, "source_length", (long long)i->source_length,
                         "start_s", i->start_s, "start_sample", (unsigned long long)i->start_sample, "pipe",
                         i->pipe ? Py_True : Py_False, "name", i->name, "format", i->format, "decoder", i->decoder);
}

static PyObject *source_nonfinite(PyObject *self_, PyObject *noargs)
{
    ext_source *self = (ext_source *)self_;
    (void)noargs;
    if (!open_or_raise(self))
        return NULL;
    return PyLong_FromUnsignedLongLong(spectro_source_nonfinite(self->src));
}

static PyMethodDef source_methods[] = {
    {"read", source_read, METH_O, "read(out) -> frames read into the float32 buffer out, 0 at the end"},
    {"close", source_close, METH_NOARGS, "closes the input"},
    {"info", source_info, METH_NOARGS, "what the source is, a dict"},
    {"nonfinite", source_nonfinite, METH_NOARGS, "samples replaced by 0 (NaN or infinite)"},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_source_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spectro._spectro.Source",
    .tp_basicsize = sizeof(ext_source),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Source(path, start=0, end=0, raw_format=None, stream=0): spectro_source",
    .tp_new = PyType_GenericNew,
    .tp_init = source_init,
    .tp_dealloc = source_dealloc,
    .tp_methods = source_methods,
};
