/* The extension spectro._spectro: CPython types over spectro.h, shared by its files.
 *
 *   module.c    the module, errors (a library code -> a Python exception), buffers, DLPack
 *   source.c    Source: spectro_source
 *   analyzer.c  Analyzer: spectro_analyzer, whole arrays, streams and the reductions; Bands;
 *               Transform (spectro_transform)
 *   loudness.c  loudness(): spectro_loudness over one buffer
 *   pitch.c     PitchTracker: spectro_pitch_tracker, YIN a frame at a time
 *   job.c       run(): spectro_job, the program's run (settings, inputs, outputs)
 *
 * The Python glue (python/spectro/__init__.py) checks dtypes and shapes and allocates the
 * outputs; this layer checks every size against the buffers it is given, so that no call
 * from Python can write or read past one, releases the GIL around the library's work, and
 * serialises calls on one handle with the handle's own lock (the library lets one thread at a
 * time use a handle).
 */
#ifndef SPECTRO_EXT_H
#define SPECTRO_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include "spectro.h"

/* Sets the Python exception for a library failure and returns NULL: SPECTRO_EINVAL ->
 * ValueError, EINPUT and EIO -> OSError, ENOMEM -> MemoryError, the rest (GPU, device,
 * unsupported) -> RuntimeError; the text is the library's one line. */
PyObject *ext_raise(int code, const spectro_error *err);

/* Gets a C-contiguous buffer of obj (writable when asked) whose size is a multiple of
 * itemsize; TypeError naming `what` otherwise. The caller releases it. */
int ext_get_buffer(PyObject *obj, Py_buffer *view, int writable, size_t itemsize, const char *what);

/* Runs `stmt` without the GIL, holding `lock` (a handle's). */
#define EXT_UNLOCKED(lock, stmt)                                                                                  \
    do {                                                                                                          \
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock((lock), WAIT_LOCK);                                          \
        stmt;                                                                                                     \
        PyThread_release_lock((lock));                                                                            \
        Py_END_ALLOW_THREADS                                                                                      \
    } while (0)

extern PyTypeObject ext_source_type;
extern PyTypeObject ext_analyzer_type;
extern PyTypeObject ext_bands_type;
extern PyTypeObject ext_transform_type;
extern PyTypeObject ext_pitch_type;

/* The DLPack import: the device pointer, element count, device type and id of a capsule
 * from __dlpack__() holding a C-contiguous float32 array (module.c). */
PyObject *ext_dlpack_info(PyObject *self, PyObject *capsule);

/* loudness(samples, sample_rate, channels, weights or None, series) -> dict: the interleaved
 * float32 samples' loudness (the program's --loudness keys, None for null, and "frames");
 * with series, "momentary_lufs" and "short_term_lufs" lists of the 100 ms steps. */
PyObject *ext_loudness(PyObject *self, PyObject *args);

/* run(inputs, settings, environment) -> (code, message, [(level, line), ...]) (job.c). */
PyObject *ext_run(PyObject *self, PyObject *args);

#endif
