#!/usr/bin/python3
"""Measurements of the real binary (docs/measurements.md): --average, --psd, --png with
--average, --tone, --tone-format, on files, --realtime and the microphone.

- --average mean against scipy.signal.welch (scaling 'spectrum' and, with --psd, 'density')
  on the same samples, after the documented conversion: our dBFS = welch's 'spectrum' dB +
  10*log10(2) in the bins 1 .. N/2-1 (DC and Nyquist equal); our dBFS/Hz = welch's
  'density' dB + 10*log10(2) likewise. Within 0.01 dB wherever the level is above
  -100 dBFS, for hann, hamming, blackman, flattop and rect, N 1024 and 4096, several hops.
- max / min hold against the per-frame reference spectra; the shapes (bins,) and
  (channels, bins); CSV; the sidecar's members.
- --png --average: the picture's size, the curve's highest pixel in the tone's column
  (found from the plot's frame), a label above it, the same bytes twice.
- --tone: a sine with -60/-70 dB harmonics and white noise (THD, THD+N, SNR within 0.1 dB
  of the analytic values), a quantised full-scale 16-bit sine (SNR within 1 dB of
  6.02*16 + 1.76 dB corrected for the band's share of the noise), --tone F with a stronger
  tone present, the text format's numbers, --channel all, --fmin/--fmax, --realtime
  (one line a second), the microphone (when SPECTRO_TEST_MIC is set: CMake sets it where
  the ALSA test device can be used).
- usage errors: one line, exit 2, no file left.
"""
import json
import os
import struct
import sys
import unittest

import numpy as np
import scipy.signal

import spectro_e2e as E

HERE = os.path.dirname(os.path.abspath(__file__))
ASOUND = os.path.join(os.path.dirname(HERE), "alsa", "asound.conf")
RATE = 48000
LOG2_DB = 10 * np.log10(2.0)
KEYS = ["fundamental_hz", "fundamental_dbfs", "harmonics", "thd_percent", "thd_db", "thdn_db", "snr_db",
        "sinad_db", "enob_bits", "noise_dbfs", "band_hz", "frames_averaged"]
FRAME_RGB = (0x4d, 0x53, 0x60)  # RENDER_COL_FRAME: the plot's outline
LABEL_RGB = (0xf0, 0xf1, 0xf4)  # RENDER_COL_TITLE: the peak labels' text and markers


def write_pcm16(path, x, rate=RATE):
    d = np.asarray(x).astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    chunks = b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(d)) + d
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks)


read_png = E.read_png


def welch_db(x, n, hop, win, scaling):
    """welch in dB converted to our convention: + 10 log10(2) in the bins 1 .. N/2-1."""
    _, s = scipy.signal.welch(x, RATE, window=E.window(win, n), nperseg=n, noverlap=n - hop, detrend=False,
                              scaling=scaling, return_onesided=True)
    db = 10 * np.log10(np.maximum(s, 1e-300))
    db[1:-1] += LOG2_DB
    return db


def tone_json(tc, proc, live=False):
    """The reports, each led by "input", then "time_s" when live, then "channel" with
    --channel all."""
    tc.assertEqual(proc.returncode, 0, proc.stderr)
    lines = proc.stdout.splitlines()
    tc.assertGreater(len(lines), 0, proc.stderr)
    out = [json.loads(l) for l in lines]
    lead = ["input"] + (["time_s"] if live else [])
    for o in out:
        tc.assertEqual(list(o)[:len(lead)], lead)
        tc.assertEqual([k for k in o if k not in lead and k != "channel"], KEYS)
    return out


def harmonic_signal(f0, secs=10, sigma=6.9e-5, seed=7):
    """0.5 sin(f0) with -60 and -70 dB harmonics and white noise; the analytic THD, THD+N
    and SNR in the 20 Hz .. 20 kHz band of an n-point FFT (docs/measurements.md "Tone
    analysis": a sine of amplitude A counts A^2, white noise of variance s^2 counts 2 s^2
    over 0 .. rate/2)."""
    rng = np.random.default_rng(seed)
    t = np.arange(RATE * secs) / RATE
    a1, a2, a3 = 0.5, 0.5e-3, 0.5 * 10 ** (-70 / 20)
    x = (a1 * np.sin(2 * np.pi * f0 * t) + a2 * np.sin(2 * np.pi * 2 * f0 * t + 0.3) +
         a3 * np.sin(2 * np.pi * 3 * f0 * t + 1.1) + sigma * rng.standard_normal(len(t)))

    def expect(n):
        k = np.arange(n // 2 + 1) * RATE / n
        frac = np.count_nonzero((k >= 20) & (k <= 20000)) / (n / 2)
        noise = 2 * sigma ** 2 * frac
        return (10 * np.log10((a2 ** 2 + a3 ** 2) / a1 ** 2),
                10 * np.log10((a2 ** 2 + a3 ** 2 + noise) / a1 ** 2),
                10 * np.log10(a1 ** 2 / noise))
    return x, expect


class Average(unittest.TestCase):
    def test_welch(self):
        rng = np.random.default_rng(1)
        t = np.arange(RATE * 3) / RATE
        x = (0.5 * np.sin(2 * np.pi * 1000.3 * t) + 0.01 * np.sin(2 * np.pi * 5123.7 * t) +
             1e-3 * rng.standard_normal(len(t)))
        x32 = x.astype(np.float32).astype(np.float64)  # what the program reads
        worst = 0.0
        with E.TempDir() as d:
            wav, out, psd = (os.path.join(d, f) for f in ("in.wav", "a.npy", "p.npy"))
            E.write_float_wav(wav, x, RATE)
            for win in ("hann", "hamming", "blackman", "flattop", "rect"):
                for n in (1024, 4096):
                    for hop in (n // 4, n // 2, 3 * n // 8, n):
                        args = ["-q", "-b", "cpu", "-n", n, "--hop", hop, "-w", win, "--average", "mean", wav]
                        p = E.run(args + ["--dump", out])
                        self.assertEqual(p.returncode, 0, p.stderr)
                        p = E.run(args + ["--psd", "--dump", psd])
                        self.assertEqual(p.returncode, 0, p.stderr)
                        a, dens = E.load_npy(self, out), E.load_npy(self, psd)
                        ref = welch_db(x32, n, hop, win, "spectrum")
                        ref_d = welch_db(x32, n, hop, win, "density")
                        self.assertEqual(a.shape, (n // 2 + 1,))
                        sel = ref > -100
                        self.assertGreater(sel.sum(), 10)
                        err = max(np.abs(a - ref)[sel].max(), np.abs(dens - ref_d)[sel].max())
                        worst = max(worst, err)
                        self.assertLess(err, 0.01, "%s N=%d hop=%d: %.4f dB from welch" % (win, n, hop, err))
                        m = E.load_json(self, out + ".json")
                        w = E.window(win, n)
                        enbw = n * (w ** 2).sum() / w.sum() ** 2
                        self.assertEqual(m["average"], "mean")
                        self.assertEqual(m["units"], "dBFS")
                        self.assertEqual(m["frames_averaged"], E.frame_count(len(x), n, hop))
                        self.assertAlmostEqual(m["enbw_bins"], enbw, places=5)
                        self.assertAlmostEqual(m["enbw_hz"], enbw * RATE / n, places=3)
                        self.assertIn("10*log10(enbw_bins * bin_hz)", m["psd_conversion"])
                        self.assertEqual(E.load_json(self, psd + ".json")["units"], "dBFS/Hz")
                        # the sidecar's conversion is the one --psd applies
                        off = float(m["psd_conversion"].split("=")[-1].replace(" ", "").replace("dBFS", ""))
                        self.assertLess(np.abs(a + off - dens).max(), 2e-3)
        print("welch: worst %.5f dB" % worst)

    def test_max_min(self):
        rng = np.random.default_rng(2)
        x = 0.3 * rng.standard_normal((RATE, 2))
        x[RATE // 2:, 1] += 0.5 * np.sin(2 * np.pi * 3000 * np.arange(RATE - RATE // 2) / RATE)
        with E.TempDir() as d:
            wav = os.path.join(d, "in.wav")
            E.write_float_wav(wav, x, RATE)
            ref = E.reference(x.astype(np.float32).astype(np.float64), n=1024, channel="all")
            for mode, fn in (("max", np.max), ("min", np.min)):
                out = os.path.join(d, mode + ".npy")
                p = E.run(["-q", "-b", "cpu", "-n", 1024, "--channel", "all", "--average", mode, "--dump", out, wav])
                self.assertEqual(p.returncode, 0, p.stderr)
                a = E.load_npy(self, out)
                self.assertEqual(a.shape, (2, 513))
                want = fn(ref, axis=1)
                sel = want > -120
                self.assertLess(np.abs(a - want)[sel].max(), 2e-3, mode)
                self.assertEqual(E.load_json(self, out + ".json")["average"], mode)
            # one channel picked: no channel axis
            out = os.path.join(d, "one.npy")
            p = E.run(["-q", "-n", 1024, "--channel", "1", "--average", "max", "--dump", out, wav])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(E.load_npy(self, out).shape, (513,))

    def test_csv(self):
        with E.TempDir() as d:
            out = os.path.join(d, "a.csv")
            p = E.run(["-q", "-n", 256, "--average", "mean", "--dump", out, "synth:sine=3000,duration=1"])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                rows = f.read().splitlines()
            self.assertEqual(len(rows), 2)
            hz = [float(v) for v in rows[0].split(",")]
            self.assertEqual(len(hz), 129)
            self.assertAlmostEqual(hz[1], RATE / 256)
            lv = np.array([float(v) for v in rows[1].split(",")])
            self.assertEqual(int(np.argmax(lv)), 16)  # 3 kHz = bin 16
            self.assertTrue(os.path.exists(out + ".json"))
            # standard output, every channel
            p = E.run(["-q", "-n", 256, "--average", "max", "--channel", "all", "--dump", "-",
                       "synth:channels=2,sine=3000,duration=1"])
            self.assertEqual(p.returncode, 0, p.stderr)
            rows = p.stdout.splitlines()
            self.assertEqual(len(rows), 3)
            self.assertTrue(rows[0].startswith("channel,0,"))
            self.assertTrue(rows[1].startswith("0,") and rows[2].startswith("1,"))

    def test_png(self):
        n = 4096
        f = 187 * RATE / n  # 2191.4 Hz, on a bin
        with E.TempDir() as d:
            wav, png, png2 = (os.path.join(d, f) for f in ("in.wav", "a.png", "b.png"))
            t = np.arange(RATE * 2) / RATE
            E.write_float_wav(wav, 0.5 * np.sin(2 * np.pi * f * t), RATE)
            args = ["-q", "-b", "cpu", "--average", "mean", "--size", "900x500", wav]
            p = E.run(args + ["--png", png])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(E.run(args + ["--png", png2]).returncode, 0)
            with open(png, "rb") as a, open(png2, "rb") as b:
                self.assertEqual(a.read(), b.read(), "the same picture twice")
            img = read_png(png)
            self.assertEqual(img.shape, (500, 900, 3))
            # the plot's frame: rows and columns mostly of the frame colour
            frame = np.all(img == FRAME_RGB, axis=2)
            cols = np.flatnonzero(frame.sum(axis=0) > 0.5 * 500 * 0.5)
            rows = np.flatnonzero(frame.sum(axis=1) > 0.5 * 900 * 0.5)
            x0, x1, y0, y1 = cols[0] + 1, cols[-1], rows[0] + 1, rows[-1]  # the area inside
            w = x1 - x0
            # the curve: the colour map's 0.85 colour, the brightest non-label colour inside
            curve = np.all(img[y0:y1, x0:x1] == self.curve_rgb(img, y0, y1, x0, x1), axis=2)
            ys, xs = np.nonzero(curve)
            top_x = xs[np.argmin(ys)] + x0
            want = x0 + int(np.floor(f / (RATE / 2) * w))
            self.assertLessEqual(abs(top_x - want), 1, "the curve peaks at column %d, the tone is at %d" % (top_x, want))
            # a label (text and marker in the label colour) above the peak
            above = np.all(img[y0:y0 + int(0.3 * (y1 - y0)), max(x0, want - 60):want + 60] == LABEL_RGB, axis=2)
            self.assertGreater(above.sum(), 20, "no label above the tone")

    @staticmethod
    def curve_rgb(img, y0, y1, x0, x1):
        """The curve's colour: the most frequent colour of the area's lowest rows that is not
        the background (the curve runs along the floor of an empty spectrum)."""
        patch = img[y0:y1, x0:x1].reshape(-1, 3)
        bg = np.array([0x12, 0x14, 0x19])
        colours, counts = np.unique(patch, axis=0, return_counts=True)
        order = np.argsort(-counts)
        for i in order:
            c = colours[i]
            if not (c == bg).all() and not (c == FRAME_RGB).all() and not (c == LABEL_RGB).all() and c.sum() > 300:
                return c
        raise AssertionError("no curve colour found")

    def test_usage(self):
        cases = [
            (["--average", "mean"], "--average"),
            (["--psd", "--dump", "x.npy"], "--psd"),
            (["--tone", "--dump", "-"], "standard output"),
            (["--tone", "--peaks"], "standard output"),
            (["--tone-format", "text", "--peaks"], "--tone-format"),
            (["--average", "median", "--dump", "x.npy"], "--average median"),
            (["--tone=-5"], "--tone -5"),
            (["--tone", "--tone-format", "xml"], "--tone-format xml"),
            (["--tone", "30000"], "--tone 30000"),
            (["--tone", "--fmin", "30000"], "--fmin"),
        ]
        with E.TempDir() as d:
            for args, what in cases:
                p = E.run(args + ["synth:sine=1000,duration=1"], cwd=d)
                self.assertEqual(p.returncode, 2, (args, p.stderr))
                lines = E.stderr_lines(p)
                self.assertEqual(len(lines), 1, (args, p.stderr))
                self.assertIn(what, lines[0], args)
                self.assertEqual(p.stdout, "", args)
                self.assertEqual(E.listing(d), set(), args)


class Tone(unittest.TestCase):
    def test_analytic(self):
        with E.TempDir() as d:
            wav = os.path.join(d, "h.wav")
            for f0, n, win in ((171 * RATE / 8192, 8192, None), (1004.1211, 8192, None),
                               (171 * RATE / 8192, 8192, "blackman-harris"), (997.0, 4096, None)):
                x, expect = harmonic_signal(f0)
                E.write_float_wav(wav, x, RATE)
                args = ["-q", "-b", "cpu", "-n", n, "--tone", wav] + (["-w", win] if win else [])
                r = tone_json(self, E.run(args))[0]
                thd, thdn, snr = expect(n)
                what = "f0 %.3f N %d %s: %s" % (f0, n, win, r)
                self.assertAlmostEqual(r["fundamental_hz"], f0, delta=0.01, msg=what)
                self.assertAlmostEqual(r["fundamental_dbfs"], 20 * np.log10(0.5), delta=0.01, msg=what)
                self.assertAlmostEqual(r["thd_db"], thd, delta=0.1, msg=what)
                self.assertAlmostEqual(r["thdn_db"], thdn, delta=0.1, msg=what)
                self.assertAlmostEqual(r["snr_db"], snr, delta=0.1, msg=what)
                self.assertAlmostEqual(r["sinad_db"], -r["thdn_db"], delta=1e-4)
                self.assertAlmostEqual(r["enob_bits"], (r["sinad_db"] - 1.76) / 6.02, delta=1e-3)
                self.assertAlmostEqual(r["thd_percent"], 100 * 10 ** (r["thd_db"] / 20), delta=1e-5)
                self.assertAlmostEqual(r["noise_dbfs"], r["fundamental_dbfs"] - r["snr_db"], delta=1e-3)
                self.assertEqual(r["band_hz"], [20, 20000])
                self.assertEqual([h["n"] for h in r["harmonics"]], list(range(2, 11)))
                self.assertAlmostEqual(r["harmonics"][0]["dbfs"], 20 * np.log10(0.5e-3), delta=0.05)
                self.assertAlmostEqual(r["harmonics"][1]["dbfs"], 20 * np.log10(0.5) - 70, delta=0.1)
                self.assertEqual(r["frames_averaged"], E.frame_count(len(x), n, n // 4))

    def test_16bit(self):
        """A full-scale sine quantised to 16 bits: SNR = 6.02*16 + 1.76 dB over 0 .. rate/2,
        plus 10*log10 of (rate/2) / the band's width, since only the band's share of the
        (white) quantisation noise counts; the amplitude is 32767/32768."""
        n = 4096
        k = np.arange(n // 2 + 1) * RATE / n
        frac = np.count_nonzero((k >= 20) & (k <= 20000)) / (n / 2)
        expect = 10 * np.log10((32767 / 32768) ** 2 / 2 / ((1 / 32768) ** 2 / 12) / frac)
        self.assertAlmostEqual(expect, 6.02 * 16 + 1.76 + 10 * np.log10(1 / frac), delta=0.02)
        with E.TempDir() as d:
            wav = os.path.join(d, "q.wav")
            for f in (997.0, 1004.3359, 7001.3):  # off the bins
                t = np.arange(RATE * 10)
                write_pcm16(wav, np.round(32767 * np.sin(2 * np.pi * f * t / RATE + 0.1)))
                r = tone_json(self, E.run(["-q", "-b", "cpu", "--tone", wav]))[0]
                self.assertAlmostEqual(r["snr_db"], expect, delta=1.0, msg="%.2f Hz: %s" % (f, r))
                self.assertAlmostEqual(r["fundamental_dbfs"], 20 * np.log10(32767 / 32768), delta=0.01)
                self.assertGreater(r["enob_bits"], 15.5)

    def test_low_fundamental(self):
        """Tones 8 to 2K bins up (94 .. 164 Hz at N 4096, 48 kHz, kaiser:20's K = 7) have
        lobes reaching into bins 0 .. K: their level within 0.05 dB at the default N (100 Hz
        read 0.68 dB low, 95 Hz 1.35 dB, when the DC region took those bins first)."""
        t = np.arange(RATE * 3) / RATE
        with E.TempDir() as d:
            wav = os.path.join(d, "low.wav")
            for f, a in ((95.0, 0.5), (100.0, 0.5), (100.0, 0.05), (110.0, 0.25), (131.7, 0.5), (1000.0, 0.5)):
                E.write_float_wav(wav, a * np.sin(2 * np.pi * f * t + 0.4), RATE)
                r = tone_json(self, E.run(["-q", "-b", "cpu", "--tone", wav]))[0]
                what = "%.1f Hz at %g: %s" % (f, a, r)
                self.assertAlmostEqual(r["fundamental_dbfs"], 20 * np.log10(a), delta=0.05, msg=what)
                self.assertAlmostEqual(r["fundamental_hz"], f, delta=0.01, msg=what)
                self.assertGreater(r["snr_db"], 100, what)

    def test_given(self):
        t = np.arange(RATE * 2) / RATE
        x = 0.1 * np.sin(2 * np.pi * 1100 * t) + 0.9 * np.sin(2 * np.pi * 5000 * t)
        with E.TempDir() as d:
            wav = os.path.join(d, "two.wav")
            E.write_float_wav(wav, x, RATE)
            r = tone_json(self, E.run(["-q", "--tone", wav]))[0]
            self.assertAlmostEqual(r["fundamental_hz"], 5000, delta=0.05)
            for form in (["--tone", "1100"], ["--tone=1100"], ["--tone", "1100.0"]):
                r = tone_json(self, E.run(["-q"] + form + [wav]))[0]
                self.assertAlmostEqual(r["fundamental_hz"], 1100, delta=0.05, msg=form)
                self.assertAlmostEqual(r["fundamental_dbfs"], 20 * np.log10(0.1), delta=0.01)
                self.assertGreater(r["thdn_db"], 19.0)  # the 5 kHz tone is no harmonic of 1.1 kHz
            # a band: harmonics up to its top only
            r = tone_json(self, E.run(["-q", "--tone", "1100", "--fmin", "100", "--fmax", "5000", wav]))[0]
            self.assertEqual(r["band_hz"], [100, 5000])
            self.assertEqual([h["n"] for h in r["harmonics"]], [2, 3, 4])

    def test_text(self):
        with E.TempDir() as d:
            wav = os.path.join(d, "h.wav")
            x, _ = harmonic_signal(1000.0, secs=2)
            E.write_float_wav(wav, x, RATE)
            j = tone_json(self, E.run(["-q", "--tone", wav]))[0]
            p = E.run(["-q", "--tone", "--tone-format", "text", wav])
            self.assertEqual(p.returncode, 0, p.stderr)
            text = p.stdout
            nums = [float(v) for line in text.splitlines() for v in line.split()
                    if v.replace(".", "", 1).replace("-", "", 1).isdigit()]
            want = [j["fundamental_hz"], j["fundamental_dbfs"]]
            for h in j["harmonics"]:
                want += [h["n"], h["hz"], h["dbfs"]]
            want += [j["thd_percent"], j["thd_db"], j["thdn_db"], j["snr_db"], j["sinad_db"], j["enob_bits"],
                     j["noise_dbfs"]] + j["band_hz"] + [j["frames_averaged"]]
            self.assertEqual(nums, want, text)
            for word in ("THD", "THD+N", "SNR", "SINAD", "ENOB"):
                self.assertIn(word, text)

    def test_channels_all(self):
        p = E.run(["-q", "--tone", "--channel", "all", "synth:channels=2,sine=1000@0.5,noise=0.0001,duration=2"])
        out = tone_json(self, p)
        self.assertEqual([o["channel"] for o in out], [0, 1])
        for o in out:
            self.assertAlmostEqual(o["fundamental_hz"], 1000, delta=0.05)

    def test_batch(self):
        """Several inputs: each line names its input (and its channel with --channel all);
        the text format names it too."""
        with E.TempDir() as d:
            t = np.arange(RATE * 2) / RATE
            paths = []
            for f in (440.0, 1000.0, 3000.0):
                paths.append(os.path.join(d, "s%d.wav" % f))
                E.write_float_wav(paths[-1], 0.5 * np.sin(2 * np.pi * f * t), RATE)
            out = tone_json(self, E.run(["-q", "--tone"] + paths))
            self.assertEqual([o["input"] for o in out], paths)
            self.assertEqual([round(o["fundamental_hz"]) for o in out], [440, 1000, 3000])
            out = tone_json(self, E.run(["-q", "--tone", "--channel", "all", paths[0],
                                         "synth:channels=2,sine=700,duration=1"]))
            self.assertEqual([(o["input"], o["channel"]) for o in out],
                             [(paths[0], 0), ("synth:channels=2,sine=700,duration=1", 0),
                              ("synth:channels=2,sine=700,duration=1", 1)])
            p = E.run(["-q", "--tone", "--tone-format", "text"] + paths[:2])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual([l.split()[1] for l in p.stdout.splitlines() if l.startswith("input ")], paths[:2])

    def test_realtime(self):
        """--realtime: one report a second, over the frames that start in it (47, 47, 47, then
        the 20 of the last half second: N 4096, hop 1024)."""
        with E.TempDir() as d:
            wav = os.path.join(d, "r.wav")
            t = np.arange(int(RATE * 3.5)) / RATE
            E.write_float_wav(wav, 0.5 * np.sin(2 * np.pi * 440 * t), RATE)
            p = E.run(["-b", "cpu", "--realtime", "--tone", wav], timeout=30)
            out = tone_json(self, p, live=True)
            self.assertEqual([o["time_s"] for o in out], [0, 1, 2, 3])
            self.assertEqual({o["input"] for o in out}, {wav})
            got = [o["frames_averaged"] for o in out]
            if "dropped" in p.stderr:
                # a loaded machine made the live path skip ahead: fewer frames, never more
                self.assertEqual(len(got), 4, got)
                self.assertTrue(all(0 < g <= w for g, w in zip(got, [47, 47, 47, 20])), got)
            else:
                self.assertEqual(got, [47, 47, 47, 20])
            for o in out:
                self.assertAlmostEqual(o["fundamental_hz"], 440, delta=0.05)

    @unittest.skipUnless(os.environ.get("SPECTRO_TEST_MIC"), "no ALSA test device (SPECTRO_TEST_MIC unset)")
    def test_microphone(self):
        """The microphone through ALSA's file plugin (tests/alsa/asound.conf, as e2e_live):
        a report a second, and an averaged dump. The plugin has no clock, so a slow machine
        skips ahead: frames_averaged may fall short, never over 47."""
        with E.TempDir() as d:
            raw = os.path.join(d, "sine.raw")
            t = np.arange(RATE * 60) / RATE
            with open(raw, "wb") as f:
                f.write((0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype("<f4").tobytes())
            env = dict(os.environ, ALSA_CONFIG_PATH=ASOUND, SPECTRO_TEST_SINE=raw,
                       JACK_DEFAULT_SERVER="spectro-test-no-server")
            out = tone_json(self, E.run(["--duration", "3", "--tone", "--rate", RATE, "-b", "cpu", "-q"], env=env),
                            live=True)
            self.assertLessEqual(len(out), 3)
            times = [o["time_s"] for o in out]
            # a second a report, from the input's start, in order; a loaded machine may skip
            # ahead past a whole second (a second with no frame has no report)
            self.assertTrue(out and all(t == int(t) and 0 <= t <= 2 for t in times), times)
            self.assertEqual(times, sorted(set(times)), times)
            for o in out:
                self.assertAlmostEqual(o["fundamental_hz"], 1000, delta=0.05)
                self.assertAlmostEqual(o["fundamental_dbfs"], 20 * np.log10(0.5), delta=0.05)
                self.assertLessEqual(o["frames_averaged"], 47)
            npy = os.path.join(d, "mic.npy")
            p = E.run(["--duration", "2", "--average", "mean", "--dump", npy, "--rate", RATE, "-b", "cpu", "-q"],
                      env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            a = E.load_npy(self, npy)
            self.assertEqual(a.shape, (2049,))
            self.assertEqual(int(np.argmax(a)), round(1000 / (RATE / 4096)))
            self.assertGreater(E.load_json(self, npy + ".json")["frames_averaged"], 0)


if __name__ == "__main__":
    E.main()
