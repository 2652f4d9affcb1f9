"""Analyzer.stream(): any chunking gives exactly the one-shot result; Analyzer reuse."""
import numpy as np
import pytest

import spectro


def chunks(rng, total, most):
    """Random cut points: chunks of 0 .. most samples (empty pushes included)."""
    cuts, at = [0], 0
    while at < total:
        at = min(total, at + int(rng.integers(0, most + 1)))
        cuts.append(at)
    return zip(cuts[:-1], cuts[1:])


@pytest.mark.parametrize("channel", ["mix", "all", 1])
@pytest.mark.parametrize("complex_out", [False, True])
def test_any_chunking_equals_one_shot(rng, channel, complex_out):
    y = rng.uniform(-1, 1, (2, 20000)).astype(np.float32)
    an = spectro.Analyzer(sr=16000, n_fft=512, hop_length=160, channel=channel)
    whole = an.stft(y) if complex_out else an.spectrogram(y)
    axis = 1 if channel == "all" else 0
    for most in (1, 37, 511, 513, 5000, 25000):
        s = an.stream(complex=complex_out)
        parts = [s.push(y[:, a:b]) for a, b in chunks(rng, y.shape[1], most)]
        parts.append(s.flush())
        got = np.concatenate(parts, axis=axis)
        assert got.dtype == whole.dtype
        assert np.array_equal(got, whole), most


def test_push_returns_the_frames_completed():
    an = spectro.Analyzer(sr=8000, n_fft=64, hop_length=16)
    s = an.stream()
    assert s.push(np.zeros(63, np.float32)).shape == (0, 33)
    assert s.push(np.zeros(1, np.float32)).shape == (1, 33)
    assert s.push(np.zeros(32, np.float32)).shape == (2, 33)
    assert s.flush().shape == (0, 33)
    with pytest.raises(ValueError, match="ended"):
        s.push(np.zeros(4, np.float32))


def test_short_stream_gives_one_padded_frame(rng):
    an = spectro.Analyzer(sr=8000, n_fft=1024)
    y = rng.uniform(-1, 1, 300).astype(np.float32)
    s = an.stream()
    assert s.push(y).shape[0] == 0
    last = s.flush()
    assert np.array_equal(last, an.spectrogram(y))
    assert an.stream().flush().shape == (0, 513)  # nothing pushed, no frame


def test_stream_int_pcm_and_channels_fixed(rng):
    y = rng.integers(-32768, 32767, (2, 5000), dtype=np.int16)
    an = spectro.Analyzer(sr=8000, n_fft=256)
    s = an.stream()
    got = np.concatenate([s.push(y[:, :1234]), s.push(y[:, 1234:]), s.flush()])
    assert np.array_equal(got, an.spectrogram(y))
    s = an.stream()
    s.push(y)
    with pytest.raises(ValueError, match="channels"):
        s.push(y[0])


def test_analyzer_reused_gives_fresh_results(rng):
    an = spectro.Analyzer(sr=8000, n_fft=256, hop_length=64)
    a = rng.uniform(-1, 1, 4000).astype(np.float32)
    b = rng.uniform(-1, 1, 3000).astype(np.float32)
    first = an.spectrogram(a)
    an.spectrogram(b)
    s = an.stream()
    s.push(b[:100])
    assert np.array_equal(an.spectrogram(a), first)  # a stream in progress does not disturb it
    # the one-shot call on the backend the analyzer runs (auto may weigh the two apart)
    backend = an.info()["backend"]
    assert np.array_equal(spectro.spectrogram(a, sr=8000, n_fft=256, hop_length=64, backend=backend), first)
