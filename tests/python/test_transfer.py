"""spectro.transfer: the averaged H1 transfer function, coherence and delay of two signals,
against scipy (freqz of the known filter, coherence) and against the program's
--transfer 0:1 --dump of the same samples."""
import json

import numpy as np
import pytest
import scipy.signal

import spectro

from conftest import write_raw

SR, N, HOP, DELAY = 48000, 2048, 512, 21


def pair(rng, seconds=8):
    """White noise, and the same noise through a peak (bandpass resonator mixed in) and a
    low-pass, delayed DELAY samples, with noise 60 dB down."""
    x = rng.standard_normal(SR * seconds + 256) * 0.1
    b1, a1 = scipy.signal.iirpeak(2000, 3, fs=SR)
    b2, a2 = scipy.signal.butter(2, 8000, fs=SR)
    b = np.polyadd(np.convolve(b1, b2), np.convolve(a1, b2) * 0.5)  # (peak + 0.5) * low-pass
    a = np.convolve(a1, a2)
    y = scipy.signal.lfilter(b, a, x)
    y = np.concatenate([np.zeros(DELAY), y])[:len(x)]
    y = y + rng.standard_normal(len(y)) * np.std(y) * 1e-3
    return x[256:].astype(np.float32), y[256:].astype(np.float32), (b, a)


def test_against_scipy(rng):
    x, y, (b, a) = pair(rng)
    t = spectro.transfer(x, y, sr=SR, n_fft=N, hop_length=HOP)
    assert set(t) == {"freq_hz", "magnitude_db", "phase_deg", "coherence", "delay_s", "averages"}
    assert t["magnitude_db"].shape == (N // 2 + 1,) and t["magnitude_db"].dtype == np.float32
    assert t["averages"] == spectro.frame_count(len(x), N, HOP)
    f = t["freq_hz"].astype(np.float64)
    np.testing.assert_allclose(f, np.arange(N // 2 + 1) * SR / N)
    _, h = scipy.signal.freqz(b, a, worN=f, fs=SR)
    ok = t["coherence"] > 0.99
    assert ok.sum() > 500
    assert np.abs(t["magnitude_db"][ok] - 20 * np.log10(np.abs(h[ok]))).max() < 0.1
    ph = np.angle(np.exp(1j * (np.deg2rad(t["phase_deg"][ok]) + 2 * np.pi * f[ok] * DELAY / SR - np.angle(h[ok]))))
    assert np.abs(np.rad2deg(ph)).max() < 2.0
    _, c = scipy.signal.coherence(x, y, fs=SR, window="hann", nperseg=N, noverlap=N - HOP, detrend=False)
    assert np.abs(t["coherence"] - c).max() < 0.01
    assert abs(t["delay_s"] * SR - DELAY) < 1.0


def test_equals_the_program(rng, cli, tmp_path):
    x, y, _ = pair(rng, seconds=2)
    t = spectro.transfer(x, y, sr=SR, n_fft=N, hop_length=HOP, window="blackman")
    raw, out = tmp_path / "in.raw", tmp_path / "tf.npy"
    enc, ch = write_raw(raw, np.stack([x, y]))
    cli("--raw-format", "%s,%d,%d" % (enc, SR, ch), "--transfer", "0:1", "-n", N, "--hop", HOP, "--window",
        "blackman", "--dump", out, raw)
    table = np.load(out)
    with open(str(out) + ".json") as f:
        meta = json.load(f)
    got = np.stack([t["freq_hz"], t["magnitude_db"], t["phase_deg"], t["coherence"]], axis=1)
    # the library's frames are scaled (c_k X_k) and the program's are not: float rounding apart
    np.testing.assert_allclose(got[:, 0], table[:, 0])
    ok = table[:, 3] > 0.5
    np.testing.assert_allclose(got[ok, 1], table[ok, 1], atol=1e-3)
    np.testing.assert_allclose(got[ok, 2], table[ok, 2], atol=1e-2)
    np.testing.assert_allclose(got[:, 3], table[:, 3], atol=1e-4)
    assert abs(t["delay_s"] - meta["delay_s"]) * SR < 0.01
    assert t["averages"] == meta["averages"]


def test_bad_arguments(rng):
    x = rng.standard_normal(4096).astype(np.float32)
    with pytest.raises(ValueError, match="length"):
        spectro.transfer(x, x[:-1], sr=SR)
    with pytest.raises(ValueError, match="one channel"):
        spectro.transfer(np.stack([x, x]), x, sr=SR)
    with pytest.raises(ValueError):
        spectro.transfer(x, x, sr=SR, n_fft=1000)
