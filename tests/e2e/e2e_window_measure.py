"""End-to-end tests of the window's measurement panel (view_measure.c, view_select.c) under
a virtual X server, with e2e_window.py's Window and helpers:

    python3 tests/e2e/e2e_window_measure.py SPECTRO_BINARY ASSETS_DIR [unittest args]

- a shift+drag selection's exported spectrum (`e`) against `--average mean --start A --end B
  --dump` over the selection's frames (SPECTRO_VIEW_STATS says which);
- the running average (`a`): infinite against --average mean, exponential against its
  definition applied to the frames of a --dump, on a tone that stops;
- tone analysis (`t`, --view --tone): the harmonics marked and THD against --tone;
- two-point measurement (`m`): the read-out's deltas against the points under the cursor;
- the spectrum strip's layout at a small and a large size: its boxes inside, apart, over no
  band bar, and a legend entry for every curve.

Needs Xvfb and xdotool (and xwd); exits 77 (skipped) when one is missing.
"""
import glob
import json
import math
import os
import shutil
import tempfile
import time
import unittest

import numpy as np

import e2e_window as EW
import spectro_e2e as E

RATE, N, HOP = 48000, 4096, 1024
TAU_S = 1.0  # the exponential average's time constant (docs/manual.md "The measurement panel")


def read_avg_csv(path):
    """--average's CSV: (header line, rows as lists of the written strings)."""
    with open(path) as f:
        lines = f.read().splitlines()
    return lines[0], [ln.split(",") for ln in lines[1:]]


@E.needs_hooks
class TestPanel(EW.WindowCase):
    prefix = "spectro_ptest_"
    rate = RATE

    def open(self, args, path):
        """A window on path with SPECTRO_VIEW_STATS; returns it, the stats' path and the
        plot's rectangle (from its own screenshot, once the file's picture is up)."""
        stats = os.path.join(self.tmp, "stats-%d.json" % len(self.windows))
        w = EW.Window(["-q", "--size", "960x600"] + args + [path], {"SPECTRO_VIEW_STATS": stats})
        self.windows.append(w)
        deadline = time.time() + 20
        while True:
            time.sleep(0.5)
            try:
                plot = EW.find_plot(w.screenshot_png())
                break
            except AssertionError:
                if time.time() > deadline:
                    raise
        time.sleep(0.5)  # the analysis of these short files is over by now
        return w, stats, plot

    def quit_stats(self, w, stats):
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            return json.load(f)

    def export(self, w):
        """Presses e and returns the CSV written (with its sidecar)."""
        w.key("e")
        deadline = time.time() + 20
        while time.time() < deadline:
            got = [p for p in glob.glob(os.path.join(w.dir, "spectro-avg-*.csv"))]
            if got and os.path.exists(got[0] + ".json"):
                self.assertRegex(os.path.basename(got[0]), r"^spectro-avg-\d{8}-\d{6}(-\d+)?\.csv$")
                return got[0]
            time.sleep(0.1)
        raise AssertionError("no export written: " + w.stderr())

    def reference(self, args, path):
        out = os.path.join(self.tmp, "ref-%d.csv" % len(os.listdir(self.tmp)))
        p = E.run(["-q"] + args + ["--dump", out, path])
        self.assertEqual(p.returncode, 0, p.stderr)
        return out

    def assert_csv_equal(self, got, ref, tol=0.0):
        gh, gr = read_avg_csv(got)
        rh, rr = read_avg_csv(ref)
        self.assertEqual(gh, rh, "the header differs from --average mean's")
        self.assertEqual(len(gr), len(rr))
        a = np.array(gr, float)
        b = np.array(rr, float)
        self.assertEqual(a.shape, b.shape)
        diff = np.abs(a - b).max()
        self.assertLessEqual(diff, tol, "largest difference %.4f dB" % diff)
        return a

    def assert_dump_like(self, got, ref, skip=()):
        """The export is --dump's writer's (spectro_dump): the CSV's bytes are the reference's,
        and so is every member of the sidecar that --average mean --dump writes (but the psd
        conversion, which the export leaves out, and those in skip)."""
        with open(got, "rb") as f, open(ref, "rb") as g:
            self.assertEqual(f.read(), g.read(), "the export's bytes differ from --average mean --dump's")
        with open(got + ".json") as f, open(ref + ".json") as g:
            meta, want = json.load(f), json.load(g)
        for k in want:
            if k != "psd_conversion" and k not in skip:
                self.assertEqual(meta.get(k), want[k], "sidecar member " + k)

    # ---- (a) selection -------------------------------------------------------------------

    def test_selection_spectrum_export(self):
        """shift+drag over the middle of a sweep selects frames [a, b); e writes their power
        mean, which is --average mean over exactly that audio (re-read at full precision:
        the same bytes); Esc clears the selection (the window stays), then quits."""
        path = self.wav("sweep.wav", EW.busy_signal(3.0))
        w, stats, (x, y, pw, ph) = self.open([], path)
        EW.xdo("windowfocus", "--sync", w.wid)
        EW.xdo("mousemove", "--window", w.wid, x + int(pw * 0.3), y + ph // 2)
        time.sleep(0.2)
        EW.xdo("keydown", "shift")
        time.sleep(0.2)
        EW.xdo("mousedown", "1")
        time.sleep(0.2)
        for f in (0.4, 0.5, 0.6):
            EW.xdo("mousemove", "--window", w.wid, x + int(pw * f), y + ph // 2)
            time.sleep(0.15)
        EW.xdo("mouseup", "1")
        time.sleep(0.2)
        EW.xdo("keyup", "shift")
        time.sleep(0.3)
        got = self.export(w)
        s = self.quit_stats(w, stats)
        sel = s["selection"]
        self.assertIsNotNone(sel, s)
        a, b = sel["frames"]
        total = (3 * RATE - N) // HOP + 1
        # about 0.3 .. 0.6 of the file's frames
        self.assertLess(abs(a - 0.3 * total), 3, sel)
        self.assertLess(abs(b - 0.6 * total), 3, sel)
        self.assertAlmostEqual(sel["start_s"], a * HOP / RATE, places=9)
        self.assertAlmostEqual(sel["end_s"], ((b - 1) * HOP + N) / RATE, places=9)
        self.assertTrue(sel["ready"], sel)
        self.assertIn("sel ", s["status"])
        ref = self.reference(["--average", "mean", "--start", repr(sel["start_s"]), "--end", repr(sel["end_s"])],
                             path)
        self.assert_csv_equal(got, ref)
        with open(got + ".json") as f:
            meta = json.load(f)
        self.assertEqual(meta["frames_averaged"], b - a)
        self.assertEqual(meta["selection_frames"], [a, b])
        # not the whole file's mean: the selection made a difference
        whole = self.reference(["--average", "mean"], path)
        self.assertGreater(np.abs(np.array(read_avg_csv(got)[1], float) -
                                  np.array(read_avg_csv(whole)[1], float)).max(), 3.0)

    def test_escape_clears_then_quits(self):
        """Esc with a selection clears it and keeps the window; Esc again quits."""
        path = self.wav("sine.wav", 0.5 * np.sin(2 * np.pi * 1125.0 * np.arange(2 * RATE) / RATE))
        w, stats, (x, y, pw, ph) = self.open([], path)
        EW.xdo("windowfocus", "--sync", w.wid)
        EW.xdo("mousemove", "--window", w.wid, x + pw // 4, y + ph // 2)
        EW.xdo("keydown", "shift")
        EW.xdo("mousedown", "1")
        EW.xdo("mousemove", "--window", w.wid, x + pw // 2, y + ph // 2)
        time.sleep(0.2)
        EW.xdo("mouseup", "1")
        EW.xdo("keyup", "shift")
        time.sleep(0.3)
        w.key("Escape")
        time.sleep(0.5)
        self.assertTrue(w.alive(), "Esc with a selection closed the window")
        w.key("Escape")
        self.assertEqual(w.proc.wait(10), 0, w.stderr())
        with open(stats) as f:
            self.assertIsNone(json.load(f)["selection"])

    # ---- (b) running average -------------------------------------------------------------

    def test_infinite_average_is_average_mean(self):
        """a, a: the infinite running average; e on a finished file writes what --average
        mean --dump writes (the same frames, the same accumulator)."""
        t = np.arange(3 * RATE) / RATE
        rng = np.random.default_rng(5)
        path = self.wav("steady.wav", 0.3 * np.sin(2 * np.pi * 2000.0 * t) + 0.01 * rng.standard_normal(t.size))
        w, stats, _ = self.open([], path)
        w.key("a", "a")
        time.sleep(0.3)
        got = self.export(w)
        s = self.quit_stats(w, stats)
        self.assertEqual(s["avg_mode"], "infinite")
        self.assertEqual(s["panel_shown"], "infinite")
        self.assertEqual(s["panel_frames"], (3 * RATE - N) // HOP + 1)
        ref = self.reference(["--average", "mean"], path)
        self.assert_csv_equal(got, ref, tol=1e-4)
        self.assert_dump_like(got, ref)
        # the sidecar names the decoder, and no selection (there was none)
        with open(got + ".json") as f:
            meta = json.load(f)
        self.assertEqual(meta["decoder"], "libsndfile")
        self.assertIsNone(meta["selection_frames"])

    def test_spl_offset_export(self):
        """--spl-offset 94: the window's levels are corrected as every output's (the running
        average's export equals --average mean --spl-offset 94), and it names their unit dB
        SPL (the export's sidecar; the read-out and the axes use the same unit)."""
        t = np.arange(3 * RATE) / RATE
        path = self.wav("spl.wav", 0.3 * np.sin(2 * np.pi * 1000.0 * t))
        w, stats, _ = self.open(["--spl-offset", "94"], path)
        w.key("a", "a")
        time.sleep(0.3)
        got = self.export(w)
        self.quit_stats(w, stats)
        ref = self.reference(["--average", "mean", "--spl-offset", "94"], path)
        self.assert_csv_equal(got, ref, tol=1e-4)
        # level_unit "dB SPL" among the members; units: the export names the levels' unit
        self.assert_dump_like(got, ref, skip=("units",))
        with open(got + ".json") as f:
            self.assertEqual(json.load(f)["units"], "dB SPL")

    def test_exponential_average_decays(self):
        """a: the exponential average, P <- P + alpha (P_frame - P), alpha = 1 - exp(-hop /
        (rate tau)), over the frames in order: against that recursion run on the frames of a
        --dump, on a tone that stops 1 s before the end (its level has fallen by about
        4.34 dB per second of frames since; the mean of all frames has not)."""
        t = np.arange(3 * RATE) / RATE
        x = np.where(t < 2.0, 0.5 * np.sin(2 * np.pi * 1125.0 * t), 0.0) + 1e-4 * np.sin(2 * np.pi * 5000.0 * t)
        path = self.wav("stop.wav", x)
        w, stats, _ = self.open([], path)
        w.key("a")
        time.sleep(0.3)
        got = self.export(w)
        s = self.quit_stats(w, stats)
        self.assertEqual(s["avg_mode"], "exponential")
        frames = os.path.join(self.tmp, "frames.npy")
        p = E.run(["-q", "--dump", frames, path])
        self.assertEqual(p.returncode, 0, p.stderr)
        db = np.load(frames).astype(np.float64)
        alpha = 1.0 - math.exp(-HOP / (RATE * TAU_S))
        pw = 10.0 ** (db[0] / 10.0)
        for row in db[1:]:
            pw = pw + alpha * (10.0 ** (row / 10.0) - pw)
        want = np.maximum(10.0 * np.log10(np.maximum(pw, 1e-300)), -200.0)
        have = np.array(read_avg_csv(got)[1][0], float)
        loud = want > -150
        self.assertLess(np.abs(have[loud] - want[loud]).max(), 2e-3)
        k = int(round(1125.0 * N / RATE))
        # the tone's last frame ends at 2 s: the frames after it took its power down
        after = np.sum((np.arange(len(db)) * HOP) >= 2.0 * RATE)
        self.assertLess(abs((have[k] - db[:, k].max()) - 10 * math.log10(1 - alpha) * after), 1.0)
        mean = np.array(read_avg_csv(self.reference(["--average", "mean"], path))[1][0], float)
        self.assertGreater(abs(have[k] - mean[k]), 1.0)

    # ---- (c) tone ------------------------------------------------------------------------

    def tone_signal(self):
        t = np.arange(3 * RATE) / RATE
        rng = np.random.default_rng(7)
        x = (0.5 * np.sin(2 * np.pi * 1000.0 * t) + 0.0005 * np.sin(2 * np.pi * 2000.0 * t) +
             0.00016 * np.sin(2 * np.pi * 3000.0 * t) + 1e-5 * rng.standard_normal(t.size))
        return self.wav("harm.wav", x)

    def check_tone(self, tone, path, args):
        p = E.run(["-q", "--tone"] + args + [path])
        self.assertEqual(p.returncode, 0, p.stderr)
        ref = json.loads(p.stdout.splitlines()[-1])
        self.assertTrue(tone["on"] and tone["ok"], tone)
        self.assertEqual(tone["source"], "infinite")
        want = [ref["fundamental_hz"]] + [h["hz"] for h in ref["harmonics"]]
        self.assertEqual(len(tone["marked_hz"]), 10)
        for i, (g, r) in enumerate(zip(tone["marked_hz"], want)):
            self.assertLess(abs(g - r), 0.01)
            self.assertLess(abs(g - 1000.0 * (i + 1)), 1.0)
        self.assertLess(abs(tone["thd_db"] - ref["thd_db"]), 0.1)
        self.assertLess(abs(tone["thdn_db"] - ref["thdn_db"]), 0.1)
        self.assertLess(abs(tone["snr_db"] - ref["snr_db"]), 0.1)
        self.assertLess(abs(tone["thd_db"] - 10 * math.log10((0.0005 ** 2 + 0.00016 ** 2) / 0.25)), 0.1)

    def test_tone_marks_view_option(self):
        """--view --tone: the window's tone analysis is on (kaiser:20, as --tone), marks
        the fundamental and harmonics 2..10 and reads --tone's THD, THD+N and SNR."""
        path = self.tone_signal()
        w, stats, _ = self.open(["--view", "--tone"], path)
        s = self.quit_stats(w, stats)
        self.check_tone(s["tone"], path, [])

    def test_tone_key(self):
        """t turns the tone analysis on (here with the window --tone uses)."""
        path = self.tone_signal()
        w, stats, _ = self.open(["-w", "kaiser:20"], path)
        w.key("t")
        time.sleep(0.5)
        s = self.quit_stats(w, stats)
        self.check_tone(s["tone"], path, ["-w", "kaiser:20"])

    # ---- (d) two points ------------------------------------------------------------------

    def test_two_point_readout(self):
        """m at one point, the cursor at another: the read-out's Δt, Δf, ΔdB and interval
        are the differences of the two points, which are where the pointer was (frame and
        frequency from the pixels) with the levels a --dump has there."""
        t = np.arange(2 * RATE) / RATE
        path = self.wav("two.wav", 0.5 * np.sin(2 * np.pi * 1125.0 * t) + 0.05 * np.sin(2 * np.pi * 2250.0 * t))
        w, stats, (x, y, pw, ph) = self.open([], path)
        frames = (2 * RATE - N) // HOP + 1
        fmax = RATE / 2

        def row_of(hz):
            return y + int((1 - hz / fmax) * ph)
        p1 = (x + pw // 5, row_of(1125.0))
        p2 = (x + pw * 3 // 4, row_of(2250.0))
        w.mouse(*p1)
        w.key("m")
        w.mouse(*p2)
        time.sleep(0.4)
        s = self.quit_stats(w, stats)
        mk, d = s["mark"], s["delta"]
        self.assertIsNotNone(mk, s)
        self.assertIsNotNone(d, s)

        def expect(px, py):
            f = math.floor((px - x + 0.5) / pw * frames)
            hz = fmax * (1 - (py - y + 0.5) / ph)
            return f, hz
        for pt, got in ((p1, mk), (p2, d)):
            f, hz = expect(*pt)
            self.assertLessEqual(abs(got["frame"] - f), 1, (pt, got))
            self.assertLess(abs(got["hz"] - hz), 2 * fmax / ph, (pt, got))
        dump = os.path.join(self.tmp, "two.npy")
        p = E.run(["-q", "--dump", dump, path])
        self.assertEqual(p.returncode, 0, p.stderr)
        db = np.load(dump)
        lvl = lambda f, hz: float(db[int(f), int(round(hz * N / RATE))])
        self.assertLess(abs(mk["db"] - lvl(mk["frame"], mk["hz"])), 0.006)
        self.assertLess(abs(d["db"] - lvl(d["frame"], d["hz"])), 0.006)
        self.assertAlmostEqual(d["dt_s"], (d["frame"] - mk["frame"]) * HOP / RATE, places=6)
        self.assertAlmostEqual(d["df_hz"], d["hz"] - mk["hz"], places=6)
        self.assertAlmostEqual(d["ddb"], d["db"] - mk["db"], places=6)
        st = 12 * math.log2(d["hz"] / mk["hz"])
        self.assertAlmostEqual(d["semitones"], st, places=6)
        self.assertLess(abs(st - 12), 1.5)  # about an octave up
        n = int(round(st))
        ct = int(round((st - n) * 100))
        ro = s["readout"]
        self.assertIn("\u0394t +%.3f s" % d["dt_s"], ro)
        self.assertIn("+%d st %s%d ct" % (n, "+" if ct >= 0 else "\u2212", abs(ct)), ro)


class TestViewOption(unittest.TestCase):
    """--view hands --tone and --average mean to the window; anything else with it is a
    usage error (one line naming the option, exit 2)."""

    def test_usage_errors(self):
        d = tempfile.mkdtemp(prefix="spectro_pview_")
        try:
            path = os.path.join(d, "s.wav")
            E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * 1000.0 * np.arange(RATE) / RATE), RATE)
            for args, named in ((["--view"], "--view"), (["--view", "--tone", "--dump", "x.csv"], "--dump"),
                                (["--view", "--average", "max"], "--average max"),
                                (["--view", "--tone", "--tone-format", "text"], "--tone-format"),
                                (["--view", "--average", "mean", "--psd"], "--psd"),
                                (["--view", "--tone", path], "one input")):
                p = E.run(args + [path], cwd=d, env=EW.xenv())
                self.assertEqual(p.returncode, 2, (args, p.stderr))
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn(named, lines[0])
                self.assertEqual(sorted(os.listdir(d)), ["s.wav"], "an output was left")
        finally:
            shutil.rmtree(d, ignore_errors=True)


@E.needs_hooks
class TestBandBars(EW.WindowCase):
    """The band bars (view_bands.c, `b`, --bands with the window): the levels drawn against
    the band definition (docs/measurements.md "Fractional-octave bands"), the key's cycle."""
    prefix = "spectro_ptest_"
    rate = RATE
    open, quit_stats = TestPanel.open, TestPanel.quit_stats

    def test_bars_levels(self):
        """--bands 3 --weighting A over a 1 kHz sine (0.5) and a 4 kHz one (0.05), the cursor
        on the picture: the 1 kHz third reads -6.02 dBFS, the 4 kHz third 20 log10(0.05) plus
        A(4 kHz) = +0.96 dB, within 0.15 dB (the store keeps 0.01 dB); the rest far below."""
        t = np.arange(RATE * 3) / RATE
        x = 0.5 * np.sin(2 * np.pi * 1000 * t) + 0.05 * np.sin(2 * np.pi * 4000 * t)
        path = self.wav("bars.wav", x.astype(np.float32))
        w, stats, (px, py, pw, ph) = self.open(["--bands", "3", "--weighting", "A", "-n", "8192"], path)
        w.mouse(px + pw // 2, py + ph // 2)
        time.sleep(0.8)
        b = self.quit_stats(w, stats)["bands"]
        self.assertEqual((b["fraction"], b["weighting"]), (3, "A"))
        self.assertGreaterEqual(b["shown"], 1)
        hz, db = np.array(b["hz"]), np.array([np.nan if v is None else v for v in b["dbfs"]])
        i1, i4 = int(np.argmin(np.abs(hz - 1000))), int(np.argmin(np.abs(hz - 4000)))
        self.assertAlmostEqual(db[i1], 20 * np.log10(0.5), delta=0.15)
        a4 = 20 * np.log10(0.05) + 0.96  # IEC 61672-1: A(3981 Hz) = +0.97, A(4 kHz) = +0.96
        self.assertAlmostEqual(db[i4], a4, delta=0.15)
        rest = np.delete(db, [i1, i4, i1 - 1, i1 + 1, i4 - 1, i4 + 1])
        rest = rest[~np.isnan(rest)]
        self.assertTrue(len(rest) > 5 and rest.max() < -60, rest)

    def test_key_cycle(self):
        """`b`: off -> octaves -> third octaves -> off."""
        t = np.arange(RATE) / RATE
        path = self.wav("key.wav", (0.5 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32))
        seen = []
        for presses in range(4):
            w, stats, _ = self.open([], path)
            for _ in range(presses):
                w.key("b")
            time.sleep(0.5)
            seen.append(self.quit_stats(w, stats)["bands"]["fraction"])
        self.assertEqual(seen, [0, 1, 3, 0])


def overlap(a, b):
    """Whether rectangles [x, y, w, h] a and b share a pixel."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@E.needs_hooks
class TestStripLayout(EW.WindowCase):
    """The spectrum strip's boxes with everything on (the cursor's curve, the maximum of the
    view, the infinite average, tone figures, third-octave bars), at a small and a large
    size: each box inside the strip and the window, none over another, no bar under a box
    (from SPECTRO_VIEW_STATS's layout, and in the screenshot's pixels: no bar's edge colour
    inside a box), and a legend entry for every curve and the bars, drawn in its colour."""
    prefix = "spectro_ptest_"
    rate = RATE
    CURVE, HOLD, AVG, BAR = (0xf2, 0xf4, 0xf8), (0xff, 0xa0, 0x3c), (0x4d, 0xd0, 0xff), (0x5a, 0xc8, 0xfa)

    def check_size(self, path, size):
        stats = os.path.join(self.tmp, "stats-%s.json" % size)
        w = EW.Window(["-q", "--size", size, "--bands", "3", path], {"SPECTRO_VIEW_STATS": stats})
        self.windows.append(w)
        deadline = time.time() + 20
        while True:
            time.sleep(0.5)
            try:
                x, y, pw, ph = EW.find_plot(w.screenshot_png())
                break
            except AssertionError:
                if time.time() > deadline:
                    raise
        w.key("t", "a", "a")
        w.mouse(x + pw // 2, y + ph // 2)
        time.sleep(1.0)
        img = w.screenshot_png()
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            lay = json.load(f)["layout"]
        W, H = lay["window"]
        sx, sy, sw, sh = lay["strip"]
        boxes = lay["boxes"]
        labels = [b["label"] for b in boxes]
        self.assertIn("tone", labels, lay)
        self.assertTrue(lay["bars"], lay)
        for b in boxes:
            x0, y0, bw, bh = b["rect"]
            self.assertTrue(sx <= x0 and x0 + bw <= min(sx + sw, W) and 0 <= y0 and y0 + bh <= min(sh, H),
                            "%s %s leaves the strip %s (window %dx%d)" % (b["label"], b["rect"], lay["strip"], W, H))
        # the harmonics' numbers are drawn over the bars (as the axes' labels over data)
        text_boxes = [b for b in boxes if not b["label"].startswith("harmonic ")]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                self.assertFalse(overlap(a["rect"], b["rect"]), "%s over %s" % (a, b))
        for a in text_boxes:
            for r in lay["bars"]:
                self.assertFalse(overlap(a["rect"], r), "a bar %s under %s" % (r, a))
        # every curve and the bars have an entry: the cursor's spectrum, the maximum of the
        # view, the average, the third-octave bars
        for want in ("cursor", "max of view", "average", "third-octave"):
            self.assertTrue([l for l in labels if want in l], "no legend entry for %s: %s" % (want, labels))
        # the pixels: no bar edge inside a box; each legend entry shows its colour
        self.assertEqual(img.shape[:2], (H, W))
        for b in text_boxes:
            if "octave" in b["label"]:
                continue  # the bars' own entry shows their colour
            x0, y0, bw, bh = b["rect"]
            area = img[y0:y0 + bh, x0:x0 + bw].reshape(-1, 3)
            self.assertFalse(np.all(area == np.array(self.BAR, np.uint8), axis=1).any(),
                             "a bar's edge inside %s" % b)
        for want, col in (("cursor", self.CURVE), ("max of view", self.HOLD), ("average", self.AVG),
                          ("third-octave", self.BAR)):
            r = [b["rect"] for b in text_boxes if want in b["label"]][0]
            area = img[r[1]:r[1] + r[3], r[0]:r[0] + r[2]].reshape(-1, 3)
            self.assertTrue(np.all(area == np.array(col, np.uint8), axis=1).any(), "no %s swatch in %s" % (want, r))

    def test_small_and_large(self):
        # 44.1 kHz: the 20 kHz third's bar reaches the top of the panel, where the boxes are
        t = np.arange(3 * 44100) / 44100
        path = os.path.join(self.tmp, "layout.wav")
        E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * 1000.0 * t) + 0.001 * np.sin(2 * np.pi * 2000.0 * t), 44100)
        for size in ("700x400", "1280x800"):
            with self.subTest(size=size):
                self.check_size(path, size)


if __name__ == "__main__":
    EW.main()  # under Xvfb, as e2e_window.py runs
