"""CUDA arrays in, CUDA arrays of the same framework out (torch tensors, CuPy arrays).

A device array is one whose __dlpack_device__() names CUDA (or CUDA managed memory), or
that has __cuda_array_interface__. Its samples are read where they are: the extension takes
the array's device pointer, the output is allocated by the array's own framework on its
device (its caching allocator or memory pool, on its current stream), and the library's
asynchronous device entry (spectro_analyzer_spectrogram_device_batch_async: every row asked
for in one call) queues the work on the framework's current stream and returns without
waiting, as the framework's own operations do: the work runs after what the framework
queued before on that stream (the samples' producer) and before what it queues next (the
result's readers). The host never waits and the frames never visit it.

Where the library cannot (a build or backend without that entry: it answers
SPECTRO_EUNSUPPORTED; a mixed multichannel input; the STFT and the reductions, which have no
device entry), the samples are copied to the host by their framework, analysed there, and
the result copied back to the array's device: the same values, a round trip's cost. The
device path is used for backend "auto" (as "cuda"), "cuda" and "cufft"; backend="cpu" asks
for the host, and so does a signal shorter than n_fft (its one zero-padded frame is the
host's to make).

A call's fixed cost is kept small (a 1-s clip's whole call is tens of microseconds, most of
it Python): what depends only on the analyzer and the array's framework, device and shape
(the plan, the output's shape, the rows) is worked out once and kept on the analyzer.
"""
import threading

import numpy as np

from . import _spectro

_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_unsupported = {}   # (sr, n_fft, ...) -> the library's reason, once the device entry refused
_lock = threading.Lock()


_kinds = {}  # type -> "torch", "cupy" or "" (another): the type's module is looked at once


def _kind(t):
    got = _kinds.get(t)
    if got is None:
        name = t.__module__.split(".")[0]
        got = _kinds[t] = name if name in ("torch", "cupy") else ""
    return got


def is_device_array(y):
    t = type(y)
    if t is np.ndarray:
        return False
    kind = _kind(t)
    if kind == "torch":
        return y.is_cuda
    if kind == "cupy":
        return True
    dev = getattr(y, "__dlpack_device__", None)
    if dev is not None:
        try:
            kind = dev()[0]
        except Exception:  # noqa: BLE001 - not a DLPack array after all
            return False
        return int(kind) in (_DL_CUDA, _DL_CUDA_MANAGED)
    return hasattr(y, "__cuda_array_interface__")


def _framework(y):
    name = _kind(type(y))
    if name:
        return name
    raise TypeError("a CUDA array of %s: spectro takes torch tensors and CuPy arrays on the GPU "
                    "(or any array on the host)" % type(y).__module__)


def to_host(y):
    """The array's values on the host, in its own dtype (NumPy)."""
    if _framework(y) == "torch":
        return y.detach().cpu().numpy()
    return y.get()


def to_device(a, like):
    """NumPy array a on the device of the array `like`, in its framework."""
    if _framework(like) == "torch":
        import torch
        return torch.from_numpy(np.ascontiguousarray(a)).to(like.device)
    import cupy
    with cupy.cuda.Device(like.device.id):
        return cupy.asarray(a)


def via_host(fn, y):
    """fn on the host copy of y, its result brought back to y's device."""
    return to_device(fn(to_host(y)), y)


def _float32(y):
    """y as C-contiguous float32 on its device, scaled as PCM exactly as _convert does."""
    fw = _framework(y)
    if fw == "torch":
        import torch
        if y.dtype == torch.float32:
            return y.detach().contiguous()
        if y.is_floating_point():
            return y.detach().to(torch.float32).contiguous()
        if y.dtype in (torch.bool,) or y.is_complex():
            raise TypeError("samples of dtype %s: give float or int samples" % y.dtype)
        bits = torch.iinfo(y.dtype).bits
        x = y.detach().to(torch.int64)
        if not y.dtype.is_signed:  # uint8 (and torch's newer unsigned widths)
            x = x - (1 << (bits - 1))
        return (x.to(torch.float64) * 2.0 ** -(bits - 1)).to(torch.float32).contiguous()
    import cupy
    k = y.dtype.kind
    if k == "f":
        return cupy.ascontiguousarray(y.astype(cupy.float32, copy=False))
    if k not in "iu":
        raise TypeError("samples of dtype %s: give float or int samples" % y.dtype)
    bits = y.dtype.itemsize * 8
    x = y.astype(cupy.int64)
    if k == "u":
        x = x - (1 << (bits - 1))
    return cupy.ascontiguousarray((x.astype(cupy.float64) * 2.0 ** -(bits - 1)).astype(cupy.float32))


def _device_plan(an, backend, device):
    """The analyzer's plan for one device channel on `device` (made there: the caller holds
    the framework's device context)."""
    key = ("device", backend, device)
    with an._lock:
        got = an._plans.get(key)
        if got is None:
            plan = an._make(1, backend=backend, channel=0)  # a row is the one channel
            got = an._plans[key] = (plan, plan.info())
        return got[0]


_HOST = "host"   # a call's plan that says: through the host (via_host)
_CALLS_MAX = 64  # shapes kept a analyzer; more clears them (a program of many lengths)


def _call_plan(an, y, fw, shape, dev):
    """What a device call of this analyzer on an array of (framework, shape, device) needs,
    worked out once: (plan, out_shape, first sample, clips, samples, frames) or _HOST."""
    if an.backend == "cpu" or len(shape) not in (1, 2):
        return _HOST
    rows = None
    if len(shape) == 2:
        if an._channel == _spectro.CHANNEL_ALL:
            rows = list(range(shape[0]))
        elif an._channel >= 0:
            if an._channel >= shape[0]:
                return _HOST  # the library's message for the index
            rows = [an._channel]
        elif shape[0] == 1:
            rows = [0]
        else:
            return _HOST  # the mix: the library's own sum, on the host
    n = shape[-1]
    if rows is None and an._channel > 0:
        return _HOST  # an index past a 1-D array's one channel: the library says so
    if n < an.n_fft:  # the device entry makes no zero-padded frame: the host does
        return _HOST
    backend = "cuda" if an.backend == "auto" else an.backend
    if (an.sr, an.n_fft, an.hop_length, an.window, backend) in _unsupported:
        return _HOST
    with _device_context(y):
        plan = _device_plan(an, backend, dev)
    frames = plan.frame_count(n)
    bins = an.n_fft // 2 + 1
    clips = len(rows) if rows is not None else 1
    # channel="all" keeps the rows' axis; one row (1-D, an index, a (1, n) mix) has none
    out_shape = (clips, frames, bins) if an._channel == _spectro.CHANNEL_ALL else (frames, bins)
    # the rows asked for are consecutive (all of them, or one): one call
    first = rows[0] * n if rows is not None else 0
    return plan, out_shape, first, clips, n, frames


_torch = None  # (torch, current device, current stream's handle, float32), on first use


def _load_torch():
    """torch and its fastest ways to the current device and its current stream's handle
    (torch's own, as its compiled kernels get them; the public calls where they are gone)."""
    global _torch
    import torch
    getdev = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        def raw(d):
            return torch.cuda.current_stream(d).cuda_stream
    _torch = (torch, getdev, raw, torch.float32)
    return _torch


def _launch_torch(y, got, dev):
    """(the output tensor, None) with the work queued on torch's current stream, or
    (tensor, (code, why)) when the library refused."""
    torch, getdev, raw, f32 = _torch or _load_torch()
    if getdev() != dev:  # the library works on the current device
        with torch.cuda.device(dev):
            return _launch_torch(y, got, dev)
    plan, out_shape, first, clips, n, frames = got
    x = y if y.dtype is f32 and y.is_contiguous() else _float32(y)
    out = x.new_empty(out_shape)  # float32 on x's device, from torch's caching allocator
    return out, plan.spectrogram_device_async(x.data_ptr() + 4 * first, clips, n, n, out.data_ptr(), frames,
                                              raw(dev))


def _launch_cupy(y, got, dev):
    import cupy
    if cupy.cuda.runtime.getDevice() != dev:
        with cupy.cuda.Device(dev):
            return _launch_cupy(y, got, dev)
    plan, out_shape, first, clips, n, frames = got
    x = y if y.dtype == np.float32 and y.flags.c_contiguous else _float32(y)
    out = cupy.empty(out_shape, dtype=cupy.float32)  # from CuPy's memory pool
    return out, plan.spectrogram_device_async(x.data.ptr + 4 * first, clips, n, n, out.data.ptr, frames,
                                              cupy.cuda.get_current_stream().ptr)


def spectrogram(an, y):
    """Analyzer.spectrogram of a device array (module doc)."""
    fw = _kinds.get(type(y)) or _framework(y)
    dev = y.get_device() if fw == "torch" else y.device.id
    try:
        calls = an._device_calls
    except AttributeError:
        calls = an._device_calls = {}
    key = (fw, dev, y.shape)  # torch.Size hashes as the tuple it is
    got = calls.get(key)
    if got is None:
        if len(calls) >= _CALLS_MAX:
            calls.clear()
        got = calls[key] = _call_plan(an, y, fw, tuple(y.shape), dev)
    if got is _HOST:
        return via_host(an.spectrogram, y)
    out, refused = _launch_torch(y, got, dev) if fw == "torch" else _launch_cupy(y, got, dev)
    if refused is not None:  # (EUNSUPPORTED, why): this build or backend has no device entry
        with _lock:
            backend = "cuda" if an.backend == "auto" else an.backend
            _unsupported[(an.sr, an.n_fft, an.hop_length, an.window, backend)] = refused[1]
        calls.clear()
        return via_host(an.spectrogram, y)
    return out


def _device_context(y):
    """The framework's "current device" set to y's: the library works on the current one."""
    if _framework(y) == "torch":
        import torch
        return torch.cuda.device(y.device)
    import cupy
    return cupy.cuda.Device(y.device.id)


def device_path_refused():
    """Why the device entry was refused, per settings (for tests and docs)."""
    with _lock:
        return dict(_unsupported)
