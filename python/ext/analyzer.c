/* Analyzer (spectro_analyzer: whole arrays, streams, reductions) and Bands (ext.h). */
#include "ext.h"

#include <stdint.h>

typedef struct {
    PyObject_HEAD
    spectro_analyzer *a;
    PyThread_type_lock lock;
    spectro_analyzer_info info;
} ext_analyzer;

static int analyzer_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    static char *kwlist[] = {"sample_rate", "channels", "fft_size", "hop", "window", "channel",
                             "backend", "expected_samples", "first_sample", NULL};
    spectro_analyzer_config cfg = spectro_analyzer_config_default();
    unsigned long long n = cfg.fft_size, hop = 0, expected = 0, first = 0;
    const char *window = NULL, *backend = NULL;
    spectro_analyzer *a = NULL;
    spectro_error err = {0};
    int rc;
    if (self->a) {
        PyErr_SetString(PyExc_RuntimeError, "Analyzer is already made");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ii|KKzizKK", kwlist, &cfg.sample_rate, &cfg.channels, &n, &hop,
                                     &window, &cfg.channel, &backend, &expected, &first))
        return -1;
    cfg.fft_size = (size_t)n;
    cfg.hop = (size_t)hop;
    cfg.window = window;
    cfg.backend = backend;
    cfg.expected_samples = expected;
    cfg.first_sample = first;
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    /* a GPU backend's start-up happens here: no GIL */
    Py_BEGIN_ALLOW_THREADS rc = spectro_analyzer_create(&cfg, &a, &err);
    Py_END_ALLOW_THREADS
    if (rc != SPECTRO_OK) {
        ext_raise(rc, &err);
        return -1;
    }
    self->info.size = sizeof self->info;
    if ((rc = spectro_analyzer_get_info(a, &self->info)) != SPECTRO_OK) {
        spectro_analyzer_destroy(a);
        ext_raise(rc, NULL);
        return -1;
    }
    self->a = a;
    return 0;
}

static void analyzer_dealloc(PyObject *self_)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    spectro_analyzer_destroy(self->a);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self_)->tp_free(self_);
}

static int made_or_raise(const ext_analyzer *self)
{
    if (self->a)
        return 1;
    PyErr_SetString(PyExc_ValueError, "the analyzer was not made");
    return 0;
}

static PyObject *analyzer_info(PyObject *self_, PyObject *noargs)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    const spectro_analyzer_info *i = &self->info;
    (void)noargs;
    if (!made_or_raise(self))
        return NULL;
    return Py_BuildValue("{s:i,s:i,s:i,s:n,s:n,s:n,s:d,s:d,s:d,s:s,s:s,s:s}", "sample_rate", i->sample_rate,
                         "channels", i->channels, "out_channels", i->out_channels, "fft_size", (Py_ssize_t)i->fft_size,
                         "hop", (Py_ssize_t)i->hop, "bins", (Py_ssize_t)i->bins, "bin_hz", i->bin_hz, "time_first_s",
                         i->time_first_s, "time_step_s", i->time_step_s, "window", i->window, "backend",
                         i->backend, "fallback", i->fallback);
}

static PyObject *analyzer_frame_count(PyObject *self_, PyObject *arg)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    unsigned long long samples = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred() || !made_or_raise(self))
        return NULL;
    return PyLong_FromUnsignedLongLong(spectro_analyzer_frame_count(self->a, samples));
}

/* frame_times(out, samples=0): out[f] = the centre of frame f in seconds (float64 buffer);
 * with the input's samples a channel, a short input's one frame at its samples' centre. */
static PyObject *analyzer_frame_times(PyObject *self_, PyObject *args)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    PyObject *out_obj;
    unsigned long long samples = 0;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "O|K:frame_times", &out_obj, &samples))
        return NULL;
    if (!made_or_raise(self) || ext_get_buffer(out_obj, &out, 1, sizeof(double), "out") != 0)
        return NULL;
    for (size_t f = 0; f < (size_t)out.len / sizeof(double); f++)
        ((double *)out.buf)[f] = samples ? spectro_analyzer_input_frame_time(self->a, samples, f)
                                         : spectro_analyzer_frame_time(self->a, f);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* The samples buffer's whole frames (one sample per input channel): SPECTRO_EINVAL-like
 * ValueError when it does not hold whole frames. */
static int samples_count(const ext_analyzer *self, const Py_buffer *in, size_t *count)
{
    size_t floats = (size_t)in->len / sizeof(float), ch = (size_t)self->info.channels;
    if (floats % ch != 0) {
        PyErr_Format(PyExc_ValueError, "samples: %zu floats are not whole frames of %zu channels", floats, ch);
        return -1;
    }
    *count = floats / ch;
    return 0;
}

/* spectrogram(samples, out) / stft(samples, out) -> frames: the whole-array calls, out's
 * room in frames a channel from its size. */
static PyObject *whole(ext_analyzer *self, PyObject *args, int complex_out)
{
    PyObject *in_obj, *out_obj;
    Py_buffer in, out;
    size_t count, item = complex_out ? sizeof(spectro_complex) : sizeof(float), out_frames;
    spectro_error err = {0};
    int rc;
    if (!PyArg_ParseTuple(args, "OO", &in_obj, &out_obj) || !made_or_raise(self))
        return NULL;
    if (ext_get_buffer(in_obj, &in, 0, sizeof(float), "samples") != 0)
        return NULL;
    if (samples_count(self, &in, &count) != 0 || ext_get_buffer(out_obj, &out, 1, item, "out") != 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    out_frames = (size_t)out.len / item / self->info.bins / (size_t)self->info.out_channels;
    if (complex_out)
        EXT_UNLOCKED(self->lock, rc = spectro_analyzer_stft(self->a, in.buf, count, out.buf, out_frames, &err));
    else
        EXT_UNLOCKED(self->lock,
                     rc = spectro_analyzer_spectrogram(self->a, in.buf, count, out.buf, out_frames, &err));
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return PyLong_FromUnsignedLongLong(spectro_analyzer_frame_count(self->a, count));
}

static PyObject *analyzer_spectrogram(PyObject *self, PyObject *args)
{
    return whole((ext_analyzer *)self, args, 0);
}

static PyObject *analyzer_stft(PyObject *self, PyObject *args)
{
    return whole((ext_analyzer *)self, args, 1);
}

/* spectrogram_device(d_samples, clips, count, stride, d_out, out_frames): device pointers as
 * integers, the sizes the glue checked against the arrays that own them; clips signals of
 * count samples, stride apart, into [clip][frame][bin]. */
static PyObject *analyzer_spectrogram_device(PyObject *self_, PyObject *args)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    unsigned long long d_in, clips, count, stride, d_out, out_frames;
    spectro_error err = {0};
    int rc;
    if (!PyArg_ParseTuple(args, "KKKKKK", &d_in, &clips, &count, &stride, &d_out, &out_frames) ||
        !made_or_raise(self))
        return NULL;
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_spectrogram_device_batch(
                                 self->a, (const float *)(uintptr_t)d_in, (size_t)clips, (size_t)count,
                                 (size_t)stride, (float *)(uintptr_t)d_out, (size_t)out_frames, &err));
    if (rc != SPECTRO_OK) {
        /* the glue falls back to the host on this code: it needs it as a number */
        if (rc == SPECTRO_EUNSUPPORTED)
            return Py_BuildValue("(is)", rc, err.message[0] ? err.message : spectro_strerror(rc));
        return ext_raise(rc, &err);
    }
    return Py_BuildValue("(is)", 0, "");
}

/* spectrogram_device_async(d_samples, clips, count, stride, d_out, out_frames, stream): as
 * spectrogram_device, queued on the CUDA stream `stream` (an integer handle, 0 the default
 * stream) without waiting. None when queued; (code, message) for SPECTRO_EUNSUPPORTED (the
 * glue's host fallback); other failures raise. Fast-call arguments: a 1-s clip's whole call
 * is a few microseconds, and a tuple's parse is a good part of one. */
static PyObject *analyzer_spectrogram_device_async(PyObject *self_, PyObject *const *args, Py_ssize_t nargs)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    unsigned long long v[7];
    spectro_error err = {0};
    int rc;
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "spectrogram_device_async takes 7 arguments (%zd given)", nargs);
        return NULL;
    }
    for (int i = 0; i < 7; i++) {
        v[i] = PyLong_AsUnsignedLongLong(args[i]);
        if (v[i] == (unsigned long long)-1 && PyErr_Occurred())
            return NULL;
    }
    if (!made_or_raise(self))
        return NULL;
#define ENQUEUE                                                                                               \
    rc = spectro_analyzer_spectrogram_device_batch_async(self->a, (const float *)(uintptr_t)v[0], (size_t)v[1],    \
                                                         (size_t)v[2], (size_t)v[3], (float *)(uintptr_t)v[4],    \
                                                         (size_t)v[5], (void *)(uintptr_t)v[6], &err)
    /* an enqueue, not the work: with the handle free it runs holding the GIL, as torch's own
     * launches do (letting the GIL go and taking it back is a good part of the call); a
     * handle busy in another thread is waited for without the GIL */
    if (PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        ENQUEUE;
        PyThread_release_lock(self->lock);
    } else {
        EXT_UNLOCKED(self->lock, ENQUEUE);
    }
#undef ENQUEUE
    if (rc == SPECTRO_OK)
        Py_RETURN_NONE;
    if (rc == SPECTRO_EUNSUPPORTED)
        return Py_BuildValue("(is)", rc, err.message[0] ? err.message : spectro_strerror(rc));
    return ext_raise(rc, &err);
}

/* ---- streams ------------------------------------------------------------------------------ */

static PyObject *analyzer_reset(PyObject *self_, PyObject *arg)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    int output = PyObject_IsTrue(arg) ? SPECTRO_OUTPUT_COMPLEX : SPECTRO_OUTPUT_DB, rc;
    spectro_error err = {0};
    if (!made_or_raise(self))
        return NULL;
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_reset(self->a, output, &err));
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    Py_RETURN_NONE;
}

/* push(samples) -> frames a channel waiting */
static PyObject *analyzer_push(PyObject *self_, PyObject *in_obj)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    Py_buffer in;
    size_t count, ready = 0;
    spectro_error err = {0};
    int rc;
    if (!made_or_raise(self) || ext_get_buffer(in_obj, &in, 0, sizeof(float), "samples") != 0)
        return NULL;
    if (samples_count(self, &in, &count) != 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_push(self->a, count ? in.buf : NULL, count, &ready, &err));
    PyBuffer_Release(&in);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return PyLong_FromSize_t(ready);
}

static PyObject *analyzer_finish(PyObject *self_, PyObject *noargs)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    size_t ready = 0;
    spectro_error err = {0};
    int rc;
    (void)noargs;
    if (!made_or_raise(self))
        return NULL;
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_finish(self->a, &ready, &err));
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return PyLong_FromSize_t(ready);
}

/* read(out, complex) -> frames a channel moved into out */
static PyObject *analyzer_read(PyObject *self_, PyObject *args)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    PyObject *out_obj;
    int complex_out;
    Py_buffer out;
    size_t item, max_frames, got = 0;
    spectro_error err = {0};
    int rc;
    if (!PyArg_ParseTuple(args, "Op", &out_obj, &complex_out) || !made_or_raise(self))
        return NULL;
    item = complex_out ? sizeof(spectro_complex) : sizeof(float);
    if (ext_get_buffer(out_obj, &out, 1, item, "out") != 0)
        return NULL;
    max_frames = (size_t)out.len / item / self->info.bins / (size_t)self->info.out_channels;
    if (complex_out)
        EXT_UNLOCKED(self->lock, rc = spectro_analyzer_read_complex(self->a, out.buf, max_frames, &got, &err));
    else
        EXT_UNLOCKED(self->lock, rc = spectro_analyzer_read(self->a, out.buf, max_frames, &got, &err));
    PyBuffer_Release(&out);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return PyLong_FromSize_t(got);
}

/* ---- reductions of one channel's dB spectra ---------------------------------------------- */

/* The frames of a float32 buffer of whole spectra. */
static int spectra_frames(const ext_analyzer *self, const Py_buffer *db, size_t *frames)
{
    size_t floats = (size_t)db->len / sizeof(float);
    if (floats % self->info.bins != 0) {
        PyErr_Format(PyExc_ValueError, "db: %zu floats are not whole spectra of %zu bins", floats,
                     self->info.bins);
        return -1;
    }
    *frames = floats / self->info.bins;
    return 0;
}

/* db (whole spectra of this analyzer) and out (writable, room for `need` items of `item`
 * bytes: need_frames 1, a record a frame; 0, one a bin): 0, or -1 with an exception set
 * and neither buffer held. */
static int db_and_out(ext_analyzer *self, PyObject *db_obj, PyObject *out_obj, size_t item, int need_frames,
                      Py_buffer *db, Py_buffer *out, size_t *frames)
{
    size_t need;
    if (ext_get_buffer(db_obj, db, 0, sizeof(float), "db") != 0)
        return -1;
    if (spectra_frames(self, db, frames) != 0 || ext_get_buffer(out_obj, out, 1, item, "out") != 0) {
        PyBuffer_Release(db);
        return -1;
    }
    need = need_frames ? *frames : self->info.bins;
    if ((size_t)out->len / item < need) {
        PyErr_Format(PyExc_ValueError, "out: room for fewer %s than %s", need_frames ? "peaks" : "values",
                     need_frames ? "frames" : "bins");
        PyBuffer_Release(db);
        PyBuffer_Release(out);
        return -1;
    }
    return 0;
}

/* peaks(db, fmin, fmax, out): out a buffer of spectro_peak records, one a frame */
static PyObject *analyzer_peaks(PyObject *self_, PyObject *args)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    PyObject *db_obj, *out_obj;
    double fmin, fmax;
    Py_buffer db, out;
    size_t frames;
    spectro_error err = {0};
    int rc;
    if (!PyArg_ParseTuple(args, "OddO", &db_obj, &fmin, &fmax, &out_obj) || !made_or_raise(self) ||
        db_and_out(self, db_obj, out_obj, sizeof(spectro_peak), 1, &db, &out, &frames) != 0)
        return NULL;
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_peaks(self->a, db.buf, frames, fmin, fmax, out.buf, &err));
    PyBuffer_Release(&db);
    PyBuffer_Release(&out);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    Py_RETURN_NONE;
}

/* average(db, mode, psd, out): out[bins] */
static PyObject *analyzer_average(PyObject *self_, PyObject *args)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    PyObject *db_obj, *out_obj;
    int mode, psd, rc;
    Py_buffer db, out;
    size_t frames;
    spectro_error err = {0};
    if (!PyArg_ParseTuple(args, "OipO", &db_obj, &mode, &psd, &out_obj) || !made_or_raise(self) ||
        db_and_out(self, db_obj, out_obj, sizeof(float), 0, &db, &out, &frames) != 0)
        return NULL;
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_average(self->a, db.buf, frames, mode, psd, out.buf, &err));
    PyBuffer_Release(&db);
    PyBuffer_Release(&out);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    Py_RETURN_NONE;
}

/* bandwidth(db) -> dict: spectro_analyzer_bandwidth of every row of db together. */
static PyObject *analyzer_bandwidth(PyObject *self_, PyObject *db_obj)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    spectro_bandwidth_result r;
    spectro_error err = {0};
    Py_buffer db;
    size_t frames;
    int rc;
    if (!made_or_raise(self) || ext_get_buffer(db_obj, &db, 0, sizeof(float), "db") != 0)
        return NULL;
    if (spectra_frames(self, &db, &frames) != 0) {
        PyBuffer_Release(&db);
        return NULL;
    }
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_bandwidth(self->a, db.buf, frames, &r, &err));
    PyBuffer_Release(&db);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return Py_BuildValue("{s:d,s:O,s:z,s:d,s:d,s:d,s:d}", "cutoff_hz", r.cutoff_hz, "full_band",
                         r.full_band ? Py_True : Py_False, "encoders", r.encoders, "below_db", r.below_db, "above_db",
                         r.above_db, "drop_db", r.drop_db, "nyquist_hz", r.nyquist_hz);
}

/* The transfer function of two channels' complex frames into out (bins rows of 4 floats). */
static int run_transfer(ext_analyzer *self, const Py_buffer *ref, const Py_buffer *meas, size_t frames, float *out,
                        double *delay_s, unsigned long long *averages, spectro_error *err)
{
    spectro_transfer *t = NULL;
    int rc = spectro_transfer_create(self->a, &t, err);
    if (rc == SPECTRO_OK && (rc = spectro_transfer_add(t, ref->buf, meas->buf, frames, err)) == SPECTRO_OK)
        rc = spectro_transfer_table(t, out, delay_s, err);
    *averages = spectro_transfer_averages(t);
    spectro_transfer_destroy(t);
    return rc;
}

/* transfer(ref, meas, out) -> (delay_s, averages): ref and meas complex64 frames [frame][bin]
 * of the same count, out room for bins * 4 floats */
static PyObject *analyzer_transfer(PyObject *self_, PyObject *args)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    PyObject *r_obj, *m_obj, *out_obj;
    Py_buffer b[3];
    int got = 0, rc = 1;
    double delay = 0.0;
    unsigned long long averages = 0;
    spectro_error err = {0};
    size_t row = self->info.bins * sizeof(spectro_complex);
    if (!PyArg_ParseTuple(args, "OOO", &r_obj, &m_obj, &out_obj) || !made_or_raise(self))
        return NULL;
    if (ext_get_buffer(r_obj, &b[0], 0, sizeof(spectro_complex), "ref") == 0 && ++got &&
        ext_get_buffer(m_obj, &b[1], 0, sizeof(spectro_complex), "meas") == 0 && ++got &&
        ext_get_buffer(out_obj, &b[2], 1, sizeof(float), "out") == 0 && ++got) {
        if (b[0].len != b[1].len || (size_t)b[0].len % row != 0)
            PyErr_SetString(PyExc_ValueError, "ref, meas: not the same whole number of frames of bins values");
        else if ((size_t)b[2].len < self->info.bins * SPECTRO_TRANSFER_COLUMNS * sizeof(float))
            PyErr_SetString(PyExc_ValueError, "out: room for fewer than bins rows of 4 values");
        else
            EXT_UNLOCKED(self->lock, rc = run_transfer(self, &b[0], &b[1], (size_t)b[0].len / row, b[2].buf, &delay,
                                                       &averages, &err));
    }
    while (got > 0)
        PyBuffer_Release(&b[--got]);
    if (rc == 1)
        return NULL;
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return Py_BuildValue("(dK)", delay, averages);
}

/* The tone's dict, with the keys and order of the program's --tone JSON. */
static PyObject *tone_dict(const spectro_tone *t)
{
    PyObject *h = PyList_New(0), *d;
    for (int i = 0; h && i < t->harmonics && i < SPECTRO_TONE_MAX_HARMONICS; i++) {
        PyObject *e = Py_BuildValue("{s:i,s:d,s:d}", "n", t->harmonic[i].n, "hz", t->harmonic[i].hz, "dbfs",
                                    t->harmonic[i].dbfs);
        if (!e || PyList_Append(h, e) != 0) {
            Py_XDECREF(e);
            Py_CLEAR(h);
            break;
        }
        Py_DECREF(e);
    }
    if (!h)
        return NULL;
    d = PyDict_New();
    if (!d) {
        Py_DECREF(h);
        return NULL;
    }
#define SET(k, v) (PyDict_SetItemString(d, k, v) == 0)
    PyObject *v[] = {PyFloat_FromDouble(t->fundamental_hz), PyFloat_FromDouble(t->fundamental_dbfs), h,
                     PyFloat_FromDouble(t->thd_percent), PyFloat_FromDouble(t->thd_db),
                     PyFloat_FromDouble(t->thdn_db), PyFloat_FromDouble(t->snr_db), PyFloat_FromDouble(t->sinad_db),
                     PyFloat_FromDouble(t->enob_bits), PyFloat_FromDouble(t->noise_dbfs),
                     Py_BuildValue("[dd]", t->band_hz[0], t->band_hz[1]),
                     PyLong_FromUnsignedLongLong(t->frames_averaged)};
    static const char *const keys[] = {"fundamental_hz", "fundamental_dbfs", "harmonics", "thd_percent",
                                       "thd_db", "thdn_db", "snr_db", "sinad_db", "enob_bits", "noise_dbfs",
                                       "band_hz", "frames_averaged"};
    int ok = 1;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        ok = ok && v[i] && SET(keys[i], v[i]);
        Py_XDECREF(v[i]);
    }
#undef SET
    if (!ok) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* tone(db, fundamental_hz, fmin, fmax) -> dict */
static PyObject *analyzer_tone(PyObject *self_, PyObject *args)
{
    ext_analyzer *self = (ext_analyzer *)self_;
    PyObject *db_obj;
    Py_buffer db;
    size_t frames;
    spectro_tone_config cfg = spectro_tone_config_default();
    spectro_tone t = {.size = sizeof t};
    spectro_error err = {0};
    int rc;
    if (!PyArg_ParseTuple(args, "Oddd", &db_obj, &cfg.fundamental_hz, &cfg.fmin, &cfg.fmax) || !made_or_raise(self))
        return NULL;
    if (ext_get_buffer(db_obj, &db, 0, sizeof(float), "db") != 0)
        return NULL;
    if (spectra_frames(self, &db, &frames) != 0) {
        PyBuffer_Release(&db);
        return NULL;
    }
    EXT_UNLOCKED(self->lock, rc = spectro_analyzer_tone(self->a, db.buf, frames, &cfg, &t, &err));
    PyBuffer_Release(&db);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return tone_dict(&t);
}

static PyMethodDef analyzer_methods[] = {
    {"info", analyzer_info, METH_NOARGS, "what the analyzer runs, a dict"},
    {"frame_count", analyzer_frame_count, METH_O, "frame_count(samples) -> frames a channel"},
    {"frame_times", analyzer_frame_times, METH_VARARGS,
     "frame_times(out, samples=0): frame centres in seconds, float64 (samples: the input's, for a short one)"},
    {"spectrogram", analyzer_spectrogram, METH_VARARGS, "spectrogram(samples, out) -> frames"},
    {"stft", analyzer_stft, METH_VARARGS, "stft(samples, out) -> frames"},
    {"spectrogram_device", analyzer_spectrogram_device, METH_VARARGS,
     "spectrogram_device(d_samples, clips, count, stride, d_out, out_frames) -> (code, message)"},
    {"spectrogram_device_async", (PyCFunction)(void (*)(void))analyzer_spectrogram_device_async, METH_FASTCALL,
     "spectrogram_device_async(d_samples, clips, count, stride, d_out, out_frames, stream) -> None or "
     "(code, message)"},
    {"reset", analyzer_reset, METH_O, "reset(complex): a new stream"},
    {"push", analyzer_push, METH_O, "push(samples) -> frames waiting"},
    {"finish", analyzer_finish, METH_NOARGS, "finish() -> frames waiting"},
    {"read", analyzer_read, METH_VARARGS, "read(out, complex) -> frames read"},
    {"peaks", analyzer_peaks, METH_VARARGS, "peaks(db, fmin, fmax, out)"},
    {"average", analyzer_average, METH_VARARGS, "average(db, mode, psd, out)"},
    {"tone", analyzer_tone, METH_VARARGS, "tone(db, fundamental_hz, fmin, fmax) -> dict"},
    {"bandwidth", analyzer_bandwidth, METH_O, "bandwidth(db) -> dict (every row together)"},
    {"transfer", analyzer_transfer, METH_VARARGS, "transfer(ref, meas, out) -> (delay_s, averages)"},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_analyzer_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spectro._spectro.Analyzer",
    .tp_basicsize = sizeof(ext_analyzer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Analyzer(sample_rate, channels, fft_size, hop, window, channel, backend, expected_samples, "
              "first_sample): spectro_analyzer",
    .tp_new = PyType_GenericNew,
    .tp_init = analyzer_init,
    .tp_dealloc = analyzer_dealloc,
    .tp_methods = analyzer_methods,
};

/* ---- Bands ---------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    spectro_bands *b;
    PyThread_type_lock lock;
    size_t bins;
} ext_bands;

static int bands_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    ext_bands *self = (ext_bands *)self_;
    static char *kwlist[] = {"analyzer", "fraction", "weighting", "fmin", "fmax", NULL};
    PyObject *an;
    spectro_bands_config cfg = spectro_bands_config_default();
    spectro_error err = {0};
    spectro_bands *b = NULL;
    int rc;
    if (self->b) {
        PyErr_SetString(PyExc_RuntimeError, "Bands is already made");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|izdd", kwlist, &ext_analyzer_type, &an, &cfg.fraction,
                                     &cfg.weighting, &cfg.fmin, &cfg.fmax) ||
        !made_or_raise((ext_analyzer *)an))
        return -1;
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    EXT_UNLOCKED(((ext_analyzer *)an)->lock, rc = spectro_bands_create(((ext_analyzer *)an)->a, &cfg, &b, &err));
    if (rc != SPECTRO_OK) {
        ext_raise(rc, &err);
        return -1;
    }
    self->b = b;
    self->bins = ((ext_analyzer *)an)->info.bins;
    return 0;
}

static void bands_dealloc(PyObject *self_)
{
    ext_bands *self = (ext_bands *)self_;
    spectro_bands_destroy(self->b);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self_)->tp_free(self_);
}

static PyObject *hz_list(const spectro_bands *b, size_t n, double (*hz)(const spectro_bands *, size_t))
{
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *f = PyFloat_FromDouble(hz(b, i));
        if (!f) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, f);
    }
    return l;
}

/* table() -> (mid_hz, lower_hz, upper_hz, unresolved_hz), lists of floats */
static PyObject *bands_table(PyObject *self_, PyObject *noargs)
{
    ext_bands *self = (ext_bands *)self_;
    size_t n;
    (void)noargs;
    if (!self->b) {
        PyErr_SetString(PyExc_ValueError, "the bands were not made");
        return NULL;
    }
    n = spectro_bands_count(self->b);
    return Py_BuildValue("(NNNN)", hz_list(self->b, n, spectro_bands_mid_hz),
                         hz_list(self->b, n, spectro_bands_lower_hz), hz_list(self->b, n, spectro_bands_upper_hz),
                         hz_list(self->b, spectro_bands_unresolved_count(self->b), spectro_bands_unresolved_hz));
}

/* levels(db, mode, out): mode -1: every frame's levels (out[frames][count]); else averaged
 * with that SPECTRO_AVERAGE_* mode (out[count]) */
static PyObject *bands_levels(PyObject *self_, PyObject *args)
{
    ext_bands *self = (ext_bands *)self_;
    PyObject *db_obj, *out_obj;
    int mode, rc;
    Py_buffer db, out;
    size_t floats, frames, need;
    spectro_error err = {0};
    if (!PyArg_ParseTuple(args, "OiO", &db_obj, &mode, &out_obj))
        return NULL;
    if (!self->b) {
        PyErr_SetString(PyExc_ValueError, "the bands were not made");
        return NULL;
    }
    if (ext_get_buffer(db_obj, &db, 0, sizeof(float), "db") != 0)
        return NULL;
    if (ext_get_buffer(out_obj, &out, 1, sizeof(float), "out") != 0) {
        PyBuffer_Release(&db);
        return NULL;
    }
    floats = (size_t)db.len / sizeof(float);
    frames = floats / self->bins;
    need = spectro_bands_count(self->b) * (mode < 0 ? frames : 1);
    if (floats % self->bins != 0 || (size_t)out.len / sizeof(float) < need) {
        PyErr_SetString(PyExc_ValueError, "db or out: not whole spectra, or too little room for the levels");
        rc = 1;
    } else if (mode < 0) {
        EXT_UNLOCKED(self->lock, rc = spectro_bands_levels(self->b, db.buf, frames, out.buf, &err));
    } else {
        EXT_UNLOCKED(self->lock, rc = spectro_bands_average(self->b, db.buf, frames, mode, out.buf, &err));
    }
    PyBuffer_Release(&db);
    PyBuffer_Release(&out);
    if (rc == 1)
        return NULL;
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    Py_RETURN_NONE;
}

static PyMethodDef bands_methods[] = {
    {"table", bands_table, METH_NOARGS, "(mid_hz, lower_hz, upper_hz, unresolved_hz)"},
    {"levels", bands_levels, METH_VARARGS, "levels(db, mode, out): per frame (mode -1) or averaged"},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_bands_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spectro._spectro.Bands",
    .tp_basicsize = sizeof(ext_bands),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bands(analyzer, fraction, weighting, fmin, fmax): spectro_bands",
    .tp_new = PyType_GenericNew,
    .tp_init = bands_init,
    .tp_dealloc = bands_dealloc,
    .tp_methods = bands_methods,
};

/* ---- Transform -------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    spectro_transform *t;
} ext_transform;

static int transform_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    ext_transform *self = (ext_transform *)self_;
    static char *kwlist[] = {"analyzer", "kind", "bands", "coefficients", "fmin", "fmax", NULL};
    PyObject *an;
    spectro_transform_config cfg = spectro_transform_config_default();
    spectro_error err = {0};
    spectro_transform *t = NULL;
    int rc;
    if (self->t) {
        PyErr_SetString(PyExc_RuntimeError, "Transform is already made");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!s|iidd", kwlist, &ext_analyzer_type, &an, &cfg.kind, &cfg.bands,
                                     &cfg.coefficients, &cfg.fmin, &cfg.fmax) ||
        !made_or_raise((ext_analyzer *)an))
        return -1;
    EXT_UNLOCKED(((ext_analyzer *)an)->lock, rc = spectro_transform_create(((ext_analyzer *)an)->a, &cfg, &t, &err));
    if (rc != SPECTRO_OK) {
        ext_raise(rc, &err);
        return -1;
    }
    self->t = t;
    return 0;
}

static void transform_dealloc(PyObject *self_)
{
    ext_transform *self = (ext_transform *)self_;
    spectro_transform_destroy(self->t);
    Py_TYPE(self_)->tp_free(self_);
}

/* table() -> (columns, depth, [freq_hz of each column]) */
static PyObject *transform_table(PyObject *self_, PyObject *noargs)
{
    ext_transform *self = (ext_transform *)self_;
    size_t n = spectro_transform_columns(self->t);
    PyObject *l = PyList_New((Py_ssize_t)n);
    (void)noargs;
    for (size_t i = 0; l && i < n; i++) {
        PyObject *f = PyFloat_FromDouble(spectro_transform_freq_hz(self->t, i));
        if (!f) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, f);
    }
    return l ? Py_BuildValue("(nnN)", (Py_ssize_t)n, (Py_ssize_t)spectro_transform_depth(self->t), l) : NULL;
}

/* compute(analyzer, samples, out) -> frames: out's room in frames a channel from its size */
static PyObject *transform_compute(PyObject *self_, PyObject *args)
{
    ext_transform *self = (ext_transform *)self_;
    PyObject *an_obj, *in_obj, *out_obj;
    ext_analyzer *an;
    Py_buffer in, out;
    size_t count, row, out_frames;
    spectro_error err = {0};
    int rc;
    if (!PyArg_ParseTuple(args, "O!OO", &ext_analyzer_type, &an_obj, &in_obj, &out_obj) ||
        !made_or_raise((ext_analyzer *)an_obj))
        return NULL;
    an = (ext_analyzer *)an_obj;
    if (ext_get_buffer(in_obj, &in, 0, sizeof(float), "samples") != 0)
        return NULL;
    if (samples_count(an, &in, &count) != 0 || ext_get_buffer(out_obj, &out, 1, sizeof(float), "out") != 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    row = spectro_transform_columns(self->t) * spectro_transform_depth(self->t);
    out_frames = (size_t)out.len / sizeof(float) / row / (size_t)an->info.out_channels;
    EXT_UNLOCKED(an->lock, rc = spectro_transform_compute(self->t, an->a, in.buf, count, out.buf, out_frames, &err));
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    if (rc != SPECTRO_OK)
        return ext_raise(rc, &err);
    return PyLong_FromUnsignedLongLong(spectro_analyzer_frame_count(an->a, count));
}

static PyMethodDef transform_methods[] = {
    {"table", transform_table, METH_NOARGS, "(columns, depth, freqs_hz)"},
    {"compute", transform_compute, METH_VARARGS, "compute(analyzer, samples, out) -> frames"},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_transform_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spectro._spectro.Transform",
    .tp_basicsize = sizeof(ext_transform),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Transform(analyzer, kind, bands, coefficients, fmin, fmax): spectro_transform",
    .tp_new = PyType_GenericNew,
    .tp_init = transform_init,
    .tp_dealloc = transform_dealloc,
    .tp_methods = transform_methods,
};
