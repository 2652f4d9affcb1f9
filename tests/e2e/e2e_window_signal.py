"""End-to-end tests of the window's views of the samples (view_meter.c, view_pitch.c,
view_wave.c, view_scope.c) under a virtual X server, with e2e_window.py's Window and helpers:

    python3 tests/e2e/e2e_window_signal.py SPECTRO_BINARY ASSETS_DIR [unittest args]

- the level meters (`v`) of a stereo file, -6 and -12 dBFS sines: the read-out against the
  sines' peak and RMS and against `--loudness` of each channel alone (momentary, true peak);
  the bars' height and colour in the screenshot;
- the pitch trace (`f`) of a 440 Hz tone: drawn at 440 Hz's row, the read-out naming A4;
- live (--realtime), the trace over the scrolling picture as the window shows it (xwd: the
  panels come from the ring's texture there, the trace drawn over them): a 440 Hz tone at
  440 Hz's row, and there again after a frequency zoom, the read-out over the live picture
  naming A4, and what is shown checked
  against the window expected (SPECTRO_VIEW_VERIFY); a 220 -> 440 Hz step on a log scale:
  both rows, 220 Hz's left of (older than) 440 Hz's, and no trace under a transform;
- the waveform strip (`r`) of a file loud in its first half and silent in its second: the
  envelope per column, in the stats and in the pixels, and after a zoom;
- the oscilloscope (`o`) of a live (--realtime) sine: triggered on a rising zero crossing,
  full scale where the sine's amplitude says; live meters beside it.

Needs Xvfb and xdotool (and xwd); exits 77 (skipped) when one is missing.
"""
import json
import math
import os
import time
import unittest

import numpy as np

import e2e_window as EW
import spectro_e2e as E

RATE = 48000
PITCH = (0x00, 0xff, 0xff)      # view_pitch.c's COL_PITCH
WAVE = (0x8c, 0xc8, 0xff)       # view_wave.c's COL_WAVE
METER_PEAK = (0x7c, 0xe8, 0x8e)  # view_meter.c's COL_METER_PEAK
PANEL_BG = (0x0d, 0x0f, 0x13)
SCOPE = (0x7c, 0xe8, 0x8e)      # view_scope.c's COL_SCOPE


def sine(freq, amp, seconds, rate=RATE):
    t = np.arange(int(rate * seconds)) / rate
    return amp * np.sin(2 * np.pi * freq * t)


def db(x):
    return 20 * math.log10(x)


def is_col(area, col):
    return np.all(area == np.array(col, np.uint8), axis=-1)


@E.needs_hooks
class TestSignalViews(EW.WindowCase):
    prefix = "spectro_stest_"
    rate = RATE

    def open(self, args, path, keys=(), live=False):
        """A window on path with SPECTRO_VIEW_STATS, the keys pressed once it is up; returns
        it and the stats' path."""
        stats = os.path.join(self.tmp, "stats-%d.json" % len(self.windows))
        w = EW.Window(["-q", "--size", "960x600"] + args + [path], {"SPECTRO_VIEW_STATS": stats})
        self.windows.append(w)
        w.leave()
        self.settle(w, EW.find_plot)  # up and taking keys
        if keys:
            w.key(*keys)
        return w, stats

    def quit_stats(self, w, stats):
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            return json.load(f)

    def settle(self, w, check, timeout=20.0):
        """Screenshots until check(img) passes (the analysis again for the meters and the
        pitch takes a moment, longer under a sanitizer); returns the last picture."""
        deadline = time.time() + timeout
        while True:
            img = w.screenshot_png()
            try:
                check(img)
                return img
            except AssertionError:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)

    def loudness(self, path):
        """--loudness of a file: its JSON line."""
        r = E.run([path, "--loudness"])
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout.strip().splitlines()[-1])

    def test_meters_file(self):
        x = np.stack([sine(997.0, 0.5, 3.5), sine(997.0, 0.25, 3.5)], axis=1)
        path = self.wav("stereo.wav", x)
        refs = [self.loudness(self.wav("ch%d.wav" % c, x[:, c])) for c in range(2)]
        w, stats = self.open([], path, keys=("v",))
        img = self.settle(w, lambda im: EW.find_plot(im) and self.assertTrue(is_col(im, METER_PEAK).any()))
        s = self.quit_stats(w, stats)
        m = s["meters"]
        self.assertEqual(m["on"], 1)
        self.assertEqual(len(m["channels"]), 2, m)
        for c, (amp, ref) in enumerate(zip((0.5, 0.25), refs)):
            ch = m["channels"][c]
            self.assertAlmostEqual(ch["peak"], db(amp), delta=0.05, msg=ch)
            self.assertAlmostEqual(ch["rms"], db(amp / math.sqrt(2)), delta=0.05, msg=ch)
            self.assertAlmostEqual(ch["hold"], db(amp), delta=0.05, msg=ch)
            # the loudness engine's figures for the channel alone: a steady sine's every
            # block reads the same
            self.assertAlmostEqual(ch["momentary"], ref["momentary_max_lufs"], delta=0.05, msg=(ch, ref))
            self.assertAlmostEqual(ch["short_term"], ref["short_term_max_lufs"], delta=0.05, msg=(ch, ref))
            self.assertAlmostEqual(ch["true_peak"], ref["true_peak_dbtp"], delta=0.05, msg=(ch, ref))
            # the bar: 0 dBFS at its top, -60 at its bottom; the peak's colour below its top
            bx, by, bw, bh = ch["bar"]
            want_y = by + bh - round((60 + db(amp)) / 60 * bh)
            self.assertLessEqual(abs(ch["peak_y"] - want_y), 1, (ch, want_y))
            col = img[by:by + bh, bx + bw // 2]
            lit = np.where(~is_col(col, PANEL_BG))[0]
            self.assertTrue(len(lit) > 0, "bar %d is empty" % c)
            self.assertLessEqual(abs(by + lit[0] - want_y), 1, "bar %d lit from row %d, not %d" % (c, by + lit[0],
                                                                                               want_y))
            # under the hold's line (2 rows at the peak: a steady sine holds its peak)
            self.assertTrue(is_col(img[want_y + 3:want_y + 6, bx + bw // 2], METER_PEAK).all())

    def test_pitch_trace_and_note(self):
        t = np.arange(int(RATE * 2.0)) / RATE
        x = sum(0.3 / k * np.sin(2 * np.pi * 440.0 * k * t) for k in (1, 2, 3))
        path = self.wav("a4.wav", x)
        w, stats = self.open(["--fmax", "2000"], path, keys=("f",))
        img = self.settle(w, lambda im: self.assertGreater(is_col(im, PITCH).sum(), 100))
        x0, y0, pw, ph = EW.find_plot(img)
        row = y0 + (1 - 440.0 / 2000.0) * ph - 0.5
        rows = np.where(is_col(img[y0:y0 + ph, x0 + pw // 4:x0 + 3 * pw // 4], PITCH).any(axis=1))[0] + y0
        self.assertTrue(len(rows) > 0)
        self.assertLessEqual(abs(np.median(rows) - row), 2.0, (rows, row))
        w.mouse(x0 + pw // 2, y0 + ph // 3)
        time.sleep(0.5)
        s = self.quit_stats(w, stats)
        p = s["pitch"]
        self.assertGreater(p["points"], pw * 0.8, p)
        self.assertAlmostEqual(p["median_hz"], 440.0, delta=0.5, msg=p)
        self.assertLessEqual(abs(p["median_y"] - row), 1.0, p)
        self.assertRegex(p["readout"], r"^pitch 4(39|40)\.\d Hz +A4 [+\u2212]\d ct$", p)
        self.assertIn(p["readout"], s["readout"])

    def live_trace(self, img, plot):
        """Per panel column with trace pixels in the first panel: (x, median row)."""
        x0, y0, pw, ph = plot
        lit = is_col(img[y0:y0 + ph, x0:x0 + pw], PITCH)
        return [(x, y0 + np.median(np.where(lit[:, x])[0])) for x in range(pw) if lit[:, x].any()]

    def test_pitch_trace_live(self):
        t = np.arange(int(RATE * 3.0)) / RATE
        x = sum(0.3 / k * np.sin(2 * np.pi * 440.0 * k * t) for k in (1, 2, 3))
        path = self.wav("live-a4.wav", x)
        stats = os.path.join(self.tmp, "stats-live.json")
        w = EW.Window(["-q", "--size", "960x600", "--realtime", "-n", "4096", "--hop", "512", "--fmax", "2000", path],
                      {"SPECTRO_VIEW_STATS": stats, "SPECTRO_VIEW_VERIFY": "1"})
        self.windows.append(w)
        w.leave()
        self.settle(w, EW.find_plot)  # up and taking keys
        w.key("f")
        plot = EW.find_plot(w.screenshot_x())
        x0, y0, pw, ph = plot
        row = y0 + (1 - 440.0 / 2000.0) * ph - 0.5

        deadline = time.time() + 20
        while True:  # what the window shows (xwd): the ring's texture and the trace over it
            cols = self.live_trace(w.screenshot_x(), plot)
            if len(cols) > 60 or time.time() > deadline:
                break
            time.sleep(0.3)
        self.assertGreater(len(cols), 60, "too little trace in the live picture")
        rows = np.array([r for _, r in cols])
        self.assertLessEqual(abs(np.median(rows) - row), 2.0, (rows, row))
        self.assertGreater(np.mean(abs(rows - row) <= 2.0), 0.95, (rows, row))
        # a frequency zoom (PgUp, the pointer off the picture: 1.5x about the middle, so
        # 0 .. 2000 Hz shows 333.3 .. 1666.7 Hz): the trace moves with the rows
        w.key("Prior")
        time.sleep(0.5)
        row = y0 + (1 - (440.0 - 2000.0 / 6) / (2000.0 * 4 / 6)) * ph - 0.5
        cols = self.live_trace(w.screenshot_x(), plot)
        rows = np.array([r for _, r in cols])
        self.assertGreater(len(cols), 60)
        self.assertLessEqual(abs(np.median(rows) - row), 2.0, (np.median(rows), row))
        # the newest columns (at the right) are the tone's: the read-out there names A4
        xs = [x for x, _ in cols]
        w.mouse(x0 + max(xs) - 10, y0 + ph // 3)
        time.sleep(0.5)
        s = self.quit_stats(w, stats)
        p = s["pitch"]
        self.assertGreater(p["points"], 60, p)
        self.assertAlmostEqual(p["median_hz"], 440.0, delta=0.5, msg=p)
        self.assertLessEqual(abs(p["median_y"] - row), 1.0, p)
        self.assertRegex(p["readout"], r"^pitch 4(39|40)\.\d Hz +A4 [+\u2212]\d ct$", p)
        self.assertIn(p["readout"], s["readout"])
        # the window shown (the trace drawn over the ring's texture) is the one expected
        self.assertGreater(s["verify_shown"], 10, s)
        self.assertEqual((s["verify_mismatches"], s["verify_shown_mismatches"]), (0, 0), s["verify_first"])

    def test_pitch_trace_live_step(self):
        # 220 Hz long enough to be streaming still once the window takes keys (under ASan too)
        x = np.concatenate([sine(220.0, 0.5, 3.5), sine(440.0, 0.5, 2.0)])
        path = self.wav("step.wav", x)
        w, stats = self.open(["--realtime", "-n", "4096", "--hop", "512", "--scale", "log", "--fmin", "100",
                              "--fmax", "2000"], path, keys=("f",))
        plot = EW.find_plot(w.screenshot_x())
        x0, y0, pw, ph = plot

        def row(hz):  # the log scale's row of hz
            return y0 + (1 - math.log(hz / 100.0) / math.log(20.0)) * ph - 0.5
        deadline = time.time() + 20
        while True:
            cols = self.live_trace(w.screenshot_x(), plot)
            low = [x for x, r in cols if abs(r - row(220.0)) <= 2.0]
            high = [x for x, r in cols if abs(r - row(440.0)) <= 2.0]
            if (len(low) > 30 and len(high) > 30) or time.time() > deadline:
                break
            time.sleep(0.3)
        self.assertGreater(len(low), 30, "220 Hz: %d columns, 440 Hz: %d" % (len(low), len(high)))
        self.assertGreater(len(high), 30, "220 Hz: %d columns, 440 Hz: %d" % (len(low), len(high)))
        # oldest at the left: the 220 Hz part before the 440 Hz one, few columns elsewhere
        self.assertLess(max(low), min(high), "220 Hz at x %d..%d, 440 Hz at %d..%d" % (min(low), max(low),
                                                                                      min(high), max(high)))
        self.assertGreater(len(low) + len(high), 0.9 * len(cols), "%d of %d columns at neither row" %
                           (len(cols) - len(low) - len(high), len(cols)))
        # under a transform (x: mel) the rows are no Hz axis: no trace once it shows
        w.key("x")

        def trace_now():
            """The trace's columns now, None while the restarted analysis has no picture up
            (a slow build's screenshot can fall between the two)."""
            img = w.screenshot_x()
            try:
                return self.live_trace(img, EW.find_plot(img))
            except AssertionError:
                return None
        deadline = time.time() + 10
        while True:
            left = trace_now()
            if left is not None and not left or time.time() > deadline:
                break
            time.sleep(0.3)
        time.sleep(1.5)  # the analysis started again meanwhile: its f0s are in by now
        deadline = time.time() + 10
        while (left := trace_now()) is None and time.time() < deadline:
            time.sleep(0.3)
        self.assertIsNotNone(left, "no picture after the x key")
        self.assertEqual(len(left), 0, "trace columns under a transform")
        self.assertEqual(w.quit(), 0, w.stderr())

    def test_waveform_loud_then_silent(self):
        x = np.concatenate([sine(300.0, 0.8, 2.0), np.zeros(2 * RATE)])
        path = self.wav("half.wav", x)
        w, stats = self.open([], path, keys=("r",))
        img = self.settle(w, lambda im: self.assertTrue(is_col(im, WAVE).any()))
        x0, y0, pw, ph = EW.find_plot(img)
        # zoom into the loud half (the wheel at its quarter) and scroll to the end (End)
        EW.xdo("windowfocus", "--sync", w.wid)
        w.mouse(x0 + pw // 4, y0 + ph // 2)
        w.wheel(True, 8)
        zoomed = w.screenshot_png()
        s = self.quit_stats(w, stats)
        wv = s["wave"]
        lo, hi = np.array(wv["lo"], float), np.array(wv["hi"], float)
        self.assertEqual(len(hi), wv["rect"][2])
        # zoomed into the loud half: a column holds a few samples of the sine, none silent
        self.assertTrue(np.all(np.maximum(abs(lo), abs(hi)) > 0.02), "zoomed into the loud half: %s %s" % (lo, hi))
        self.assertAlmostEqual(hi.max(), 0.8, delta=0.01)
        self.assertAlmostEqual(lo.min(), -0.8, delta=0.01)
        self.assertGreater(np.ptp(hi), 0.3, "the columns' envelope does not follow the sine: %s" % hi)
        # the whole file's strip, from the first screenshot
        sx, sy, sw, sh = wv["rect"]
        strip = is_col(img[sy:sy + sh, sx:sx + sw], WAVE)
        height = strip.sum(axis=0)
        self.assertTrue(np.all(height[: int(sw * 0.45)] > 0.7 * sh), height[: int(sw * 0.45)])
        self.assertTrue(np.all(height[int(sw * 0.55):] <= 1), height[int(sw * 0.55):])
        # the panel moved down by the strip: its frame's top is a little under the strip's
        below = [y for y in range(sy + sh + 2, sy + sh + 40) if is_col(img[y, sx:sx + sw], EW.FRAME).all()]
        self.assertTrue(below, "no panel under the strip")
        # zoomed: the strip as drawn then has the sine's samples in every column
        self.assertTrue(np.all(is_col(zoomed[sy:sy + sh, sx:sx + sw], WAVE).sum(axis=0) >= 1))
        self.assertGreater(is_col(zoomed[sy:sy + sh, sx:sx + sw], WAVE).sum(), 0.2 * sw * sh)

    def test_scope_and_meters_live(self):
        path = self.wav("live.wav", sine(1000.0, 0.5, 6.0))
        w, stats = self.open(["--realtime", "-n", "4096", "--hop", "512"], path, keys=("o", "v"))
        time.sleep(2.5)
        img = w.screenshot_png()
        s = self.quit_stats(w, stats)
        sc = s["scope"]
        self.assertEqual(sc["triggered"], 1, sc)
        step = 2 * math.pi * 1000.0 / RATE * 0.5
        self.assertTrue(0.0 <= sc["start"] < step + 1e-6 and sc["next"] > sc["start"], sc)
        self.assertAlmostEqual(sc["peak"], 0.5, delta=0.01)
        ch = s["meters"]["channels"][0]
        self.assertAlmostEqual(ch["peak"], db(0.5), delta=0.05, msg=ch)
        self.assertAlmostEqual(ch["rms"], db(0.5 / math.sqrt(2)), delta=0.05, msg=ch)
        # the trace in the screenshot: its first column starts at the box's middle row (at
        # most a sample's rise above it) and goes up; its extremes are at +-0.5 of full scale
        x, y, bw, bh = sc["rect"]
        mid, half = y + bh // 2, bh // 2 - 1
        col = np.where(is_col(img[y:y + bh, x], SCOPE))[0] + y
        self.assertTrue(len(col) > 0, "no trace in the scope's first column")
        self.assertTrue(mid - step * half - 2 <= col.max() <= mid + 1, (col, mid))
        self.assertLess(col.min(), mid - step * half - 2, (col, mid))
        lit = np.where(is_col(img[y:y + bh, x:x + bw], SCOPE).any(axis=1))[0] + y
        self.assertLessEqual(abs(lit.min() - (mid - 0.5 * half)), 2, (lit.min(), mid, half))
        self.assertLessEqual(abs(lit.max() - (mid + 0.5 * half)), 2, (lit.max(), mid, half))


if __name__ == "__main__":
    EW.main()  # under Xvfb, as e2e_window.py runs
