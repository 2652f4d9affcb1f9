"""spectro.pitch and spectro.bandwidth (the C API's spectro_pitch and
spectro_analyzer_bandwidth): the program's --pitch and --bandwidth on the same samples."""
import json

import numpy as np
import pytest

import spectro

RATE = 48000


def _wav(path, x, rate=RATE):
    import wave
    y = np.clip(np.atleast_2d(x), -1, 1)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(y.shape[0])
        w.setsampwidth(2)
        w.setframerate(rate)
        q = (y * 32767).astype("<i2")
        w.writeframes(q.T.tobytes())
    # what the program reads back: the 16-bit samples over 32768
    return (q / 32768.0).astype(np.float32)


def _glide(seconds=2.0):
    t = np.arange(int(seconds * RATE)) / RATE
    f = 110.0 * 2 ** (t / seconds * 2)          # 110 -> 440 Hz
    phase = 2 * np.pi * np.cumsum(f) / RATE
    return 0.3 * np.sin(phase) + 0.15 * np.sin(2 * phase) + 0.05 * np.sin(3 * phase)


def test_pitch_equals_the_program(cli, tmp_path):
    path = tmp_path / "g.wav"
    y = _wav(path, np.stack([_glide(), 0.5 * _glide()]))
    p = spectro.pitch(y, sr=RATE, n_fft=2048, hop_length=512, fmin=60, fmax=1000)
    out = cli("--pitch", "-n", "2048", "--hop", "512", "--fmin", "60", "--fmax", "1000", path).stdout
    rows = np.array([[float(v) for v in line.split("\t")] for line in out.splitlines()])
    assert rows.shape[0] == len(p.f0_hz) > 100
    assert np.allclose(rows[:, 0], p.time_s, atol=1e-6)
    assert np.allclose(rows[:, 1], p.f0_hz, atol=6e-4)
    assert np.allclose(rows[:, 2], p.confidence, atol=6e-4)
    voiced = p.f0_hz > 0
    assert voiced.mean() > 0.9 and 100 < p.f0_hz[voiced].min() and p.f0_hz[voiced].max() < 460


def test_pitch_short_and_bad():
    p = spectro.pitch(np.zeros(100, dtype=np.float32), sr=RATE, n_fft=2048)
    assert len(p.f0_hz) == 1 and p.f0_hz[0] == 0.0 and p.time_s[0] == 1024 / RATE
    with pytest.raises(ValueError, match="fmin|fft_size"):
        spectro.pitch(np.zeros(4096, dtype=np.float32), sr=RATE, n_fft=256, fmin=20)
    with pytest.raises(ValueError, match="hop"):
        spectro.pitch(np.zeros(4096, dtype=np.float32), sr=RATE, n_fft=2048, hop_length=4096)


def _low_passed(cut_hz, seconds=4.0):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(int(seconds * RATE))
    X = np.fft.rfft(x)
    X[np.fft.rfftfreq(len(x), 1 / RATE) > cut_hz] *= 1e-5
    y = np.fft.irfft(X, len(x))
    return 0.25 * y / np.abs(y).max()


@pytest.mark.parametrize("cut", [None, 16000.0])
def test_bandwidth_equals_the_program(cli, tmp_path, cut):
    x = _low_passed(cut) if cut else 0.25 * np.random.default_rng(4).standard_normal(4 * RATE)
    path = tmp_path / "n.wav"
    y = _wav(path, x)
    mine = spectro.bandwidth(y, sr=RATE, backend="cpu")
    theirs = json.loads(cli("--bandwidth", "-b", "cpu", path).stdout)
    for k in ("cutoff_hz", "below_db", "above_db", "drop_db", "nyquist_hz"):
        assert mine[k] == pytest.approx(theirs[k], abs=0.011), k
    assert mine["verdict"] == theirs["verdict"] and mine["encoders"] == theirs["encoders"]
    if cut:
        assert not mine["full_band"] and abs(mine["cutoff_hz"] - cut) < 300
    else:
        assert mine["full_band"] and mine["verdict"] == "full-band"


def test_pitch_tracker_equals_pitch():
    """spectro.PitchTracker frame by frame (spectro_pitch_tracker) gives spectro.pitch's
    numbers for the same frames, and a 440 Hz tone reads 440 Hz."""
    n, hop = 2048, 512
    y = _glide().astype(np.float32)
    p = spectro.pitch(y, sr=RATE, n_fft=n, hop_length=hop, fmin=60, fmax=1000)
    t = spectro.PitchTracker(sr=RATE, n_fft=n, fmin=60, fmax=1000)
    got = [t.estimate(y[f * hop:f * hop + n]) for f in range(len(p.f0_hz))]
    assert len(got) > 100
    assert np.array_equal([g[0] for g in got], p.f0_hz)
    assert np.array_equal([g[1] for g in got], p.confidence)
    tone = 0.5 * np.sin(2 * np.pi * 440.0 * np.arange(n) / RATE)  # float64 in: converted
    f0, conf = t.estimate(tone)
    assert abs(f0 - 440.0) < 0.5 and conf > 0.95
    assert t.estimate(np.zeros(n, dtype=np.float32))[0] == 0.0


def test_pitch_tracker_refused():
    with pytest.raises(ValueError, match="fmin 50 Hz at 48000 Hz needs fft_size 2048"):
        spectro.PitchTracker(sr=RATE, n_fft=1024)
    t = spectro.PitchTracker(sr=RATE, n_fft=2048)
    with pytest.raises(ValueError, match="2048"):
        t.estimate(np.zeros(100, dtype=np.float32))
    with pytest.raises(ValueError, match="1-D"):
        t.estimate(np.zeros((2, 2048), dtype=np.float32))
