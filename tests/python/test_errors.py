"""Bad arguments: ValueError, TypeError or OSError with the library's one line; no crash."""
import numpy as np
import pytest

import spectro
from conftest import asset

Y = np.zeros(8000, np.float32)


@pytest.mark.parametrize("kw,exc,text", [
    ({"n_fft": 1000}, ValueError, "fft_size 1000"),
    ({"n_fft": 8}, ValueError, "fft_size 8"),
    ({"n_fft": 1 << 23}, ValueError, "fft_size"),
    ({"hop_length": 0}, ValueError, "hop_length 0"),
    ({"window": "hanx"}, ValueError, "window"),
    ({"window": "kaiser:x"}, ValueError, "window"),
    ({"backend": "gpu"}, ValueError, "backend"),
    ({"channel": 1}, ValueError, "channel 1"),
    ({"channel": "left"}, ValueError, "channel"),
    ({"channel": -3}, ValueError, "channel"),
    ({"sr": 0}, ValueError, "sr 0"),
    ({"sr": -5}, ValueError, "sr"),
    ({"n_fft": 4096.0}, TypeError, "n_fft"),
    ({"window": None}, TypeError, "window"),
    ({"channel": 1.5}, TypeError, "channel"),
    ({"sr": "48000"}, TypeError, "sr"),
])
def test_bad_settings(kw, exc, text):
    args = {"sr": 8000}
    args.update(kw)
    with pytest.raises(exc, match=text) as e:
        spectro.spectrogram(Y, **args)
    assert "\n" not in str(e.value)
    assert "--" not in str(e.value)  # the library names fields, never the program's options


@pytest.mark.parametrize("y,exc,text", [
    (np.zeros(0, np.float32), ValueError, "no samples"),
    (np.zeros((2, 0), np.float32), ValueError, "no samples"),
    (np.zeros((0, 10), np.float32), ValueError, "no channel"),
    (np.zeros((2, 3, 4), np.float32), ValueError, "shape"),
    (np.zeros(10, np.complex64), TypeError, "complex"),
    (np.zeros(10, bool), TypeError, "bool"),
    (np.array(["a", "b"]), TypeError, "dtype"),
    (np.array([object(), 1], dtype=object), TypeError, "numeric"),
])
def test_bad_samples(y, exc, text):
    with pytest.raises(exc, match=text):
        spectro.spectrogram(y, sr=8000, n_fft=16)


def test_load_errors(tmp_path):
    with pytest.raises(OSError, match="no such file"):
        spectro.load(str(tmp_path / "missing.wav"))
    with pytest.raises(OSError, match="not_audio.wav"):
        spectro.load(asset("not_audio.wav"))
    with pytest.raises(OSError, match="empty"):
        spectro.load(asset("empty.wav"))
    with pytest.raises(ValueError):
        spectro.load(asset("sine_1000hz_48k_f32.wav"), start=0.5, end=0.25)
    with pytest.raises(TypeError):
        spectro.load(12)


def test_load_accepts_pathlike():
    from pathlib import Path
    y, sr = spectro.load(Path(asset("sine_1000hz_48k_f32.wav")))
    assert sr == 48000 and y.shape[0] == 1


def test_reduction_errors():
    y = np.random.default_rng(1).uniform(-1, 1, 48000).astype(np.float32)
    with pytest.raises(ValueError, match="mode"):
        spectro.average(y, sr=48000, mode="median")
    with pytest.raises(ValueError, match="fraction"):
        spectro.bands(y, sr=48000, fraction=5)
    with pytest.raises(ValueError, match="weighting"):
        spectro.bands(y, sr=48000, weighting="B")
    with pytest.raises(ValueError):
        spectro.tone(y, sr=48000, freq=30000)
    with pytest.raises(ValueError):
        spectro.peaks(y, sr=48000, fmin=30000, fmax=40000)


def test_private_layer_checks_sizes():
    """The extension itself refuses buffers that do not fit, whatever the glue does."""
    from spectro import _spectro
    a = _spectro.Analyzer(8000, 2, 64, 16, "hann", -1, "cpu")
    with pytest.raises(ValueError, match="whole frames"):
        a.spectrogram(np.zeros(3, np.float32), np.empty((10, 33), np.float32))
    with pytest.raises(ValueError):  # out too small for the frames
        a.spectrogram(np.zeros(2000, np.float32), np.empty((1, 33), np.float32))
    with pytest.raises((TypeError, ValueError)):
        a.push(np.zeros(3, np.float32)[::2])  # not contiguous
    with pytest.raises(ValueError, match="whole spectra"):
        a.average(np.zeros(10, np.float32), 0, False, np.empty(33, np.float32))
    with pytest.raises(ValueError, match="room"):
        a.average(np.zeros(33, np.float32), 0, False, np.empty(3, np.float32))
    with pytest.raises(TypeError):
        _spectro.dlpack_info(object())


def test_objects_never_made_refuse_calls():
    """The extension's types made with __new__ alone (no __init__) refuse every call."""
    from spectro import _spectro
    src = _spectro.Source.__new__(_spectro.Source)
    src.close()
    with pytest.raises(ValueError, match="closed"):
        src.read(np.empty(8, np.float32))
    a = _spectro.Analyzer.__new__(_spectro.Analyzer)
    for call in (a.info, a.finish, lambda: a.push(np.zeros(4, np.float32)),
                 lambda: a.spectrogram(np.zeros(4, np.float32), np.empty(4, np.float32)),
                 lambda: a.frame_times(np.empty(2)), lambda: _spectro.Bands(a)):
        with pytest.raises(ValueError, match="not made"):
            call()
    b = _spectro.Bands.__new__(_spectro.Bands)
    with pytest.raises(ValueError, match="not made"):
        b.table()


def test_random_arguments_raise_or_work(rng):
    """Random settings and inputs, mostly good, some bad: every call returns or raises
    ValueError, TypeError or OSError (a crash would take pytest down with it)."""
    good = {"n_fft": [16, 64, 1024], "hop_length": [None, 1, 7, 5000], "window": ["hann", "kaiser:3", "flattop"],
            "channel": ["mix", "all", 0, 1], "backend": ["cpu", "auto"], "sr": [100, 8000, 44100]}
    bad = {"n_fft": [100, 0, -4, 2.0, None, 1 << 23], "hop_length": [0, -1, 10**20, 1.5, "3"],
           "window": ["gauss:0", "gauss:-1", "kaiser:", ":", "", "flattop:2", 5],
           "channel": [5, -1, "2x", None], "backend": ["", "CPU", "gpu"], "sr": [0, 2**40, 44100.5, None]}
    inputs = [np.zeros(0, np.float32), rng.uniform(-1, 1, 300).astype(np.float32),
              rng.integers(-9, 9, (3, 2000)).astype(np.int8), np.full(50, np.nan, np.float32),
              np.full((2, 70), np.inf), [0.5, -0.5, 0.25], [[1, 2], [3, 4]], "text", None, 3.0]
    calls = [spectro.spectrogram, spectro.stft, spectro.peaks, spectro.average, spectro.tone, spectro.bands]
    worked = 0
    for i in range(300):
        kw = {k: (bad[k][rng.integers(len(bad[k]))] if rng.random() < 0.1 else good[k][rng.integers(len(good[k]))])
              for k in good}
        y = inputs[rng.integers(len(inputs))]
        fn = calls[rng.integers(len(calls))]
        try:
            fn(y, **kw)
            worked += 1
        except (ValueError, TypeError, OSError):
            pass
    assert worked > 20  # the good paths ran too


def test_bands_with_nyquist_below_the_band_name_the_range():
    """Nyquist below the band range: a line naming fmin/fmax (bands_create sized its tables
    from a negative count and said 'out of memory')."""
    y = np.random.default_rng(2).uniform(-1, 1, 2000).astype(np.float32)
    with pytest.raises(ValueError, match="fmin"):
        spectro.bands(y, sr=1, n_fft=64)
