"""spectro.loudness against the program's --loudness and the EBU test signals."""
import json

import numpy as np
import pytest

import spectro
from conftest import asset, write_raw

KEYS = ["integrated_lufs", "loudness_range_lu", "momentary_max_lufs", "short_term_max_lufs", "true_peak_dbtp",
        "sample_peak_dbfs"]


def sines(segs, sr=48000, channels=2):
    """1 kHz sine segments [(dBFS peak, seconds)], the same on every channel: (channels, samples)."""
    parts, t0 = [], 0
    for db, dur in segs:
        n = int(round(dur * sr))
        parts.append(10 ** (db / 20) * np.sin(2 * np.pi * 1000 * (np.arange(n) + t0) / sr))
        t0 += n
    return np.tile(np.concatenate(parts), (channels, 1)).astype(np.float32)


def test_ebu_3341_and_3342():
    # Tech 3341 case 3 (-23.0 LUFS) and Tech 3342 case 1 (LRA 10 LU)
    r = spectro.loudness(sines([(-36, 10), (-23, 60), (-36, 10)]), sr=48000)
    assert abs(r["integrated_lufs"] + 23.0) <= 0.1
    r = spectro.loudness(sines([(-20, 20), (-30, 20)], channels=1), sr=48000)
    assert abs(r["loudness_range_lu"] - 10.0) <= 0.5


@pytest.mark.parametrize("name", ["stereo_1500l_3000r_48k_s16.wav", "chirp_100_20k_48k_s16.wav"])
def test_equals_cli(cli, name):
    y, sr = spectro.load(asset(name))
    got = spectro.loudness(y, sr=sr)
    want = json.loads(cli("--loudness", asset(name)).stdout)
    for k in KEYS:  # the program prints four decimals
        if want[k] is None:
            assert got[k] is None, k
        else:
            assert round(got[k], 4) == pytest.approx(want[k], abs=1e-4), k
    assert got["frames"] == y.shape[1]


def test_int_samples_and_mono(cli, tmp_path):
    # int16 samples are read as the program reads 16-bit PCM
    rng = np.random.default_rng(3)
    y = (rng.standard_normal((2, 48000 * 2)) * 3000).astype(np.int16)
    path = tmp_path / "x.raw"
    enc, ch = write_raw(path, y)
    want = json.loads(cli("--loudness", "--raw-format", "%s,48000,%d" % (enc, ch), path).stdout)
    got = spectro.loudness(y, sr=48000)
    assert round(got["integrated_lufs"], 4) == pytest.approx(want["integrated_lufs"], abs=1e-4)
    mono = spectro.loudness(y[0].astype(np.float32) / 32768, sr=48000)
    assert mono["frames"] == y.shape[1]


def test_series_and_weights():
    y = sines([(-30, 4), (-20, 4)])
    r = spectro.loudness(y, sr=48000, series=True)
    m, s = r["momentary_lufs"], r["short_term_lufs"]
    assert m.shape == s.shape == (80,)
    assert np.isnan(m[:3]).all() and np.isnan(s[:29]).all()
    np.testing.assert_allclose(m[45:], -20.0, atol=0.1)
    # one channel weighted 0: the other alone, 3.01 dB lower
    half = spectro.loudness(y, sr=48000, weights=[1.0, 0.0])
    assert half["integrated_lufs"] == pytest.approx(r["integrated_lufs"] - 10 * np.log10(2), abs=0.01)


def test_bad_input():
    with pytest.raises(OSError, match="0.4 s"):
        spectro.loudness(np.zeros(48000 // 4, np.float32), sr=48000)
    with pytest.raises(ValueError, match="sample_rate"):
        spectro.loudness(np.zeros(48000, np.float32), sr=100)
    with pytest.raises(ValueError, match="weights"):
        spectro.loudness(np.zeros((2, 48000), np.float32), sr=48000, weights=[1.0])
    with pytest.raises(ValueError, match="weights"):
        spectro.loudness(np.zeros((2, 48000), np.float32), sr=48000, weights=[1.0, -1.0])
    assert spectro.loudness(np.zeros(48000, np.float32), sr=48000)["integrated_lufs"] is None  # silence
