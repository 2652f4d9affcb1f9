"""Samples in: any float or int dtype to the float32 the library takes, scaled as PCM.

Integers are read as the program reads PCM of their width (libsndfile's normalisation):
signed x / 2^(bits-1), unsigned (x - 2^(bits-1)) / 2^(bits-1); int16 / 32768, int32 / 2^31,
uint8 (x - 128) / 128. The scale is a power of two, so each value is the float32 nearest
x / 2^(bits-1), the same as the program gives for the same PCM. Floats are rounded to
float32 (as the program reads float64 files). Bool and complex are refused.
"""
import numpy as np

from . import _spectro


def to_float32(a):
    """A NumPy array of samples as float32, scaled as PCM (module doc)."""
    kind = a.dtype.kind
    if kind == "f":
        return a.astype(np.float32, copy=False)
    if kind in "iu":
        bits = a.dtype.itemsize * 8
        scale = np.float32(2.0 ** -(bits - 1))
        if kind == "u":
            # x - 2^(bits-1) is exact in int64 for widths to 32; uint64 goes through float64 as
            # libsndfile would not read it at all
            if bits <= 32:
                a = a.astype(np.int64) - (1 << (bits - 1))
            else:
                a = a.astype(np.float64) - 2.0 ** (bits - 1)
        # float32(x) * 2^-k: the scaling of a power of two rounds once, as x / 2^k in float64
        return (a.astype(np.float64) * float(scale)).astype(np.float32)
    if kind == "b":
        raise TypeError("samples of dtype bool: give float or int samples")
    if kind == "c":
        raise TypeError("samples of dtype %s: complex samples are not audio; give float or int samples" % a.dtype)
    raise TypeError("samples of dtype %s: give float or int samples" % a.dtype)


def as_samples(y, allow_empty=False):
    """y (samples,) or (channels, samples) -> (float32 (channels, samples), was 1-D)."""
    if hasattr(y, "__cuda_array_interface__") or hasattr(y, "__dlpack_device__") and not isinstance(y, np.ndarray):
        # a device array the caller sent down the host path (gpu.to_host did not): refuse
        # rather than let NumPy guess
        try:
            a = np.asarray(y)
        except Exception as e:  # noqa: BLE001 - the framework's own refusal, reworded
            raise TypeError("samples: a device array where host samples are needed (%s)" % e) from None
    else:
        a = np.asarray(y)
    if a.dtype == object:
        raise TypeError("samples must be a numeric array, not objects")
    if a.ndim == 1:
        a2, one = a[None, :], True
    elif a.ndim == 2:
        a2, one = a, False
    else:
        raise ValueError("samples: shape %s: (samples,) or (channels, samples) is needed" % (a.shape,))
    if a2.shape[0] < 1:
        raise ValueError("samples: no channel")
    if a2.shape[1] == 0 and not allow_empty:
        raise ValueError("samples: no samples, no frame")
    return to_float32(a2), one


def interleave(x):
    """(channels, samples) float32 -> the interleaved, C-contiguous buffer the library reads."""
    if x.shape[0] == 1:
        return np.ascontiguousarray(x[0])
    return np.ascontiguousarray(x.T)


def parse_channel(channel):
    """ "mix" -> CHANNEL_MIX, "all" -> CHANNEL_ALL, an index (int, or its digits) -> itself."""
    if isinstance(channel, str):
        if channel == "mix":
            return _spectro.CHANNEL_MIX
        if channel == "all":
            return _spectro.CHANNEL_ALL
        if channel.isdigit():
            return int(channel)
        raise ValueError('channel %r: "mix", "all" or an index from 0' % channel)
    if isinstance(channel, bool) or not isinstance(channel, (int, np.integer)):
        raise TypeError('channel must be "mix", "all" or an int, not %s' % type(channel).__name__)
    if channel < 0:
        raise ValueError('channel %d: "mix", "all" or an index from 0' % channel)
    if channel > 2**31 - 1:
        raise ValueError("channel %d: out of range" % channel)
    return int(channel)
