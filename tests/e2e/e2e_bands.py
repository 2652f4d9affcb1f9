#!/usr/bin/python3
"""Fractional-octave bands of the real binary (docs/measurements.md "Fractional-octave
bands"): --bands with --weighting, per frame and with --average, on files and the
microphone.

- Per-frame band levels against a reference made here from the samples: SciPy's window and
  NumPy's FFT give the dBFS spectrum (docs/design.md), each band sums the power of the bins
  whose centre lies in [lower, upper) (the sidecar's band_edges_hz), weighted by IEC 61672-1's
  closed form written out here, the Nyquist bin twice, over the window's ENBW: within
  0.01 dB wherever the level is above -100 dBFS; no NaN; the bands too narrow for the
  window's main lobe are not reported but listed (bands_unresolved_hz), below the rest.
- The sidecar's mid frequencies: IEC 61260-1's base-10 series, within 2 % of the nominal
  labels; edges a ratio of G^(1/b) apart and contiguous.
- Synthetic: a steady sine at a band's mid frequency reads its amplitude level (20 log10 A)
  within 0.1 dB, plus the weighting there (A at 100 Hz: -19.14 dB) when weighted.
- --average mean / max against the per-frame levels; --channel all's shape; CSV.
- The microphone through ALSA's file plugin (when SPECTRO_TEST_MIC is set).
- Usage errors: one line, exit 2, no file left.
"""
import json
import os
import unittest

import numpy as np

import spectro_e2e as E

HERE = os.path.dirname(os.path.abspath(__file__))
ASOUND = os.path.join(os.path.dirname(HERE), "alsa", "asound.conf")
RATE = 48000
G = 10 ** 0.3
NOMINAL_THIRDS = [20, 25, 31.5, 40, 50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600,
                  2000, 2500, 3150, 4000, 5000, 6300, 8000, 10000, 12500, 16000, 20000]


def weight_db(kind, f):
    """IEC 61672-1 (E.1)-(E.6), normalised to 0 dB at 1 kHz; Z: 0."""
    f = np.asarray(f, float)
    f1, f2, f3, f4 = 20.598997, 107.65265, 737.86223, 12194.217

    def ra(x):
        x2 = x * x
        return f4 ** 2 * x2 ** 2 / ((x2 + f1 ** 2) * np.sqrt((x2 + f2 ** 2) * (x2 + f3 ** 2)) * (x2 + f4 ** 2))

    def rc(x):
        x2 = x * x
        return f4 ** 2 * x2 / ((x2 + f1 ** 2) * (x2 + f4 ** 2))

    with np.errstate(divide="ignore"):
        if kind == "A":
            return 20 * np.log10(ra(f) / ra(1000.0))
        if kind == "C":
            return 20 * np.log10(rc(f) / rc(1000.0))
    return np.zeros_like(f)


def reference_bands(x, n, hop, win, edges, kind):
    """(frames, bands) band levels of samples x (one channel), as docs/measurements.md
    defines them."""
    db = E.spectrum_db(x, n, hop, win)
    w = E.window(win, n)
    enbw = n * np.sum(w ** 2) / np.sum(w) ** 2
    freqs = np.arange(n // 2 + 1) * RATE / n
    gain = 10 ** (weight_db(kind, freqs) / 10) / enbw
    gain[-1] *= 2
    p = 10 ** (db / 10) * gain
    out = np.empty((db.shape[0], len(edges)))
    for i, (lo, hi) in enumerate(edges):
        sel = (freqs >= lo) & (freqs < hi)
        out[:, i] = 10 * np.log10(np.maximum(p[:, sel].sum(axis=1), 1e-20))
    return np.maximum(out, -200.0)


def noise_and_tones(secs=4.0, seed=5):
    rng = np.random.default_rng(seed)
    t = np.arange(int(RATE * secs)) / RATE
    x = 0.05 * rng.standard_normal(t.size)
    for f, a in [(100.0, 0.3), (1000.0, 0.2), (6300.0, 0.1)]:
        x += a * np.sin(2 * np.pi * f * t)
    return x.astype(np.float32)


class Bands(unittest.TestCase):
    def run_ok(self, args, env=None):
        p = E.run(args, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def test_per_frame_against_reference(self):
        x = noise_and_tones()
        for b, kind, win, n, hop in [(3, "A", "hann", 8192, 2048), (1, "Z", "blackman-harris", 4096, 1000),
                                     (6, "C", "flattop", 16384, 4096), (12, "Z", "hann", 16384, 8192)]:
            with E.TempDir() as d:
                path = os.path.join(d, "in.wav")
                E.write_float_wav(path, x, RATE)
                npy = os.path.join(d, "b.npy")
                self.run_ok([path, "-q", "--bands", b, "--weighting", kind, "--window", win, "-n", n, "--hop", hop,
                             "--dump", npy])
                got, meta = E.load_npy(self, npy), E.load_json(self, npy + ".json")
                what = "1/%d %s %s n=%d" % (b, kind, win, n)
                self.assertEqual(meta["bands"], b)
                self.assertEqual(meta["weighting"], kind)
                edges = np.array(meta["band_edges_hz"])
                mids = np.array(meta["bands_hz"])
                self.assertEqual(got.shape, (E.frame_count(len(x), n, hop), len(mids)), what)
                np.testing.assert_allclose(edges[:, 1] / edges[:, 0], G ** (1.0 / b), rtol=1e-12)
                np.testing.assert_allclose(edges[1:, 0], edges[:-1, 1], rtol=1e-12)
                np.testing.assert_allclose(np.sqrt(edges[:, 0] * edges[:, 1]), mids, rtol=1e-12)
                ref = reference_bands(x.astype(float), n, hop, win, edges, kind)
                self.assertTrue(np.isfinite(got).all(), what + ": NaN or inf in the output")
                tight = ref > -100
                err = np.abs(got[tight] - ref[tight]).max()
                self.assertLess(err, 0.01, "%s: %.4f dB from the reference" % (what, err))
                # reported = resolved: the lobe (K bins) and one more bin between mid and lower
                # edge; the range's narrower bands are listed, below the reported ones
                bin_hz = RATE / n
                unres = np.array(meta["bands_unresolved_hz"])
                self.assertFalse(((mids - edges[:, 0]) < 2 * bin_hz).any(), what)
                self.assertEqual(len(unres) + len(mids),
                                 len([x for x in range(-200, 200) if 19.6 <= 1000 * G ** ((x if b % 2 else x + 0.5) / b) <= 20400
                                      and 1000 * G ** ((x if b % 2 else x + 0.5) / b + 0.5 / b) <= RATE / 2]), what)
                if len(unres):
                    self.assertLess(unres.max(), mids.min(), what)
                    self.assertTrue((unres * (1 - G ** (-0.5 / b)) < 6 * bin_hz).all(), what)

    def test_unresolved_note(self):
        """The bands left out for the resolution are named on stderr (one note; none with
        -q, nor when every band is resolved): --dump - has no sidecar to list them."""
        with E.TempDir() as d:
            path = os.path.join(d, "in.wav")
            E.write_float_wav(path, noise_and_tones(1.0), RATE)
            npy = os.path.join(d, "b.npy")
            p = self.run_ok([path, "--bands", 3, "-n", 4096, "--dump", npy])
            unres = E.load_json(self, npy + ".json")["bands_unresolved_hz"]
            self.assertTrue(unres)
            notes = [l for l in p.stderr.splitlines() if "--bands" in l]
            self.assertEqual(len(notes), 1, p.stderr)
            self.assertTrue(notes[0].startswith("spectro: note: "), notes[0])
            self.assertIn("%d bands" % len(unres), notes[0])
            self.assertIn("--fft-size 4096", notes[0])
            listed = [float(v) for v in notes[0].rsplit(":", 1)[1].replace("Hz", "").split(",")]
            np.testing.assert_allclose(listed, unres, rtol=1e-3)
            # standard output: the same note, the CSV alone on stdout
            q = self.run_ok([path, "--bands", 3, "-n", 4096, "--dump", "-"])
            self.assertEqual([l for l in q.stderr.splitlines() if "--bands" in l], notes)
            self.assertTrue(q.stdout.startswith("time_s,"))
            self.assertNotIn("--bands", self.run_ok([path, "-q", "--bands", 3, "-n", 4096, "--dump", "-"]).stderr)
            self.assertNotIn("--bands", self.run_ok([path, "--bands", 1, "-n", 65536, "--dump", "-"]).stderr)

    def test_nominal_mid_frequencies(self):
        with E.TempDir() as d:
            path = os.path.join(d, "in.wav")
            E.write_float_wav(path, noise_and_tones(1.0), RATE)
            npy = os.path.join(d, "b.npy")
            self.run_ok([path, "-q", "--bands", 3, "-n", 65536, "--dump", npy])
            meta = E.load_json(self, npy + ".json")
            mids = np.array(meta["bands_unresolved_hz"] + meta["bands_hz"])
            self.assertEqual(len(mids), len(NOMINAL_THIRDS))
            np.testing.assert_allclose(mids, NOMINAL_THIRDS, rtol=0.02)
            self.assertAlmostEqual(mids[NOMINAL_THIRDS.index(1000)], 1000.0, places=9)

    def test_sine_at_mid_band(self):
        t = np.arange(RATE * 2) / RATE
        for f, kind, want_w in [(1000.0, "Z", 0.0), (1000.0 * G ** (-10 / 3), "A", None), (G ** (5 / 3) * 1000, "C", None)]:
            x = (0.5 * np.sin(2 * np.pi * f * t + 0.2)).astype(np.float32)
            with E.TempDir() as d:
                path = os.path.join(d, "in.wav")
                E.write_float_wav(path, x, RATE)
                npy = os.path.join(d, "b.npy")
                self.run_ok([path, "-q", "--bands", 3, "--weighting", kind, "-n", 16384, "--average", "mean",
                             "--dump", npy])
                got, meta = E.load_npy(self, npy), E.load_json(self, npy + ".json")
                mids = np.array(meta["bands_hz"])
                i = int(np.argmin(np.abs(mids - f)))
                want = 20 * np.log10(0.5) + float(weight_db(kind, f))
                self.assertAlmostEqual(float(got[i]), want, delta=0.1, msg="%s %.2f Hz" % (kind, f))
                if kind == "A":
                    self.assertAlmostEqual(float(weight_db("A", 100.0)), -19.14, delta=0.01)
                    self.assertAlmostEqual(float(got[i]) - 20 * np.log10(0.5), -19.1, delta=0.1)

    def test_average_and_channels(self):
        x = noise_and_tones(3.0)
        st = np.stack([x, 0.5 * x[::-1]], axis=1)
        with E.TempDir() as d:
            path = os.path.join(d, "st.wav")
            E.write_float_wav(path, st, RATE)
            base = [path, "-q", "--bands", 3, "--weighting", "A", "-n", 8192, "--channel", "all"]
            self.run_ok(base + ["--dump", d + "/f.npy"])
            frames = E.load_npy(self, d + "/f.npy")
            self.assertEqual(frames.shape[0], 2)
            for mode in ("mean", "max"):
                self.run_ok(base + ["--average", mode, "--dump", d + "/a.npy"])
                avg, meta = E.load_npy(self, d + "/a.npy"), E.load_json(self, d + "/a.npy.json")
                self.assertEqual(avg.shape, (2, frames.shape[2]))
                self.assertEqual(meta["average"], mode)
                self.assertEqual(meta["frames_averaged"], frames.shape[1])
                want = (10 * np.log10(np.mean(10 ** (frames / 10), axis=1)) if mode == "mean"
                        else frames.max(axis=1))
                self.assertLess(np.abs(avg - want).max(), 0.001, mode)
            self.run_ok(base + ["--average", "mean", "--dump", d + "/a.csv"])
            rows = open(d + "/a.csv").read().splitlines()
            head = rows[0].split(",")
            self.assertEqual(head[0], "channel")
            mids = np.array(E.load_json(self, d + "/a.csv.json")["bands_hz"])
            np.testing.assert_allclose([float(v) for v in head[1:]], mids, rtol=1e-9)
            self.assertEqual(len(rows), 3)

    def test_sidecar_says_where_from(self):
        """The measurements' dumps write the plain dump's sidecar members too: start_s after a
        --start, the decoder (they had neither)."""
        with E.TempDir() as d:
            path = os.path.join(d, "in.wav")
            E.write_float_wav(path, noise_and_tones(2.0), RATE)
            for extra in (["--bands", 3], ["--bands", 1, "--average", "max"], ["--average", "mean"]):
                npy = os.path.join(d, "s.npy")
                self.run_ok([path, "-q", "--start", "0.5", "--dump", npy] + extra)
                meta = E.load_json(self, npy + ".json")
                self.assertAlmostEqual(meta["start_s"], 0.5, places=9, msg=str(extra))
                self.assertEqual(meta["decoder"], "libsndfile", extra)

    @unittest.skipUnless(os.environ.get("SPECTRO_TEST_MIC"), "no ALSA test device (SPECTRO_TEST_MIC unset)")
    def test_microphone(self):
        """The ALSA test microphone playing a 1 kHz sine of amplitude 0.5: the octave band at
        1 kHz reads -6.02 dBFS (averaged), and the third-octave band there in every frame."""
        with E.TempDir() as d:
            raw = os.path.join(d, "sine.raw")
            t = np.arange(RATE * 30) / RATE
            with open(raw, "wb") as f:
                f.write((0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype("<f4").tobytes())
            env = dict(os.environ, ALSA_CONFIG_PATH=ASOUND, SPECTRO_TEST_SINE=raw,
                       JACK_DEFAULT_SERVER="spectro-test-no-server")
            npy = os.path.join(d, "mic.npy")
            self.run_ok(["--duration", "2", "--bands", 1, "--average", "mean", "--dump", npy, "--rate", RATE,
                         "-b", "cpu", "-q"], env=env)
            a, meta = E.load_npy(self, npy), E.load_json(self, npy + ".json")
            i = meta["bands_hz"].index(1000.0)
            self.assertAlmostEqual(float(a[i]), 20 * np.log10(0.5), delta=0.1)
            # per frame: (frames, bands); the plugin has no clock, so a slow machine skips ahead
            # and keeps few frames (e2e_measure's microphone test says the same)
            self.run_ok(["--duration", "1", "--bands", 3, "--dump", npy, "--rate", RATE, "-b", "cpu", "-q"], env=env)
            a, meta = E.load_npy(self, npy), E.load_json(self, npy + ".json")
            self.assertEqual(a.shape, (meta["frames"], len(meta["bands_hz"])))
            i = meta["bands_hz"].index(1000.0)
            heard = a[:, i] > -150  # a skip-ahead's frames are written as silence (the floor)
            np.testing.assert_allclose(a[heard, i], 20 * np.log10(0.5), atol=0.1)
            self.assertTrue((a[~heard] == -200).all(), "a skipped frame reads other than the floor")

    def test_usage_errors(self):
        with E.TempDir() as d:
            path = os.path.join(d, "in.wav")
            E.write_float_wav(path, noise_and_tones(0.5), RATE)
            out = os.path.join(d, "o.npy")
            for args, word in [(["--weighting", "A", "--dump", out], "--weighting"),
                               (["--bands", 5, "--dump", out], "--bands"),
                               (["--bands", 3, "--png", d + "/o.png"], "--bands"),
                               (["--bands", 3, "--average", "mean", "--psd", "--dump", out], "--psd"),
                               (["--bands", 3, "--weighting", "B", "--dump", out], "--weighting"),
                               (["--bands", 3, "--fmin", 21000, "--fmax", 22000, "--dump", out], "--fmin")]:
                p = E.run([path, "-q"] + args)
                self.assertEqual(p.returncode, 2, "%s: %s" % (args, p.stderr))
                lines = E.stderr_lines(p)
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn(word, lines[0])
                self.assertEqual(E.listing(d), {"in.wav"}, args)
            # Nyquist (5 Hz) below every band: the range named, not "out of memory" (exit 1)
            raw = os.path.join(d, "slow.raw")
            noise_and_tones(0.5).astype("<f4")[:500].tofile(raw)
            p = E.run([raw, "-q", "--raw-format", "f32le,10,1", "-n", 64, "--bands", 3, "--dump", out])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
            self.assertIn("--fmin/--fmax", p.stderr)


if __name__ == "__main__":
    E.main()
