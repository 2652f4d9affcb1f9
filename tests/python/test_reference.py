"""spectro.spectrogram and spectro.stft against SciPy, and the STFT's scale."""
import numpy as np
import pytest
import scipy.signal

import spectro

FLOOR_DB = -120.0
TOL_DB = 1e-3
ABS_AMP_TOL = 2e-7  # float32 round-off of a full-scale frame is ~1e-8: the slack near the floor


def assert_levels_close(got, want):
    """Levels (dB) agree to TOL_DB, or to ABS_AMP_TOL in amplitude where float32 has no more digits."""
    a, b = 10 ** (got.astype(np.float64) / 20), 10 ** (want / 20)
    bad = np.abs(a - b) > b * (10 ** (TOL_DB / 20) - 1) + ABS_AMP_TOL
    assert not bad.any(), (got[bad][:5], want[bad][:5])


def reference_db(x, n, hop, window):
    """DESIGN's levels in float64: a_k = 2|X_k|/sum(w) inside, |X_k|/sum(w) at DC and Nyquist."""
    w = scipy.signal.get_window(window, n)
    frames = 1 + (len(x) - n) // hop
    idx = np.arange(n)[None, :] + hop * np.arange(frames)[:, None]
    X = np.fft.rfft(x.astype(np.float64)[idx] * w, axis=1)
    a = np.abs(X) * 2 / w.sum()
    a[:, 0] /= 2
    a[:, -1] /= 2
    return 20 * np.log10(np.maximum(a, 1e-10)), X / w.sum() * np.r_[1, np.full(n // 2 - 1, 2.0), 1]


@pytest.mark.parametrize("window,scipy_window", [("hann", "hann"), ("blackman", "blackman"), ("rect", "boxcar"),
                                                 ("kaiser:8", ("kaiser", 8.0))])
def test_spectrogram_matches_scipy(rng, window, scipy_window):
    n, hop = 1024, 256
    t = np.arange(48000) / 48000
    x = (0.5 * np.sin(2 * np.pi * 1234.5 * t) + 0.01 * rng.standard_normal(t.size)).astype(np.float32)
    want, _ = reference_db(x, n, hop, scipy_window)
    got = spectro.spectrogram(x, sr=48000, n_fft=n, hop_length=hop, window=window)
    assert got.shape == want.shape
    assert_levels_close(got, want)


def test_scipy_stft_gives_the_same_levels(rng):
    """scipy.signal.stft (padded=False, boundary=None) scaled by sum(w) gives X/sum(w)."""
    n, hop = 2048, 512
    x = rng.uniform(-1, 1, 30000).astype(np.float32)
    _, _, Z = scipy.signal.stft(x.astype(np.float64), nperseg=n, noverlap=n - hop, window="hann", boundary=None,
                                padded=False, detrend=False, return_onesided=True)
    # scipy scales by 1/sum(w): |Z| is |X|/sum(w); the level doubles the inner bins
    a = np.abs(Z.T) * np.r_[1, np.full(n // 2 - 1, 2.0), 1]
    want = 20 * np.log10(np.maximum(a, 1e-10))
    got = spectro.spectrogram(x, sr=16000, n_fft=n, hop_length=hop)
    assert got.shape == want.shape
    assert_levels_close(got, want)


def test_stft_scale(rng):
    n, hop = 512, 128
    x = rng.uniform(-1, 1, 10000).astype(np.float32)
    Z = spectro.stft(x, sr=8000, n_fft=n, hop_length=hop)
    assert Z.dtype == np.complex64 and Z.shape == (1 + (10000 - n) // hop, n // 2 + 1)
    _, scaled = reference_db(x, n, hop, "hann")
    assert np.max(np.abs(Z - scaled)) < 1e-5
    # |Z| in dB is the spectrogram plus the constant 0 dB
    S = spectro.spectrogram(x, sr=8000, n_fft=n, hop_length=hop)
    db = 10 * np.log10(np.maximum(np.abs(Z.astype(np.complex128)) ** 2, 1e-20))
    assert_levels_close(S, db)


def test_full_scale_sine_reads_0_db():
    n = 4096
    k = 100
    x = np.sin(2 * np.pi * k * np.arange(n * 4) / n).astype(np.float32)
    S = spectro.spectrogram(x, sr=48000, n_fft=n)
    assert np.all(np.abs(S[:, k]) < 0.01)
    assert S.min() >= -200.0 and np.all(np.isfinite(S))


def test_frames_and_times():
    an = spectro.Analyzer(sr=1000, n_fft=64, hop_length=10)
    assert an.spectrogram(np.zeros(64 + 35, np.float32)).shape == (4, 33)
    assert an.spectrogram(np.zeros(5, np.float32)).shape == (1, 33)  # one zero-padded frame
    assert spectro.frame_count(99, 64, 10) == 4 and spectro.frame_count(0, 64, 10) == 0
    np.testing.assert_allclose(an.times(3), (np.arange(3) * 10 + 32) / 1000)
    np.testing.assert_allclose(an.frequencies()[:3], [0, 1000 / 64, 2000 / 64])
