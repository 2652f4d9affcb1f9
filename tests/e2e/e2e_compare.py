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
