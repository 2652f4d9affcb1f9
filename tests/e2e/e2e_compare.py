"""--compare A B: the averaged spectra of two files and their difference (--average MODE
--dump) against a NumPy reference, the picture of A, B and B - A, and bad pairs."""
import json
import os
import unittest

import numpy as np
import scipy.signal

import spectro_e2e as E

RATE = 48000
HAVE_PNG = os.environ.get("SPECTRO_TEST_RENDER", "1") != "0"


def files(d, seconds=3):
    """A: white noise (mono); B: the same through a 4 kHz low-pass, in two equal channels."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(RATE * seconds) * 0.1).astype(np.float32)
    bb, ba = scipy.signal.butter(4, 4000, fs=RATE)
    b = scipy.signal.lfilter(bb, ba, a).astype(np.float32)
    pa, pb = os.path.join(d, "a.wav"), os.path.join(d, "b.wav")
    E.write_float_wav(pa, a, RATE)
    E.write_float_wav(pb, np.stack([b, b], axis=1), RATE)
    return pa, pb, a, b


def power_mean_db(sig, n=4096):
    db = E.spectrum_db(sig.astype(np.float64), n, n // 4, "hann")
    return 10 * np.log10(np.mean(10 ** (db / 10), axis=0))


class Compare(unittest.TestCase):
    def test_average_dump(self):
        with E.TempDir() as d:
            pa, pb, a, b = files(d)
            out = os.path.join(d, "cmp.npy")
            p = E.run(["--compare", pa, pb, "--average", "mean", "--dump", out, "-q"])
            self.assertEqual(p.returncode, 0, p.stderr)
            got = np.load(out)
            self.assertEqual(got.shape, (3, 2049))
            ra, rb = power_mean_db(a), power_mean_db(b)
            ok = rb > -120
            np.testing.assert_allclose(got[0], ra, atol=0.01)
            np.testing.assert_allclose(got[1][ok], rb[ok], atol=0.01)
            np.testing.assert_allclose(got[2][ok], (rb - ra)[ok], atol=0.02)
            self.assertTrue(np.array_equal(got[2], got[1] - got[0]))
            with open(out + ".json") as f:
                meta = json.load(f)
            self.assertEqual(meta["compare"], [pa, pb])
            self.assertEqual(meta["rows"], ["A", "B", "B - A"])
            self.assertEqual(meta["frames_averaged"], E.frame_count(len(a), 4096, 1024))

    @unittest.skipUnless(HAVE_PNG, "built without the renderer")
    def test_picture(self):
        """The difference panel (the bottom third) is near white below the cut-off and blue
        above (B quieter); with A and B exchanged, red above."""
        with E.TempDir() as d:
            pa, pb, _, _ = files(d, seconds=1)
            pics = []
            for pair in ((pa, pb), (pb, pa)):
                out = os.path.join(d, "cmp.png")
                p = E.run(["--compare", pair[0], pair[1], "--png", out, "--size", "900x600", "-q"])
                self.assertEqual(p.returncode, 0, p.stderr)
                pics.append(E.read_png(out).astype(int))
            for pic, far in zip(pics, ("blue", "red")):
                self.assertEqual(pic.shape, (600, 900, 3))
                diff = pic[400:]
                blue = np.count_nonzero((diff[..., 2] > diff[..., 0] + 50))
                red = np.count_nonzero((diff[..., 0] > diff[..., 2] + 50))
                white = np.count_nonzero(np.all(diff > 220, axis=2))
                self.assertGreater(white, 5000)
                self.assertGreater(blue if far == "blue" else red, 50000, far)
                self.assertLess(red if far == "blue" else blue, 5000, far)

    def test_picture_difference_is_signed(self):
        """Two independent noises of one level, 20 s on a 300-pixel-wide picture (several
        frames a column, several bins a pixel row): the difference panel is red and blue
        about equally, as their differences are (a pixel shows the largest difference either
        side; the largest alone would be nearly all red)."""
        with E.TempDir() as d:
            rng = np.random.default_rng(11)
            paths = []
            for name in ("a.wav", "b.wav"):
                paths.append(os.path.join(d, name))
                E.write_float_wav(paths[-1], (rng.standard_normal(RATE * 20) * 0.1).astype(np.float32), RATE)
            out = os.path.join(d, "cmp.png")
            p = E.run(["--compare", paths[0], paths[1], "--png", out, "--size", "300x450", "-q"])
            self.assertEqual(p.returncode, 0, p.stderr)
            diff = E.read_png(out).astype(int)[310:430, 60:260]  # inside the bottom third's panel
            red = np.count_nonzero(diff[..., 0] > diff[..., 2] + 30)
            blue = np.count_nonzero(diff[..., 2] > diff[..., 0] + 30)
            self.assertGreater(red + blue, diff.shape[0] * diff.shape[1] // 4, (red, blue))
            self.assertLess(abs(red - blue), 0.25 * (red + blue), "red %d, blue %d" % (red, blue))

    def test_resample(self):
        """The same three tones written at 48 kHz (A) and at 44.1 kHz (B): without --resample,
        exit 2; with it, B at A's rate reads the tones' levels within 0.01 dB of A's, either way
        round (up and down)."""
        def tones(sr, secs=2):
            t = np.arange(sr * secs) / sr
            return (0.3 * np.sin(2 * np.pi * 1000 * t) + 0.1 * np.sin(2 * np.pi * 5000.5 * t) +
                    0.05 * np.sin(2 * np.pi * 15000 * t)).astype(np.float32)
        with E.TempDir() as d:
            p48, p44 = os.path.join(d, "t48.wav"), os.path.join(d, "t44.wav")
            E.write_float_wav(p48, tones(48000), 48000)
            E.write_float_wav(p44, tones(44100), 44100)
            out = os.path.join(d, "r.npy")
            p = E.run(["--compare", p48, p44, "--average", "mean", "--dump", out])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("--resample", p.stderr)
            self.assertFalse(os.path.exists(out))
            for a, b, rate in ((p48, p44, 48000), (p44, p48, 44100)):
                p = E.run(["--compare", a, b, "--resample", "--average", "mean", "--dump", out, "-q"])
                self.assertEqual(p.returncode, 0, p.stderr)
                got = np.load(out)
                with open(out + ".json") as f:
                    self.assertEqual(json.load(f)["sample_rate"], rate)
                for hz, level in ((1000, 0.3), (5000.5, 0.1), (15000, 0.05)):
                    k = int(round(hz * 4096 / rate))
                    self.assertGreater(got[0][k], 20 * np.log10(level) - 6)  # the tone's bin
                    self.assertLess(abs(got[2][k]), 0.01, (rate, hz, got[2][k]))

    def test_refused(self):
        with E.TempDir() as d:
            pa, pb, a, _ = files(d, seconds=1)
            short = os.path.join(d, "short.wav")
            E.write_float_wav(short, a[:-10], RATE)
            slow = os.path.join(d, "slow.wav")
            E.write_float_wav(slow, a, RATE // 2)
            for args, what in (([pa, short, "--average", "mean", "--dump", "o.npy"], "length"),
                               ([pa, slow, "--average", "mean", "--dump", "o.npy"], "Hz"),
                               ([pa, pb, "--dump", "o.npy"], "--average"),
                               ([pa, "--png", "o.png"], "two FILEs"),
                               ([pa, pb, "--peaks"], "--peaks")):
                before = E.listing(d)
                p = E.run(["--compare"] + args, cwd=d)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
                self.assertIn(what, p.stderr)
                self.assertEqual(E.listing(d), before)


if __name__ == "__main__":
    E.main()
