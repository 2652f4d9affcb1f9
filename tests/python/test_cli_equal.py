"""spectro.load + spectro.spectrogram against the program's --dump: equal, byte for byte."""
import re

import numpy as np
import pytest

import spectro
from conftest import asset

FILES = ["sine_1000hz_48k_f32.wav", "stereo_1500l_3000r_48k_s16.wav", "two_tone_48k.flac", "sine_513hz_8k_u8.wav",
         "sine_2250hz_48k_s24.wav", "chirp_100_20k_48k_s16.wav", "short_3000_samples_48k_f32.wav",
         "nonfinite_48k_f32.wav", "eight_channels_48k_s16.wav"]


def test_version_is_the_programs(cli):
    out = cli("--version").stdout
    assert re.match(r"spectro (\S+)", out).group(1) == spectro.__version__


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("channel", ["mix", "all"])
def test_file_equals_dump(cli, tmp_path, name, channel):
    y, sr = spectro.load(asset(name))
    assert y.dtype == np.float32 and y.ndim == 2
    out = tmp_path / "d.npy"
    cli("-b", "cpu", "-c", channel, "--dump", out, asset(name))
    want = np.load(out)
    got = spectro.spectrogram(y, sr=sr, channel=channel, backend="cpu")
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.array_equal(got, want)


@pytest.mark.parametrize("n,hop,window", [(4096, None, "hann"), (256, 100, "kaiser:8"), (1024, 1, "flattop"),
                                          (16, 7, "rect"), (2048, 3000, "gauss:0.3"), (512, 512, "blackman-harris")])
def test_settings_equal_dump(cli_dump, rng, n, hop, window):
    y = (rng.standard_normal(24000) * 0.3).astype(np.float32)
    opts = ["-b", "cpu", "-n", n, "-w", window] + (["--hop", hop] if hop else [])
    want, meta = cli_dump(y, 44100, *opts)
    got = spectro.spectrogram(y, sr=44100, n_fft=n, hop_length=hop, window=window, backend="cpu")
    assert meta["fft_size"] == n
    assert np.array_equal(got, want)


@pytest.mark.parametrize("dtype", ["<i2", "<i4", "u1", "<f8", "<f4"])
@pytest.mark.parametrize("channels", [1, 3])
def test_dtypes_equal_raw_pcm(cli_dump, rng, dtype, channels):
    """Int samples are scaled as the program scales the same PCM (--raw-format)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        y = rng.uniform(-1, 1, (channels, 9000)).astype(dt)
    else:
        info = np.iinfo(dt)
        y = rng.integers(info.min, info.max, (channels, 9000), endpoint=True).astype(dt)
        y[:, :4] = [info.min, info.max, 0, 1]  # the ends of the range
    for channel in ["mix", "all", "1" if channels > 1 else "0"]:
        want, _ = cli_dump(y[0] if channels == 1 else y, 22050, "-b", "cpu", "-n", 1024, "-c", channel)
        got = spectro.spectrogram(y[0] if channels == 1 else y, sr=22050, n_fft=1024, channel=channel,
                                  backend="cpu")
        assert np.array_equal(got, want), (dtype, channel)


@pytest.mark.parametrize("dtype", ["i1", "<u2", "<u4", "<i8", "<f2"])
def test_other_dtypes_scale_as_pcm(rng, dtype):
    """Widths the program has no raw encoding for follow the same rule: x / 2^(bits-1)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        y = rng.uniform(-1, 1, 5000).astype(dt)
        ref = y.astype(np.float32)
    else:
        info = np.iinfo(dt)
        y = rng.integers(info.min, info.max, 5000, endpoint=True, dtype=dt)
        bits = dt.itemsize * 8
        off = (1 << (bits - 1)) if dt.kind == "u" else 0
        ref = ((y.astype(np.float64) - off) / 2.0 ** (bits - 1)).astype(np.float32)
    assert np.array_equal(spectro.spectrogram(y, sr=8000, n_fft=256), spectro.spectrogram(ref, sr=8000, n_fft=256))


def test_load_range_is_a_slice(cli):
    y, sr = spectro.load(asset("chirp_100_20k_48k_s16.wav"))
    part, sr2 = spectro.load(asset("chirp_100_20k_48k_s16.wav"), start=0.25, end=0.5)
    assert sr2 == sr
    assert np.array_equal(part, y[:, int(0.25 * sr):int(0.5 * sr)])


def test_load_range_equals_dump(cli, tmp_path):
    y, sr = spectro.load(asset("two_tone_48k_s16.wav"), start=0.1, end=0.4)
    out = tmp_path / "d.npy"
    cli("-b", "cpu", "--start", "0.1", "--end", "0.4", "--dump", out, asset("two_tone_48k_s16.wav"))
    assert np.array_equal(spectro.spectrogram(y, sr=sr, backend="cpu"), np.load(out))
