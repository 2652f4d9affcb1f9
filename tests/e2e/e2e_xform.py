#!/usr/bin/python3
"""The transforms of the real binary (docs/transforms.md) beyond the comparison with librosa
(tests/python/test_xform_librosa.py, run by e2e_xform_librosa):

- dump layouts: .npy rows of B values per frame (and per channel with --channel all), the
  CSV header the columns' frequencies, the sidecar the transform, its parameters and the
  columns (freqs_hz, or the MFCC's coefficients); --average of mel bands the power mean of
  the rows (a second computation here); batches give each file's single run byte for byte;
- bad input: one line, exit 2, nothing written (--mel 0, --fmax above Nyquist, --mfcc above
  the bands, --mel with --bands, with --peaks/--png/--tone, two transforms, no --dump,
  --reassign with --average).
- CQT: tones on bin centres across 7 octaves, all in one file at different amplitudes,
  each read at its amplitude level (20 log10 A dBFS) within 0.3 dB in its own bin, 3 dB
  above both neighbours; --fmin too low for N says the N needed; the octave-wise multirate
  rows agree with a double-precision direct evaluation of the definition (each bin's hann
  kernel dotted with the frame's samples) within 0.03 dB where a bin is within 40 dB of the
  frame's strongest, for tones in every octave, at a hop that is not a multiple of the
  decimation (the frames' grids differ) and at an N that makes the lowest octave decimate
  less; and a row does not depend on how the frames are split into calls: a run from
  --start k hops gives the whole run's rows from frame k bit for bit.
"""
import os
import subprocess
import unittest

import numpy as np

import spectro_e2e as E


class Layouts(unittest.TestCase):
    def test_mel_npy_csv_sidecar(self):
        a, meta, _ = E.dump(self, [E.asset("two_tone_48k_s16.wav"), "--mel", 40, "--fmin", 100, "--fmax", 9000])
        self.assertEqual(a.shape[1], 40)
        self.assertEqual(meta["transform"]["name"], "mel")
        self.assertEqual((meta["transform"]["bands"], meta["transform"]["fmin"], meta["transform"]["fmax"]),
                         (40, 100, 9000))
        self.assertEqual(len(meta["freqs_hz"]), 40)
        self.assertTrue(100 < meta["freqs_hz"][0] < meta["freqs_hz"][-1] < 9000)
        self.assertEqual(meta["frames"], a.shape[0])
        csv, _, _ = E.dump(self, [E.asset("two_tone_48k_s16.wav"), "--mel", 40, "--fmin", 100, "--fmax", 9000],
                           out_name="out.csv")
        lines = csv.splitlines()
        head = lines[0].split(",")
        self.assertEqual(head[0], "time_s")
        self.assertTrue(np.allclose([float(h) for h in head[1:]], meta["freqs_hz"], rtol=1e-8))
        rows = np.array([[float(v) for v in l.split(",")[1:]] for l in lines[1:]])
        self.assertTrue(np.allclose(rows, a, atol=1e-4))

    def test_mfcc_chroma_sidecar(self):
        a, meta, _ = E.dump(self, [E.asset("two_tone_48k_s16.wav"), "--mfcc", 13, "--mel", 40])
        self.assertEqual(a.shape[1], 13)
        self.assertEqual(meta["transform"]["coefficients"], 13)
        self.assertEqual(meta["coefficients"], list(range(13)))
        c, meta, _ = E.dump(self, [E.asset("two_tone_48k_s16.wav"), "--chroma"])
        self.assertEqual(c.shape[1], 12)
        self.assertTrue(np.allclose(c.max(axis=1), 1.0))
        self.assertAlmostEqual(meta["freqs_hz"][9], 440.0)

    def test_average_of_values_is_their_mean(self):
        """MFCC and chroma are plain values: --average mean is their arithmetic mean, max their
        maximum; the sidecar's units say values."""
        src = E.asset("two_tone_48k_s16.wav")
        for args in (["--mfcc", 13], ["--chroma"]):
            rows, _, _ = E.dump(self, [src] + args)
            avg, meta, _ = E.dump(self, [src] + args + ["--average", "mean"])
            self.assertLess(np.abs(avg - rows.astype(np.float64).mean(axis=0)).max(), 1e-4, args)
            self.assertEqual(meta["units"], "values")
            top, _, _ = E.dump(self, [src] + args + ["--average", "max"])
            self.assertTrue(np.array_equal(top, rows.max(axis=0)), args)

    def test_batch_equals_single_runs(self):
        files = [E.asset("two_tone_48k_s16.wav"), E.asset("sine_1000hz_48k_f32.wav")]
        with E.TempDir() as d:
            p = E.run(files + ["--mel", 32, "--dump", d + "/"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            for f in files:
                single, _, _ = E.dump(self, [f, "--mel", 32])
                stem = os.path.splitext(os.path.basename(f))[0]
                self.assertTrue(np.array_equal(np.load(os.path.join(d, stem + ".npy")), single), f)

    def test_pipe_and_realtime_equal_file(self):
        """The live path (a pipe; --realtime, which may skip ahead only when it falls behind)
        gives the file's rows."""
        src = E.asset("two_tone_48k_s16.wav")
        whole, _, _ = E.dump(self, [src, "--mel", 32])
        with E.TempDir() as d, open(src, "rb") as f:
            out = os.path.join(d, "p.npy")
            p = subprocess.run([E.BIN, "-", "--mel", "32", "-o", out], stdin=f, capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(np.array_equal(np.load(out), whole))
        rt, meta, _ = E.dump(self, [src, "--realtime", "--duration", 0.5, "--mel", 32])
        if meta["dropped_samples"] == 0:
            self.assertTrue(np.array_equal(rt, whole[:len(rt)]))

    def test_channels_all(self):
        a, meta, _ = E.dump(self, [E.asset("stereo_1500l_3000r_48k_s16.wav"), "--channel", "all", "--mel", 64])
        self.assertEqual(a.shape[0], 2)
        self.assertEqual(a.shape[2], 64)
        hz = np.array(meta["freqs_hz"])
        # each channel's strongest band holds its own tone
        for ch, f in ((0, 1500.0), (1, 3000.0)):
            b = int(np.argmax(a[ch].mean(axis=0)))
            self.assertLess(abs(np.log2(hz[b] / f)), 0.1, (ch, hz[b]))

    def test_average_is_power_mean(self):
        src = E.asset("two_tone_48k_s16.wav")
        rows, _, _ = E.dump(self, [src, "--mel", 32])
        avg, meta, _ = E.dump(self, [src, "--mel", 32, "--average", "mean"])
        self.assertEqual(avg.shape, (32,))
        ref = 10 * np.log10(np.mean(10 ** (rows.astype(np.float64) / 10), axis=0))
        self.assertLess(np.abs(avg - ref).max(), 1e-3)
        self.assertEqual(meta["transform"]["name"], "mel")
        self.assertEqual(meta["average"], "mean")


class ConstantQ(unittest.TestCase):
    C1 = 32.703195662574829

    def test_tones_across_octaves(self):
        rate, bpo = 48000, 12
        t = np.arange(rate * 3) / rate
        picks = [(12 * o + s, a) for o, s, a in
                 ((1, 3, 0.3), (2, 7, 0.1), (3, 0, 0.05), (4, 9, 0.2), (5, 4, 0.01), (6, 11, 0.15), (7, 2, 0.08))]
        x = sum(a * np.cos(2 * np.pi * self.C1 * 2 ** (j / bpo) * t + j) for j, a in picks)
        with E.TempDir() as d:
            path = os.path.join(d, "tones.wav")
            E.write_float_wav(path, x, rate)
            c, meta, _ = E.dump(self, [path, "-n", 32768, "--cqt", bpo])
        self.assertEqual(meta["transform"]["bins_per_octave"], bpo)
        hz = np.array(meta["freqs_hz"])
        self.assertTrue(np.allclose(hz, self.C1 * 2 ** (np.arange(len(hz)) / bpo), rtol=1e-9))
        row = c[c.shape[0] // 2]
        for j, a in picks:
            self.assertLess(abs(row[j] - 20 * np.log10(a)), 0.3, (hz[j], row[j], 20 * np.log10(a)))
            self.assertGreater(row[j], max(row[j - 1], row[j + 1]) + 3.0, hz[j])  # its own bin

    @staticmethod
    def direct(x, meta, frames):
        """docs/transforms.md's constant-Q in double precision at the full rate: bin j's hann
        window of N_j = round(Q rate/f_j) samples from (N - N_j)//2, times e^(-2 pi i f_j (t -
        N/2)/rate), scaled by 2/sum(w), dotted with the frame; dB rows."""
        n, hop, rate, q = meta["fft_size"], meta["hop"], meta["sample_rate"], meta["transform"]["q"]
        rows = []
        for fr in frames:
            seg, row = x[fr * hop:fr * hop + n], []
            for f in meta["freqs_hz"]:
                ln = int(np.floor(q * rate / f + 0.5))
                start, m = (n - ln) // 2, np.arange(ln)
                w = 0.5 - 0.5 * np.cos(2 * np.pi * m / ln)
                k = w * 2.0 / w.sum() * np.exp(-2j * np.pi * f * ((start + m) - n / 2.0) / rate)
                row.append(10 * np.log10(max(abs(np.dot(seg[start:start + ln], k)) ** 2, 1e-20)))
            rows.append(row)
        return np.array(rows)

    def tones_file(self, d, rate, bpo, fmin, octaves):
        """A tone on a bin centre in every octave (amplitudes 0.01 .. 0.3, each swelling and
        fading by half at 1.7 Hz: a kernel in the wrong place reads another level) and noise
        at -80 dBFS."""
        t = np.arange(rate * 2) / rate
        rng = np.random.default_rng(7)
        x = 1e-4 * rng.standard_normal(t.size)
        for o in range(octaves):
            j = bpo * o + int(rng.integers(bpo))
            swell = 1.0 + 0.5 * np.sin(2 * np.pi * 1.7 * t + o)
            x += rng.uniform(0.01, 0.3) * swell * np.cos(2 * np.pi * fmin * 2 ** (j / bpo) * t + o)
        path = os.path.join(d, "tones.wav")
        E.write_float_wav(path, x.astype(np.float32), rate)
        return path, E.read_audio(path)[0].astype(np.float64).ravel()

    def test_multirate_equals_direct(self):
        rate = 48000
        with E.TempDir() as d:
            for n, bpo, fmin, octaves, hop in ((32768, 12, self.C1, 9, 4800), (8192, 24, 200.0, 6, 1024)):
                path, x = self.tones_file(d, rate, bpo, fmin, octaves)
                c, meta, _ = E.dump(self, [path, "-n", n, "--hop", hop, "--cqt", bpo, "--fmin", fmin])
                self.assertIn("multirate", meta["transform"]["method"])
                rates = meta["transform"]["octave_rates_hz"]
                self.assertLess(min(rates), rate / 8, rates)  # the low octaves decimated
                frames = [0, c.shape[0] // 2, c.shape[0] - 1]
                ref = self.direct(x, meta, frames)
                got = c[frames].astype(np.float64)
                near = ref > ref.max(axis=1, keepdims=True) - 40.0
                err = np.abs(got - ref)[near]
                self.assertLess(err.max(), 0.03, "n %d: %.4g dB from the direct evaluation" % (n, err.max()))
                self.assertGreater(near.sum(axis=1).min(), octaves, "a tone in every octave")

    def test_rows_do_not_depend_on_calls(self):
        rate = 48000
        with E.TempDir() as d:
            path, _ = self.tones_file(d, rate, 12, self.C1, 9)
            for hop, k in ((1024, 3), (1200, 5)):  # one grid for every frame; eight grids
                base = [path, "-n", 32768, "--hop", hop, "--cqt", 12]
                whole, _, _ = E.dump(self, base)
                part, _, _ = E.dump(self, base + ["--start", "%.6f" % (k * hop / rate)])
                self.assertEqual(part.shape[0], whole.shape[0] - k)
                self.assertTrue(np.array_equal(part, whole[k:]), "hop %d: rows differ from --start" % hop)

    def test_fmin_needs_n(self):
        with E.TempDir() as d:
            p = E.run([E.asset("two_tone_48k_s16.wav"), "--cqt", 12, "-o", os.path.join(d, "o.npy")])
            self.assertEqual(p.returncode, 2)
            self.assertIn("needs N >= 32768", p.stderr)
            self.assertEqual(len(E.stderr_lines(p)), 1)
            self.assertEqual(E.listing(d), set())
            p = E.run([E.asset("two_tone_48k_s16.wav"), "--cqt", 12, "--fmin", 200, "-o", os.path.join(d, "o.npy")])
            self.assertEqual(p.returncode, 0, p.stderr)


class Reassign(unittest.TestCase):
    RATE = 48000

    def dump(self, x):
        with E.TempDir() as d:
            path = os.path.join(d, "x.wav")
            E.write_float_wav(path, x, self.RATE)
            r, meta, _ = E.dump(self, [path, "--reassign"])
            lin, _, _ = E.dump(self, [path])
        self.assertEqual(r.shape, lin.shape + (3,))
        E.assert_db_close(self, r[:, :, 2], lin, "reassign's levels")
        self.assertEqual(meta["transform"]["name"], "reassign")
        return r, meta

    @staticmethod
    def strong(row):
        return row[:, 2] > row[:, 2].max() - 20

    def test_tone(self):
        t = np.arange(self.RATE) / self.RATE
        r, _ = self.dump(0.5 * np.sin(2 * np.pi * 1234.5 * t))
        for row in r:
            f = row[self.strong(row), 0]
            self.assertGreaterEqual(len(f), 3)
            self.assertLess(np.abs(f - 1234.5).max(), 0.2, f)

    def test_click(self):
        x = np.zeros(self.RATE)
        at = 24000 + 37
        x[at] = 1.0
        r, meta = self.dump(x)
        frames = [f for f in range(r.shape[0]) if r[f, :, 2].max() > -150]
        self.assertGreaterEqual(len(frames), 3)
        for f in frames:
            t = r[f, self.strong(r[f]), 1]
            self.assertLess(np.abs(t - at / self.RATE).max(), 0.2e-3, (f, t))

    def test_chirp(self):
        t = np.arange(self.RATE) / self.RATE
        f0, f1 = 500.0, 8000.0
        r, _ = self.dump(0.5 * np.sin(2 * np.pi * (f0 * t + 0.5 * (f1 - f0) * t ** 2)))
        for row in r:
            k = self.strong(row)
            line = f0 + (f1 - f0) * row[k, 1]
            self.assertLess(np.abs(row[k, 0] - line).max(), 3.0)


    def test_picture_is_sharper(self):
        """--reassign --png draws the points gathered onto the frame x bin grid: a 1234.5 Hz
        tone is a line of a few pixel rows where the plain spectrogram's Hann main lobe spans
        tens, on the same row (the middle column of a 800-pixel-high picture to 3 kHz)."""
        t = np.arange(3 * self.RATE) / self.RATE
        rows = {}
        with E.TempDir() as d:
            path = os.path.join(d, "x.wav")
            E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * 1234.5 * t), self.RATE)
            for name, extra in (("plain", []), ("reassign", ["--reassign"])):
                out = os.path.join(d, name + ".png")
                p = E.run([path, "--png", out, "--size", "600x800", "--fmax", "3000"] + extra)
                self.assertEqual(p.returncode, 0, p.stderr)
                img = E.read_png(out).astype(float)
                col = img[40:750, img.shape[1] // 2, :].sum(axis=1)  # inside the plot, not the labels
                bright = np.nonzero(col > col.min() + 0.5 * (col.max() - col.min()))[0]
                rows[name] = (len(bright), int(np.argmax(col)))
        self.assertGreater(rows["plain"][0], 10, rows)
        self.assertLessEqual(3 * rows["reassign"][0], rows["plain"][0], rows)
        self.assertLessEqual(abs(rows["reassign"][1] - rows["plain"][1]), 2, rows)


class MfccPicture(unittest.TestCase):
    def test_mfcc_png_follows_the_spectrum(self):
        """--mfcc --png: rows of coefficients, coloured over their own range. A tone that
        becomes noise half way changes the colours of many coefficient rows between a
        column in each half; the same tone throughout changes none (the picture's columns
        are equal)."""
        rate = 48000
        t = np.arange(2 * rate) / rate
        tone = 0.3 * np.sin(2 * np.pi * 300 * t)
        noise = 0.1 * np.random.default_rng(1).standard_normal(len(t))
        changed = {}
        with E.TempDir() as d:
            for name, x in (("steady", tone), ("change", np.where(t < 1.0, tone, noise))):
                path = os.path.join(d, name + ".wav")
                out = os.path.join(d, name + ".png")
                E.write_float_wav(path, x, rate)
                p = E.run([path, "--mfcc", 20, "--png", out, "--size", "600x400"])
                self.assertEqual(p.returncode, 0, p.stderr)
                img = E.read_png(out).astype(int)
                a, b = img[40:360, int(0.3 * 600)], img[40:360, int(0.7 * 600)]
                diff = np.abs(a - b).sum(axis=1) > 30
                changed[name] = int(diff.sum())  # pixel rows (a coefficient's row: 16 here)
                if name == "steady":
                    self.assertGreater(len({tuple(v) for v in a}), 5, "the rows all have one colour")
        self.assertEqual(changed["steady"], 0, changed)
        self.assertGreater(changed["change"], 100, changed)


class AveragePicture(unittest.TestCase):
    FRAME = (0x4d, 0x53, 0x60)  # render.c's frame colour around the plot
    BG = (0x12, 0x14, 0x19)

    def test_mel_average_plot_peaks_at_the_tone(self):
        """--mel --average mean --png: the spectrum plot of the averaged bands, each at its
        centre frequency (linear in Hz between them): its highest point is at the tone's
        frequency within a band's spacing, on the linear axis (0 .. 24 kHz)."""
        rate = 48000
        for hz in (1000.0, 7000.0):
            t = np.arange(2 * rate) / rate
            with E.TempDir() as d:
                path, out = os.path.join(d, "t.wav"), os.path.join(d, "a.png")
                E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * hz * t), rate)
                p = E.run([path, "--mel", 64, "--average", "mean", "--png", out, "--size", "900x500"])
                self.assertEqual(p.returncode, 0, p.stderr)
                _, meta, _ = E.dump(self, [path, "--mel", 64])
                img = E.read_png(out).astype(int)
            frame = np.all(img == self.FRAME, axis=2)
            cols = np.flatnonzero(frame.sum(axis=0) > 0.25 * img.shape[0])
            rows = np.flatnonzero(frame.sum(axis=1) > 0.25 * img.shape[1])
            x0, x1, y0, y1 = cols[0] + 1, cols[-1], rows[0] + 1, rows[-1]
            area = img[y0:y1, x0:x1]
            # the curve: bright pixels (the grid and the background are dark)
            ys, xs = np.nonzero(area.sum(axis=2) > 350)
            top = xs[ys == ys.min()].mean()
            got = top / (x1 - x0) * rate / 2
            centres = np.array(meta["freqs_hz"])
            spacing = np.diff(centres)[np.argmin(np.abs(centres[:-1] - hz))]
            self.assertLess(abs(got - hz), spacing + rate / 2 / (x1 - x0), "the plot peaks at %.0f Hz" % got)


class BadInput(unittest.TestCase):
    def bad(self, args, needle):
        with E.TempDir() as d:
            out = os.path.join(d, "o.npy")
            p = E.run([E.asset("two_tone_48k_s16.wav")] + args + ["-o", out], cwd=d)
            self.assertEqual(p.returncode, 2, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn(needle, lines[0])
            self.assertEqual(E.listing(d), set())

    def test_bad(self):
        self.bad(["--mel", "0"], "--mel 0")
        self.bad(["--mel", "20", "--fmax", "30000"], "above the Nyquist")
        self.bad(["--mfcc", "40", "--mel", "20"], "--mfcc 40")
        self.bad(["--mel", "20", "--bands", "3"], "not with --bands")
        self.bad(["--mel", "20", "--peaks"], "--peaks")
        self.bad(["--mel", "20", "--tone"], "--tone")
        self.bad(["--mel", "20", "--chroma"], "one transform")
        self.bad(["--mel", "600", "-n", "256"], "holds no FFT bin")
        self.bad(["--reassign", "--average", "mean"], "--average")
        self.bad(["--chroma", "--tuning", "0.7"], "--tuning 0.7")
        self.bad(["--chroma", "--tuning", "sharp"], "--tuning sharp")
        self.bad(["--mel", "20", "--tuning", "auto"], "only with --chroma")

    def test_png(self):
        """--png of mel, cqt, chroma, mfcc: a picture (its axes are test_render's test_columns);
        of an averaged transform: refused, nothing written."""
        with E.TempDir() as d:
            for i, args in enumerate((["--mel", 64], ["--cqt", 12, "--fmin", 200], ["--chroma"], ["--mfcc", 13])):
                out = os.path.join(d, "p%d.png" % i)
                p = E.run([E.asset("two_tone_48k_s16.wav"), "--size", "400x300", "--png", out] + args)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(E.read_png(out).shape, (300, 400, 3))
            before = E.listing(d)
            for args in (["--mfcc", 13, "--average", "mean"], ["--chroma", "--average", "mean"]):
                p = E.run([E.asset("two_tone_48k_s16.wav"), "--png", os.path.join(d, "x.png")] + args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("no picture", p.stderr)
                self.assertEqual(E.listing(d), before)

    def test_window_refuses(self):
        """Without an output the window opens on mel, CQT, chroma or the reassigned points
        (e2e_window_xform); what it cannot show is refused before it opens, one line, exit 2."""
        for args, needle in ((["--mfcc", "13"], "not MFCC"), (["--chroma", "--tuning", "auto"], "tuning"),
                             (["--mel", "20", "--average", "mean"], "no average"),
                             (["--view", "--tone", "--mel", "20"], "--view: not with --mel")):
            p = E.run([E.asset("two_tone_48k_s16.wav")] + args)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
            self.assertIn(needle, p.stderr)
            if args[0] != "--view":
                self.assertIn("give --dump or --png", p.stderr)


if __name__ == "__main__":
    E.main()
