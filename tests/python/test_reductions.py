"""peaks, average, tone and bands against the program's --peaks, --average, --tone, --bands."""
import json

import numpy as np
import pytest

import spectro
from conftest import asset, write_raw


@pytest.mark.parametrize("name,channel", [("two_tone_48k_s16.wav", "mix"), ("stereo_1500l_3000r_48k_s16.wav", "all"),
                                          ("chirp_100_20k_48k_s16.wav", "mix")])
def test_peaks_equal_cli(cli, name, channel):
    y, sr = spectro.load(asset(name))
    p = spectro.peaks(y, sr=sr, n_fft=2048, channel=channel, backend="cpu", fmin=200, fmax=15000)
    out = cli("-b", "cpu", "-n", 2048, "-c", channel, "--fmin", 200, "--fmax", 15000, "--peaks", asset(name)).stdout
    want = out.splitlines()
    if channel == "all":
        got = ["%d\t%.6f\t%.3f\t%.2f" % (c, t, f, d) for c in range(p.db.shape[0])
               for t, f, d in zip(p.time_s[c], p.freq_hz[c], p.db[c])]
        want = sorted(want, key=lambda l: int(l.split("\t")[0]))  # channel order, frames in order
    else:
        got = ["%.6f\t%.3f\t%.2f" % r for r in zip(p.time_s, p.freq_hz, p.db)]
    assert got == want


def test_short_input_peaks_and_times_equal_cli(cli):
    """An input shorter than n_fft: one frame, timed at its samples' centre, as the program's."""
    name = "short_3000_samples_48k_f32.wav"
    y, sr = spectro.load(asset(name))
    p = spectro.peaks(y, sr=sr, n_fft=4096, backend="cpu")
    want = cli("-b", "cpu", "-n", 4096, "--peaks", asset(name)).stdout.splitlines()
    assert ["%.6f\t%.3f\t%.2f" % r for r in zip(p.time_s, p.freq_hz, p.db)] == want
    a = spectro.Analyzer(sr=sr, n_fft=4096, backend="cpu")
    assert a.times(1, samples=y.shape[-1])[0] == pytest.approx(y.shape[-1] / 2 / sr)
    assert a.times(2)[1] == pytest.approx((1024 + 2048) / sr)


@pytest.mark.parametrize("mode", ["mean", "max", "min"])
@pytest.mark.parametrize("psd", [False, True])
def test_average_equals_cli(cli, tmp_path, mode, psd):
    name = "stereo_1500l_3000r_48k_s16.wav"
    y, sr = spectro.load(asset(name))
    out = tmp_path / "a.npy"
    cli("-b", "cpu", "-c", "all", "--average", mode, *(["--psd"] if psd else []), "--dump", out, asset(name))
    got = spectro.average(y, sr=sr, channel="all", backend="cpu", mode=mode, psd=psd)
    want = np.load(out)
    assert got.shape == want.reshape(got.shape).shape
    assert np.array_equal(got, want.reshape(got.shape))


@pytest.mark.parametrize("args,kw", [([], {}), (["--tone=1000"], {"freq": 1000}),
                                     (["--fmin", 500, "--fmax", 5000], {"fmin": 500, "fmax": 5000})])
def test_tone_equals_cli(cli, tmp_path, rng, args, kw):
    sr = 48000
    t = np.arange(sr * 2) / sr
    y = (0.5 * np.sin(2 * np.pi * 1000 * t) + 0.01 * np.sin(2 * np.pi * 3000 * t)
         + 1e-4 * rng.standard_normal(t.size)).astype(np.float32)
    raw = tmp_path / "t.raw"
    enc, ch = write_raw(raw, y)
    line = cli("--raw-format", "%s,%d,%d" % (enc, sr, ch), "-b", "cpu", "--tone", *args, raw).stdout
    want = json.loads(line)
    assert want.pop("input") == str(raw)  # the program names its input; an array has no name
    got = spectro.tone(y, sr=sr, backend="cpu", **kw)
    assert list(got) == list(want)
    # the program prints 4 to 10 digits: the dict's doubles round to its text
    assert json.loads(json.dumps(round_like_cli(got))) == want


def round_like_cli(d):
    """The program's --tone text of a tone dict (sink_tone.c's formats), read back."""
    h = ", ".join('{"n": %d, "hz": %.4f, "dbfs": %.4f}' % (e["n"], e["hz"], e["dbfs"]) for e in d["harmonics"])
    text = ('{"fundamental_hz": %.4f, "fundamental_dbfs": %.4f, "harmonics": [%s], "thd_percent": %.6f, '
            '"thd_db": %.4f, "thdn_db": %.4f, "snr_db": %.4f, "sinad_db": %.4f, "enob_bits": %.4f, '
            '"noise_dbfs": %.4f, "band_hz": [%.10g, %.10g], "frames_averaged": %d}'
            % (d["fundamental_hz"], d["fundamental_dbfs"], h, d["thd_percent"], d["thd_db"], d["thdn_db"],
               d["snr_db"], d["sinad_db"], d["enob_bits"], d["noise_dbfs"], d["band_hz"][0], d["band_hz"][1],
               d["frames_averaged"]))
    return json.loads(text)


def test_tone_channel_all(cli):
    name = "stereo_1500l_3000r_48k_s16.wav"
    y, sr = spectro.load(asset(name))
    got = spectro.tone(y, sr=sr, channel="all", backend="cpu")
    want = [json.loads(l) for l in cli("-b", "cpu", "-c", "all", "--tone", asset(name)).stdout.splitlines()]
    assert [round_like_cli({k: v for k, v in g.items() if k != "channel"}) for g in got] == \
        [{k: v for k, v in w.items() if k not in ("channel", "input")} for w in want]
    assert [g["channel"] for g in got] == [w["channel"] for w in want] == [0, 1]


@pytest.mark.parametrize("fraction,weighting,average", [(3, "Z", None), (1, "A", None), (6, "C", "mean"),
                                                        (12, "Z", "max")])
def test_bands_equal_cli(cli, tmp_path, fraction, weighting, average):
    name = "chirp_100_20k_48k_s16.wav"
    y, sr = spectro.load(asset(name))
    out = tmp_path / "b.npy"
    cli("-b", "cpu", "-n", 8192, "--bands", fraction, "--weighting", weighting,
        *(["--average", average] if average else []), "--dump", out, asset(name))
    b = spectro.bands(y, sr=sr, n_fft=8192, backend="cpu", fraction=fraction, weighting=weighting, average=average)
    want = np.load(out)
    meta = json.load(open(str(out) + ".json"))
    assert np.array_equal(b.levels, want.reshape(b.levels.shape))
    assert np.array_equal(b.mid_hz, meta["bands_hz"])
    assert np.array_equal(b.edges_hz, np.array(meta["band_edges_hz"]))
    assert np.array_equal(b.unresolved_hz, meta.get("bands_unresolved_hz", []))
