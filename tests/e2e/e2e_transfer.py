"""--transfer REF:MEAS: the averaged H1 transfer function, coherence and delay of two channels
(docs/measurements.md "Transfer function"), against scipy.signal.freqz of the known filter
and scipy.signal.coherence; bad input; the picture."""
import json
import os
import unittest

import numpy as np
import scipy.signal

import spectro_e2e as E

RATE = 48000
SECONDS = 24          # ~1100 averages: the H1 estimate's spread at coherence 0.99 is ~0.015 dB
DELAY = 37            # samples of MEAS after REF
N, HOP = 4096, 1024


def test_filter():
    """A peak (RBJ peaking EQ, +9 dB at 1 kHz, Q 2) and a low-pass (4th-order Butterworth at
    6 kHz): both minimum phase, so the delay is the 37 samples alone."""
    f0, gain, q = 1000.0, 9.0, 2.0
    a_ = 10 ** (gain / 40)
    w0 = 2 * np.pi * f0 / RATE
    al = np.sin(w0) / (2 * q)
    b1 = np.array([1 + al * a_, -2 * np.cos(w0), 1 - al * a_])
    a1 = np.array([1 + al / a_, -2 * np.cos(w0), 1 - al / a_])
    b2, a2 = scipy.signal.butter(4, 6000, fs=RATE)
    return np.convolve(b1, b2), np.convolve(a1, a2)


def make_signal(seed=1, delay=DELAY, swap=False):
    """(samples, 2): white noise and the same noise through the filter, delayed, with white
    noise 60 dB below it added; swap puts the measured channel first."""
    rng = np.random.default_rng(seed)
    length = RATE * SECONDS
    pre = 512
    x = rng.standard_normal(length + pre) * 0.1
    b, a = test_filter()
    y = scipy.signal.lfilter(b, a, x)
    y = np.concatenate([np.zeros(delay), y])[:len(x)]
    y = y + rng.standard_normal(len(y)) * np.std(y) * 1e-3
    x, y = x[pre:], y[pre:]
    return np.stack([y, x] if swap else [x, y], axis=1).astype(np.float32)


class Transfer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = E.TempDir()
        cls.dir = cls.tmp.__enter__()
        cls.sig = make_signal()
        cls.wav = os.path.join(cls.dir, "pair.wav")
        E.write_float_wav(cls.wav, cls.sig, RATE)
        cls.npy = os.path.join(cls.dir, "tf.npy")
        p = E.run(["--transfer", "0:1", "-n", N, "--hop", HOP, "--dump", cls.npy, "-q", cls.wav])
        assert p.returncode == 0, p.stderr
        cls.tf = np.load(cls.npy)
        with open(cls.npy + ".json") as f:
            cls.meta = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.__exit__()

    def test_shape_and_columns(self):
        self.assertEqual(self.tf.shape, (N // 2 + 1, 4))
        self.assertEqual(self.tf.dtype, np.float32)
        np.testing.assert_allclose(self.tf[:, 0], np.arange(N // 2 + 1) * RATE / N, rtol=1e-6)
        self.assertEqual(self.meta["columns"], ["freq_hz", "magnitude_db", "phase_deg", "coherence"])
        self.assertEqual(self.meta["window"], "hann")
        self.assertEqual((self.meta["reference_channel"], self.meta["measured_channel"]), (0, 1))
        self.assertEqual(self.meta["averages"], E.frame_count(len(self.sig), N, HOP))

    def test_against_freqz(self):
        b, a = test_filter()
        f = self.tf[:, 0].astype(np.float64)
        _, h = scipy.signal.freqz(b, a, worN=f, fs=RATE)
        ok = self.tf[:, 3] > 0.99
        self.assertGreater(ok.sum(), 1000)  # most of the band up to ~14 kHz
        mag = self.tf[ok, 1] - 20 * np.log10(np.abs(h[ok]))
        self.assertLess(np.abs(mag).max(), 0.1, "magnitude against freqz (dB)")
        ph = np.deg2rad(self.tf[ok, 2]) + 2 * np.pi * f[ok] * DELAY / RATE - np.angle(h[ok])
        ph = np.rad2deg(np.angle(np.exp(1j * ph)))
        self.assertLess(np.abs(ph).max(), 2.0, "phase against freqz, delay taken out (deg)")

    def test_coherence_is_scipys(self):
        x, y = self.sig[:, 0].astype(np.float64), self.sig[:, 1].astype(np.float64)
        _, c = scipy.signal.coherence(x, y, fs=RATE, window="hann", nperseg=N, noverlap=N - HOP,
                                      detrend=False)
        self.assertLess(np.abs(self.tf[:, 3] - c).max(), 0.01)

    def test_delay(self):
        self.assertLess(abs(self.meta["delay_s"] * RATE - DELAY), 1.0, self.meta["delay_s"] * RATE)
        self.assertAlmostEqual(self.meta["delay_s"] * RATE, self.meta["delay_samples"], places=6)

    def test_swapped_channels_and_csv(self):
        """The channels the other way round (--transfer 1:0 of the swapped file) give the
        same table; the CSV has the header and the same numbers."""
        with E.TempDir() as d:
            wav = os.path.join(d, "swap.wav")
            E.write_float_wav(wav, self.sig[:, ::-1], RATE)
            csv = os.path.join(d, "tf.csv")
            p = E.run(["--transfer", "1:0", "-n", N, "--hop", HOP, "--dump", csv, "-q", wav])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(csv) as f:
                self.assertEqual(f.readline().strip(), "freq_hz,magnitude_db,phase_deg,coherence")
            got = np.loadtxt(csv, delimiter=",", skiprows=1)
            np.testing.assert_allclose(got, self.tf, rtol=1e-6, atol=1e-5)
            with open(csv + ".json") as f:
                self.assertAlmostEqual(json.load(f)["delay_s"], self.meta["delay_s"], places=9)

    def test_negative_delay(self):
        """MEAS before REF: --transfer 1:0 reads the delay negative."""
        with E.TempDir() as d:
            out = os.path.join(d, "tf.npy")
            p = E.run(["--transfer", "1:0", "-n", N, "--hop", HOP, "--dump", out, "-q", self.wav])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out + ".json") as f:
                self.assertLess(abs(json.load(f)["delay_s"] * RATE + DELAY), 1.0)


class Live(unittest.TestCase):
    def test_realtime_equals_file(self):
        """--realtime (the microphone's path after its callback, small batches) gives the file's
        table when nothing was dropped (a loaded machine may drop: then the test says so)."""
        with E.TempDir() as d:
            wav = os.path.join(d, "pair.wav")
            E.write_float_wav(wav, make_signal()[:RATE * 2], RATE)
            outs = [os.path.join(d, "file.npy"), os.path.join(d, "live.npy")]
            for out, extra in zip(outs, ([], ["--realtime"])):
                p = E.run(["--transfer", "0:1", "-n", 2048, "--hop", 512, "--dump", out, "-q", wav] + extra)
                self.assertEqual(p.returncode, 0, p.stderr)
            with open(outs[1] + ".json") as f:
                meta = json.load(f)
            if meta["dropped_samples"]:
                self.skipTest("the live run dropped %d samples on this machine" % meta["dropped_samples"])
            np.testing.assert_array_equal(np.load(outs[0]), np.load(outs[1]))


class Reference(unittest.TestCase):
    """--reference FILE: REF from another file, aligned by its delay."""

    def test_aligned_pair(self):
        sig = make_signal()
        lead = 5000  # the measured file starts 5000 samples later than the reference
        with E.TempDir() as d:
            ref, meas = os.path.join(d, "ref.wav"), os.path.join(d, "meas.wav")
            E.write_float_wav(ref, sig[:, 0], RATE)
            m = np.concatenate([np.zeros(lead, np.float32), sig[:, 1]])
            E.write_float_wav(meas, np.stack([np.zeros_like(m), m], axis=1), RATE)  # MEAS is channel 1
            out = os.path.join(d, "tf.npy")
            p = E.run(["--transfer", "0:1", "--reference", ref, "-n", N, "--hop", HOP, "--dump", out, "-q", meas])
            self.assertEqual(p.returncode, 0, p.stderr)
            tf = np.load(out)
            with open(out + ".json") as f:
                meta = json.load(f)
            self.assertLess(abs(meta["delay_s"] * RATE - (lead + DELAY)), 1.0, meta["delay_s"] * RATE)
            self.assertEqual(meta["reference"], ref)
            b, a = test_filter()
            _, h = scipy.signal.freqz(b, a, worN=tf[:, 0].astype(np.float64), fs=RATE)
            ok = tf[:, 3] > 0.99
            self.assertGreater(ok.sum(), 1000)
            self.assertLess(np.abs(tf[ok, 1] - 20 * np.log10(np.abs(h[ok]))).max(), 0.1)

    def test_refused(self):
        with E.TempDir() as d:
            ref, meas = os.path.join(d, "ref.wav"), os.path.join(d, "meas.wav")
            E.write_float_wav(ref, np.zeros(RATE, np.float32), RATE // 2)
            E.write_float_wav(meas, np.zeros((RATE, 2), np.float32), RATE)
            for args, what in ((["--transfer", "0:1", "--reference", ref], "Hz"),
                               (["--transfer", "1:1", "--reference", ref], "out of range"),
                               (["--reference", ref], "--transfer")):
                p = E.run(args + ["--dump", "o.npy", meas], cwd=d)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
                self.assertIn(what, p.stderr)
                self.assertFalse(os.path.exists(os.path.join(d, "o.npy")))


HAVE_PNG = os.environ.get("SPECTRO_TEST_RENDER", "1") != "0"


@unittest.skipUnless(HAVE_PNG, "built without the renderer")
class Picture(unittest.TestCase):
    """--png: magnitude, phase and coherence panels, one above the other."""

    def test_panels(self):
        with E.TempDir() as d:
            wav = os.path.join(d, "pair.wav")
            E.write_float_wav(wav, make_signal()[:RATE * 4], RATE)
            pics = {}
            for name, extra in (("plain", []), ("removed", ["--remove-delay"])):
                out = os.path.join(d, name + ".png")
                p = E.run(["--transfer", "0:1", "--png", out, "--size", "1200x900", "-q", wav] + extra)
                self.assertEqual(p.returncode, 0, p.stderr)
                pics[name] = E.read_png(out)
            a, b = pics["plain"], pics["removed"]
            self.assertEqual(a.shape, (900, 1200, 3))
            third = 300
            # the coherence panel is the same; the phase panel is not (the delay's slope)
            np.testing.assert_array_equal(a[2 * third:], b[2 * third:])
            self.assertGreater(np.count_nonzero(np.any(a[third:2 * third] != b[third:2 * third], axis=2)), 1000)
            # each panel draws a curve: coloured pixels (the axes, grid and text are grey)
            for i in range(3):
                panel = a[i * third:(i + 1) * third].astype(int)
                coloured = panel.max(axis=2) - panel.min(axis=2) > 80
                self.assertGreater(np.count_nonzero(coloured.any(axis=0)), 800, "panel %d" % i)


class BadInput(unittest.TestCase):
    def check_refused(self, args, wav_channels=2, what=""):
        with E.TempDir() as d:
            wav = os.path.join(d, "in.wav")
            rng = np.random.default_rng(2)
            E.write_float_wav(wav, rng.standard_normal((RATE // 2, wav_channels)) * 0.1, RATE)
            before = E.listing(d)
            p = E.run(args + [wav], cwd=d)
            self.assertEqual(p.returncode, 2, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn(what, lines[0])
            self.assertEqual(E.listing(d), before, "nothing written")

    def test_index_out_of_range(self):
        self.check_refused(["--transfer", "0:2", "--dump", "o.npy"], 2, "out of range")

    def test_same_channel(self):
        self.check_refused(["--transfer", "1:1", "--dump", "o.npy"], 2, "same")

    def test_mono(self):
        self.check_refused(["--transfer", "0:1", "--dump", "o.npy"], 1, "one channel")

    def test_bad_value_and_combinations(self):
        self.check_refused(["--transfer", "0", "--dump", "o.npy"], 2, "REF:MEAS")
        self.check_refused(["--transfer", "0:1", "--peaks"], 2, "--peaks")
        self.check_refused(["--transfer", "0:1", "--average", "mean", "--dump", "o.npy"], 2, "--average")
        self.check_refused(["--transfer", "0:1", "--channel", "0", "--dump", "o.npy"], 2, "--channel")
        self.check_refused(["--remove-delay", "--dump", "o.npy"], 2, "--remove-delay")
        self.check_refused(["--transfer", "0:1", "--remove-delay", "--dump", "o.npy"], 2, "--remove-delay")
        if HAVE_PNG:
            self.check_refused(["--transfer", "0:1", "--png", "o.png"], 1, "one channel")


if __name__ == "__main__":
    E.main()
