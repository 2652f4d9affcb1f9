"""The program's transforms (docs/transforms.md) against librosa, a second implementation:
librosa's filters applied to the program's own linear power spectrum (its --dump in dBFS,
converted: p = 10^(dB/10)), so the scaling conventions cancel.

- mel (Slaney scale, area-normalised, fmin/fmax): within 0.01 dB where the band is above
  -150 dBFS (silence included: the floor of -200 dBFS is a power of 1e-20); MFCC (DCT-II ortho of the mel dB, 128 bands by default): within 2e-3; chroma
  (A4 = 440, norm=inf per frame): within 1e-3;
- on a music recording (assets/demo.flac), a two-tone file, and a stereo file with
  --channel all; with --start/--end the rows are the whole file's rows of that range.

librosa comes from PyPI (scripts/test.sh installs it into build/pyenv); without it the
module is skipped.
"""
import json

import numpy as np
import pytest

from conftest import asset

librosa = pytest.importorskip("librosa")


def dump(cli, tmp_path, name, *args):
    out = tmp_path / name
    cli(*args, "--dump", out)
    return np.load(out), json.load(open(str(out) + ".json"))


def power(cli, tmp_path, src, *args):
    lin, meta = dump(cli, tmp_path, "lin.npy", src, *args)
    return 10.0 ** (lin.astype(np.float64) / 10.0), meta


def mel_ref(p, meta, bands, fmin=0.0, fmax=None):
    fb = librosa.filters.mel(sr=meta["sample_rate"], n_fft=meta["fft_size"], n_mels=bands, fmin=fmin, fmax=fmax,
                             htk=False, norm="slaney", dtype=np.float64)
    return librosa.power_to_db(p @ fb.T, ref=1.0, amin=1e-20, top_db=None)


def close_db(got, ref, tol, floor=-150.0):
    keep = ref > floor
    assert keep.mean() > 0.1
    err = np.abs(got.astype(np.float64) - ref)[keep]
    assert err.max() <= tol, "max error %.4g dB" % err.max()


@pytest.mark.parametrize("src,args", [("demo.flac", ()), ("two_tone_48k_s16.wav", ("-n", "2048"))])
def test_mel(cli, tmp_path, src, args):
    p, meta = power(cli, tmp_path, asset(src), *args)
    got, m2 = dump(cli, tmp_path, "mel.npy", asset(src), *args, "--mel", 64)
    assert got.shape == (p.shape[0], 64)
    assert m2["transform"]["name"] == "mel" and m2["transform"]["bands"] == 64
    ref = mel_ref(p, meta, 64)
    close_db(got, ref, 0.01)
    fb_centres = librosa.mel_frequencies(n_mels=66, fmin=0.0, fmax=meta["sample_rate"] / 2)[1:-1]
    assert np.allclose(m2["freqs_hz"], fb_centres, rtol=1e-6)


def test_mel_range(cli, tmp_path):
    p, meta = power(cli, tmp_path, asset("two_tone_48k_s16.wav"))
    got, m2 = dump(cli, tmp_path, "mel.npy", asset("two_tone_48k_s16.wav"), "--mel", 40, "--fmin", 300,
                   "--fmax", 8000)
    assert m2["transform"]["fmin"] == 300 and m2["transform"]["fmax"] == 8000
    close_db(got, mel_ref(p, meta, 40, 300.0, 8000.0), 0.01)


def test_mel_channels_and_range(cli, tmp_path):
    src = asset("stereo_1500l_3000r_48k_s16.wav")
    p, meta = power(cli, tmp_path, src, "--channel", "all")
    got, _ = dump(cli, tmp_path, "mel.npy", src, "--channel", "all", "--mel", 32)
    assert got.shape == (2, p.shape[1], 32)
    close_db(got, mel_ref(p, meta, 32), 0.01)
    part, _ = dump(cli, tmp_path, "part.npy", src, "--channel", "all", "--mel", 32, "--start", 0.25, "--end", 0.5)
    first = int(round((0.25 * meta["sample_rate"]) / meta["hop"]))
    assert np.array_equal(part, got[:, first:first + part.shape[1]])


@pytest.mark.parametrize("k,bands", [(20, None), (13, 40)])
def test_mfcc(cli, tmp_path, k, bands):
    src = asset("demo.flac")
    p, meta = power(cli, tmp_path, src)
    args = ("--mfcc", k) + (("--mel", bands) if bands else ())
    got, m2 = dump(cli, tmp_path, "mfcc.npy", src, *args)
    nb = bands or 128
    assert got.shape == (p.shape[0], k) and m2["transform"]["bands"] == nb
    ref = librosa.feature.mfcc(S=mel_ref(p, meta, nb).T, n_mfcc=k, dct_type=2, norm="ortho").T
    err = np.abs(got - ref).max()
    assert err <= 2e-3, err


def test_chroma(cli, tmp_path):
    src = asset("demo.flac")
    p, meta = power(cli, tmp_path, src)
    got, m2 = dump(cli, tmp_path, "chroma.npy", src, "--chroma")
    fb = librosa.filters.chroma(sr=meta["sample_rate"], n_fft=meta["fft_size"], tuning=0.0, dtype=np.float64)
    raw = fb @ p.T
    ref = librosa.util.normalize(raw, norm=np.inf, axis=0).T
    assert got.shape == ref.shape == (p.shape[0], 12)
    err = np.abs(got - ref).max()
    assert err <= 1e-3, err
    assert m2["transform"]["classes"][0] == "C"


def sharp_tones(path, cents, rate=48000, seconds=2.0):
    """Four tones (E5, A5, C#6, E6) `cents` sharp of A4 = 440 Hz, as 16-bit WAV."""
    import wave
    t = np.arange(int(seconds * rate)) / rate
    y = sum(0.2 * np.sin(2 * np.pi * 440.0 * 2 ** ((m - 69 + cents / 100.0) / 12) * t) for m in (76, 81, 85, 88))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((y * 32767).astype("<i2").tobytes())
    return path


@pytest.mark.parametrize("cents", [30, -20])
def test_chroma_tuning_auto(cli, tmp_path, cents):
    """--tuning auto: librosa's estimate_tuning of the program's own power spectrum, that
    tuning in the sidecar, the chroma librosa makes with it; the estimate near the truth."""
    src = sharp_tones(tmp_path / "sharp.wav", cents)
    p, meta = power(cli, tmp_path, src, "-n", 8192)
    got, m2 = dump(cli, tmp_path, "chroma.npy", src, "-n", 8192, "--chroma", "--tuning", "auto")
    est = librosa.estimate_tuning(S=p.T, sr=meta["sample_rate"], n_fft=meta["fft_size"])
    assert m2["transform"]["tuning_auto"] is True
    assert abs(m2["transform"]["tuning"] - est) < 1e-9, (m2["transform"]["tuning"], est)
    assert abs(est - cents / 100.0) <= 0.02, est
    assert abs(m2["transform"]["a4_hz"] - 440.0 * 2 ** (est / 12)) < 1e-6
    ref = librosa.feature.chroma_stft(S=p.T, sr=meta["sample_rate"], n_fft=meta["fft_size"], tuning=est).T
    err = np.abs(got - ref).max()
    assert err <= 1e-3, err
    # the tuning matters here: the chroma at 0 differs from it by far more
    plain, _ = dump(cli, tmp_path, "plain.npy", src, "-n", 8192, "--chroma")
    assert np.abs(plain - ref).max() > 1e-2


def test_chroma_tuning_given(cli, tmp_path):
    """--tuning T: librosa's chroma with that tuning."""
    src = sharp_tones(tmp_path / "sharp.wav", 30)
    p, meta = power(cli, tmp_path, src)
    got, m2 = dump(cli, tmp_path, "chroma.npy", src, "--chroma", "--tuning", 0.3)
    assert m2["transform"]["tuning"] == 0.3 and "tuning_auto" not in m2["transform"]
    ref = librosa.feature.chroma_stft(S=p.T, sr=meta["sample_rate"], n_fft=meta["fft_size"], tuning=0.3).T
    assert np.abs(got - ref).max() <= 1e-3
