"""CUDA arrays in, CUDA arrays of the same framework out (torch tensors, CuPy arrays).

A device array is one whose __dlpack_device__() names CUDA (or CUDA managed memory), or
that has __cuda_array_interface__. Its samples are read where they are: the extension takes
the pointer from the array's DLPack capsule (or its CUDA array interface), the output is
allocated by the array's own framework on its device, and the library's device entry
(spectro_analyzer_spectrogram_device_batch: every row asked for in one call) writes it; the
frames never visit the host.

Where the library cannot (a build or backend without that entry: it answers
SPECTRO_EUNSUPPORTED; a mixed multichannel input; the STFT and the reductions, which have no
device entry), the samples are copied to the host by their framework, analysed there, and
the result copied back to the array's device: the same values, a round trip's cost. The
device path is used for backend "auto" (as "cuda"), "cuda" and "cufft"; backend="cpu" asks
for the host, and so does a signal shorter than n_fft (its one zero-padded frame is the
host's to make).
"""
import threading

import numpy as np

from . import _spectro

_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_unsupported = {}   # (sr, n_fft, ...) -> the library's reason, once the device entry refused
_lock = threading.Lock()


def is_device_array(y):
    if isinstance(y, np.ndarray):
        return False
    dev = getattr(y, "__dlpack_device__", None)
    if dev is not None:
        try:
            kind = dev()[0]
        except Exception:  # noqa: BLE001 - not a DLPack array after all
            return False
        return int(kind) in (_DL_CUDA, _DL_CUDA_MANAGED)
    return hasattr(y, "__cuda_array_interface__")


def _framework(y):
    name = type(y).__module__.split(".")[0]
    if name in ("torch", "cupy"):
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


def _pointer(a):
    """(device pointer, elements, device id) of a C-contiguous float32 device array,
    through its DLPack capsule when it has one (kept alive by the caller's reference to a)."""
    if hasattr(a, "__dlpack__"):
        cap = a.__dlpack__()
        ptr, count, kind, dev = _spectro.dlpack_info(cap)
        del cap
        return ptr, count, dev
    cai = a.__cuda_array_interface__
    return cai["data"][0], int(np.prod(cai["shape"])), getattr(getattr(a, "device", None), "id", 0)


def _address(a):
    """The device address of a C-contiguous array of the two frameworks taken (torch's
    data_ptr, CuPy's data.ptr: what their DLPack capsules hold, without making one: a 1-s
    clip's call is tens of microseconds, and each capsule costs a few)."""
    ptr = getattr(a, "data_ptr", None)
    if ptr is not None:
        return ptr()
    data = getattr(a, "data", None)
    if data is not None and hasattr(data, "ptr"):
        return data.ptr
    return _pointer(a)[0]


def _empty_like_device(y, shape):
    if _framework(y) == "torch":
        import torch
        return torch.empty(shape, dtype=torch.float32, device=y.device)
    import cupy
    with cupy.cuda.Device(y.device.id):
        return cupy.empty(shape, dtype=cupy.float32)


def _synchronize(y):
    """The library reads on its own stream: what the framework queued for y must be done."""
    if _framework(y) == "torch":
        import torch
        torch.cuda.current_stream(y.device).synchronize()
    else:
        import cupy
        with cupy.cuda.Device(y.device.id):
            cupy.cuda.get_current_stream().synchronize()


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


def spectrogram(an, y):
    """Analyzer.spectrogram of a device array (module doc)."""
    if an.backend == "cpu" or len(y.shape) not in (1, 2):
        return via_host(an.spectrogram, y)
    rows = None
    if len(y.shape) == 2:
        if an._channel == _spectro.CHANNEL_ALL:
            rows = list(range(y.shape[0]))
        elif an._channel >= 0:
            if an._channel >= y.shape[0]:
                return via_host(an.spectrogram, y)  # the library's message for the index
            rows = [an._channel]
        elif y.shape[0] == 1:
            rows = [0]
        else:
            return via_host(an.spectrogram, y)  # the mix: the library's own sum, on the host
    backend = "cuda" if an.backend == "auto" else an.backend
    key = (an.sr, an.n_fft, an.hop_length, an.window, backend)
    if key in _unsupported:
        return via_host(an.spectrogram, y)
    n = y.shape[-1]
    if rows is None and an._channel > 0:
        return via_host(an.spectrogram, y)  # an index past a 1-D array's one channel: the library says so
    if n < an.n_fft:  # the device entry makes no zero-padded frame: the host does
        return via_host(an.spectrogram, y)
    with _device_context(y):
        x = _float32(y)
        plan = _device_plan(an, backend, _device_id(y))
        frames = plan.frame_count(n)
        bins = an.n_fft // 2 + 1
        out = _empty_like_device(y, (len(rows) if rows is not None else 1, frames, bins))
        _synchronize(y)
        d_out = _address(out)
        d_in = _address(x)
        # the rows asked for are consecutive (all of them, or one): one call, one wait
        first = rows[0] if rows is not None else 0
        clips = len(rows) if rows is not None else 1
        code, why = plan.spectrogram_device(d_in + first * n * 4, clips, n, n, d_out, frames)
        if code == _spectro.EUNSUPPORTED:
            with _lock:
                _unsupported[key] = why
            return via_host(an.spectrogram, y)
    if an._channel == _spectro.CHANNEL_ALL:
        return out
    return out[0]


def _device_id(y):
    if _framework(y) == "torch":
        return y.device.index or 0
    return y.device.id


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
