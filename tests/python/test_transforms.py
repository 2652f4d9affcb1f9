"""spectro.mel/.mfcc/.chroma/.cqt/.reassigned and their Analyzer methods (docs/python.md,
docs/transforms.md) against the program's --dump of the same transform: equal, byte for
byte; the columns' frequencies against the sidecar; the library's errors in its own terms."""
import json

import numpy as np
import pytest

import spectro
from conftest import asset

CASES = [("mel", ["--mel", 40, "--fmin", 50, "--fmax", 9000], dict(n_mels=40, fmin=50, fmax=9000), {}),
         ("mfcc", ["--mfcc", 13], dict(n_mfcc=13), {}),
         ("chroma", ["--chroma"], {}, {}),
         ("cqt", ["--cqt", 24, "--fmin", 100], dict(bins_per_octave=24, fmin=100), dict(n_fft=16384)),
         ("reassigned", ["--reassign"], {}, {})]


@pytest.mark.parametrize("name,opts,kw,settings", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("channel", ["mix", "all"])
def test_equals_dump(cli, tmp_path, name, opts, kw, settings, channel):
    src = asset("stereo_1500l_3000r_48k_s16.wav")
    y, sr = spectro.load(src)
    out = tmp_path / "d.npy"
    n = settings.get("n_fft", 4096)
    cli("-b", "cpu", "-c", channel, "-n", n, *opts, "--dump", out, src)
    want = np.load(out)
    with open(str(out) + ".json") as f:
        meta = json.load(f)
    got = getattr(spectro, name)(y, sr=sr, channel=channel, backend="cpu", **settings, **kw)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.array_equal(got, want)
    an = spectro.Analyzer(sr=sr, n_fft=n, channel=channel, backend="cpu")
    assert np.array_equal(getattr(an, name)(y, **kw), want)
    kind = "reassign" if name == "reassigned" else name
    hz = an.transform_frequencies(kind, **{k: v for k, v in kw.items() if k != "n_mfcc"},
                                  **({"n_mfcc": kw["n_mfcc"]} if "n_mfcc" in kw else {}))
    assert np.allclose(hz, meta["coefficients" if kind == "mfcc" else "freqs_hz"], rtol=1e-9)


def test_errors():
    y = np.zeros(48000, dtype=np.float32)
    with pytest.raises(ValueError, match="needs N >= 32768"):
        spectro.cqt(y, sr=48000, n_fft=4096)
    with pytest.raises(ValueError, match="above the Nyquist"):
        spectro.mel(y, sr=48000, fmax=30000)
    with pytest.raises(ValueError, match="coefficients from 20 mel bands"):
        spectro.mfcc(y, sr=48000, n_mfcc=30, n_mels=20)
    with pytest.raises(ValueError, match="at least fft_size"):
        spectro.mel(y[:100], sr=48000)
