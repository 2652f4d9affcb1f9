"""End-to-end tests of the window's views of two signals under a virtual X server:

    python3 tests/e2e/e2e_window_pair.py SPECTRO_BINARY ASSETS_DIR [unittest args]

- `--compare A B` with no output: A (a 1 kHz tone) over B (a 3 kHz tone), the same noise
  in both: each panel lights at its own tone; the read-out gives A's and B's levels at the
  cursor (those of `--compare --average max --dump` there); the d key draws B - A, one panel,
  blue (B quieter) on A's row, red on B's, neutral where the two hold the same noise.
- `--transfer 0:1` with no output: noise and the same noise through a known filter
  (e2e_transfer's): the magnitude curve lies where the dump's values put it (SPECTRO_VIEW_STATS
  gives the panels' axes), the cursor reads the dump's magnitude, phase and coherence of its
  bin, the delay and averages are the dump's; d takes the delay out of the phase.
- Refusals: files of two rates, a mono input to --transfer: one line, exit 2, no window.

Needs Xvfb and xdotool (and xwd); exits 77 (skipped) when one is missing.
"""
import json
import os
import time
import unittest

import numpy as np
import scipy.signal

import e2e_transfer as ET
import e2e_window as EW
import spectro_e2e as E

RATE, N, HOP = 48000, 4096, 1024
FMAX = RATE / 2


def panels(img):
    """The spectrogram panels, top to bottom: (x, y, w, h) of each one's data, from the long
    rows of the frame colour (a top and a bottom row each)."""
    is_frame = np.all(img == np.array(EW.FRAME, np.uint8), axis=2)
    rows = [y for y in range(img.shape[0]) if is_frame[y].sum() > img.shape[1] * 0.4]
    groups = [rows[0]] + [b for a, b in zip(rows, rows[1:]) if b - a > 2]
    assert len(groups) % 2 == 0, groups
    x, _, pw, _ = EW.find_plot(img)
    return [(x, top + 1, pw, bottom - top - 1) for top, bottom in zip(groups[::2], groups[1::2])]


def check_labels(case, img, stats, want):
    """The panels' labels are `want` (the stats: as the picture drew them), none of them the
    channels' "ch 0" / "ch 1", and each is there in the picture: title-white text on its
    dark box across the box, into its last quarter (a short "ch 0" would leave that empty)."""
    got = [lb["text"] for lb in stats["labels"]]
    case.assertEqual(got, want, stats["labels"])
    for lb in stats["labels"]:
        case.assertNotIn("ch ", lb["text"])
        x, y, w, h = lb["rect"]
        case.assertGreater(w, 0, lb)
        box = img[y:y + h, x:x + w].astype(int)
        white = (box.min(axis=2) > 200).any(axis=0)  # columns with near-white text pixels
        case.assertLess(np.median(box.max(axis=2)), 150, "label %r: no dark box under it" % lb["text"])
        case.assertGreater(white.mean(), 0.3, "label %r: little text in its box" % lb["text"])
        case.assertTrue(white[w * 3 // 4:].any(), "label %r: nothing in its box's last quarter" % lb["text"])


def row_of(panel, hz):
    """The pixel row of hz in a panel of the linear scale 0 .. FMAX."""
    _, y, _, h = panel
    return y + int((1.0 - hz / FMAX) * h)


@E.needs_hooks
class TestCompare(EW.WindowCase):
    prefix = "spectro_pair_"
    rate = RATE

    def setUp(self):
        super().setUp()
        t = np.arange(RATE) / RATE
        noise = np.random.default_rng(3).standard_normal(RATE) * 1e-3
        self.a = self.wav("a.wav", 0.5 * np.sin(2 * np.pi * 1000.0 * t) + noise)
        self.b = self.wav("b.wav", 0.5 * np.sin(2 * np.pi * 3000.0 * t) + noise)

    def open(self, env=None):
        w = EW.Window(["-q", "--size", "960x700", "--compare", self.a, self.b], env)
        self.windows.append(w)
        return w

    def settled(self, w, count):
        """Screenshots until the picture has `count` panels and no frame left to analyse."""
        deadline = time.time() + 20
        while True:
            img = w.screenshot_png()
            try:
                found = panels(img)
                self.assertEqual(len(found), count)
                return img, found
            except (AssertionError, IndexError):
                if time.time() > deadline:
                    raise
                time.sleep(0.5)

    def test_stacked_and_readout(self):
        """A over B, each lit at its tone; the cursor on A's tone reads A's and B's levels
        there (both panels' at one time and frequency: the dump's averages' maximum)."""
        stats = os.path.join(self.tmp, "stats.json")
        w = self.open({"SPECTRO_VIEW_STATS": stats})
        img, (pa, pb) = self.settled(w, 2)
        self.assertEqual(pa[2], pb[2])  # one time axis
        labels_img = img
        for panel, hz in ((pa, 1000.0), (pb, 3000.0)):
            got, row_hz = EW.brightest_hz(img, panel, FMAX)
            self.assertLess(abs(got - hz), 2.5 * row_hz + 24.0, "panel's tone at %.0f Hz, not %.0f" % (got, hz))
        time.sleep(0.5)
        mx, my = pa[0] + pa[2] // 2, row_of(pa, 1000.0)
        w.mouse(mx, my)
        time.sleep(0.4)
        # the cursor's cross in B's panel too, at the same time and frequency (the window as
        # the X server shows it: the overlays are not in the `s` screenshot)
        shown = w.screenshot_x().astype(int).sum(axis=2)
        bx, by = mx - pa[0] + pb[0], my - pa[1] + pb[1]
        rows = slice(pb[1] + 5, pb[1] + pb[3] - 5)
        cols = slice(pb[0] + 5, pb[0] + pb[2] // 3)
        self.assertGreater((shown[rows, bx] > shown[rows, bx + 3] + 30).mean(), 0.9, "no cursor line in B's panel")
        self.assertGreater((shown[by, cols] > shown[by + 3, cols] + 30).mean(), 0.9, "no cursor row in B's panel")
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            st = json.load(f)
        ro = st["readout"]
        check_labels(self, labels_img, st, ["A: a.wav", "B: b.wav"])
        _, where, level = ro.split(" | ")[:3]
        level = level.replace("\u2212", "-").split()
        # "A -6.0  B -95.1 dBFS  B-A -89.1 dB"
        self.assertEqual((level[0], level[2]), ("A", "B"), ro)
        la, lb, ld = float(level[1]), float(level[3]), float(level[6])
        hz = float(where.split()[0]) * (1000.0 if where.split()[1] == "kHz" else 1.0)
        self.assertLess(abs(hz - 1000.0), 2 * FMAX / pa[3], ro)
        k = int(round(hz * N / RATE))
        dump = os.path.join(self.tmp, "max.npy")
        p = E.run(["-q", "--compare", self.a, self.b, "--average", "max", "--dump", dump])
        self.assertEqual(p.returncode, 0, p.stderr)
        mx = np.load(dump)
        # a steady tone: every frame's level of A's bin is its maximum (to the read-out's 0.1 dB)
        self.assertLess(abs(la - mx[0][k]), 0.06, (ro, k, mx[0][k - 1:k + 2]))
        self.assertLess(lb, -60.0)  # B holds only the noise there
        self.assertLessEqual(lb, mx[1][k] + 0.06)
        self.assertAlmostEqual(ld, lb - la, delta=0.11)

    def test_difference_view(self):
        """d: one panel of B - A in rdbu: blue on A's tone (B is quieter there), red on B's,
        the map's neutral middle where both hold the same noise; d again: A over B."""
        stats = os.path.join(self.tmp, "stats-d.json")
        w = self.open({"SPECTRO_VIEW_STATS": stats})
        self.settled(w, 2)
        time.sleep(0.5)
        w.key("d")
        img, (pd,) = self.settled(w, 1)
        diff_img = img
        x, y, pw, ph = pd
        cols = slice(x + pw // 10, x + pw * 9 // 10)

        def colour(hz):
            # a pixel row shows the largest difference of its bins: the tone's row may be
            # one away from where its frequency falls
            r = row_of(pd, hz)
            rows = [img[y, cols].astype(int).mean(axis=0) for y in range(r - 2, r + 3)]
            return max(rows, key=lambda c: abs(c[0] - c[2]))
        blue, red = colour(1000.0), colour(3000.0)  # rdbu: blue (low) to red (high)
        self.assertGreater(blue[2], blue[0] + 50, "B - A on A's tone: %s" % blue)
        self.assertGreater(red[0], red[2] + 50, "B - A on B's tone: %s" % red)
        for hz in (6000.0, 12000.0, 20000.0):
            c = colour(hz)
            self.assertLess(abs(c[0] - c[2]), 25, "B - A at %.0f Hz: %s" % (hz, c))
            self.assertGreater(c.min(), 200, "B - A at %.0f Hz: %s" % (hz, c))  # rdbu's light middle
        w.key("d")
        self.settled(w, 2)
        w.key("d")  # the difference again, as the stats will tell it
        self.settled(w, 1)
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            check_labels(self, diff_img, json.load(f), ["B \u2212 A"])

    def test_refused(self):
        """Two rates (without --resample), two lengths, --average without --dump: one line,
        exit 2, no window."""
        slow = os.path.join(self.tmp, "slow.wav")
        E.write_float_wav(slow, np.zeros(RATE // 2, np.float32), RATE // 2)
        short = self.wav("short.wav", np.zeros(RATE - 100))
        for args, what in (([self.a, slow], "Hz"), ([self.a, short], "length"),
                           ([self.a, self.b, "--average", "mean"], "--average")):
            p = E.run(["--compare"] + args, env=EW.xenv(), timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
            self.assertIn(what, p.stderr)


@E.needs_hooks
class TestTransfer(EW.WindowCase):
    prefix = "spectro_xfer_"
    rate = RATE
    size = (1200, 900)

    @classmethod
    def setUpClass(cls):
        """4 s of e2e_transfer's signal (37 samples of delay, the filter) and its dump."""
        cls.tmp_cls = E.TempDir()
        d = cls.tmp_cls.__enter__()
        sig = ET.make_signal()[:4 * RATE]
        cls.path = os.path.join(d, "pair.wav")
        E.write_float_wav(cls.path, sig, RATE)
        cls.path5 = os.path.join(d, "pair5.wav")
        E.write_float_wav(cls.path5, ET.make_signal()[:5 * RATE], RATE)
        npy = os.path.join(d, "tf.npy")
        p = E.run(["--transfer", "0:1", "-n", N, "--hop", HOP, "--dump", npy, "-q", cls.path])
        assert p.returncode == 0, p.stderr
        cls.tf = np.load(npy)
        with open(npy + ".json") as f:
            cls.meta = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp_cls.__exit__(None, None, None)

    def window(self, keys=(), at_col=None, args=None, meta=None):
        """A transfer window (on args, else the 4 s file): the analysis over (its averages
        those of meta, else of the file's dump), then the keys, the pointer on the magnitude
        panel's column at_col; returns the screenshot and the stats."""
        stats = os.path.join(self.tmp, "stats-%d.json" % len(self.windows))
        args = args or ["--transfer", "0:1", self.path]
        w = EW.Window(["-q", "--size", "%dx%d" % self.size, "-n", N, "--hop", HOP] + args,
                      {"SPECTRO_VIEW_STATS": stats})
        self.windows.append(w)
        time.sleep(2.0)  # 4 s of audio: analysed by then, under a sanitizer too
        w.key(*keys)
        img = w.screenshot_png()
        if at_col is not None:
            w.mouse(at_col, self.x_y(self.geometry[0], 1000.0, None)[1])
            time.sleep(0.4)
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            s = json.load(f)
        self.assertEqual(s["transfer"]["averages"], (meta or self.meta)["averages"], "the analysis is not over")
        return img, s

    geometry = None

    @staticmethod
    def x_y(panel, hz, value):
        """Pixel column of hz (log axis) and row of a value in a panel of the stats."""
        x, y, w, h = panel["area"]
        hl, hr = panel["hz_left"], panel["hz_right"]
        col = int(x + np.log(hz / hl) / np.log(hr / hl) * w)
        if value is None:
            return col, y + h // 2
        return col, y + (panel["hi"] - value) / (panel["hi"] - panel["lo"]) * (h - 1)

    def test_curve_cursor_delay(self):
        """The magnitude curve at the dump's values within 2.5 pixels (and half the spread of
        the values its column holds), at six frequencies; the delay and averages the dump's."""
        img, s = self.window()
        t = s["transfer"]
        mag = t["panels"][0]
        TestTransfer.geometry = t["panels"]
        self.assertEqual(img.shape[:2], self.size[::-1])
        self.assertAlmostEqual(t["delay_s"], self.meta["delay_s"], places=9)
        self.assertIn("delay %.3f ms" % (1e3 * self.meta["delay_s"]), "delay %.3f ms" % (1e3 * t["delay_s"]))
        freqs = self.tf[:, 0]
        for hz in (150.0, 400.0, 1000.0, 2500.0, 5000.0, 9000.0):
            col, want = self.x_y(mag, hz, None)[0], None
            # the column's bins: those whose frequency maps into it (the curve shows their highest)
            lo_hz = mag["hz_left"] * (mag["hz_right"] / mag["hz_left"]) ** ((col - mag["area"][0]) / mag["area"][2])
            hi_hz = mag["hz_left"] * (mag["hz_right"] / mag["hz_left"]) ** ((col + 1 - mag["area"][0]) / mag["area"][2])
            ks = np.where((freqs >= lo_hz) & (freqs < hi_hz))[0]
            k = int(np.argmin(abs(freqs - hz)))
            vals = self.tf[ks, 1] if len(ks) else self.tf[[k, k + 1], 1]
            x, y0, w, h = mag["area"]
            column = img[y0:y0 + h, col].astype(int)
            curve = np.where(column.max(axis=1) - column.min(axis=1) > 60)[0] + y0
            self.assertTrue(len(curve), "no curve in column %d (%.0f Hz)" % (col, hz))
            want = [self.x_y(mag, hz, float(v))[1] for v in vals]
            self.assertLessEqual(abs(np.median(curve) - np.mean(want)), 2.5 + (max(want) - min(want)) / 2,
                                 "%.0f Hz: the curve at rows %s, the dump's values at %s" % (hz, curve, want))

    def test_cursor_and_delay_key(self):
        """The cursor at 1 kHz reads its bin's dump values; d takes the delay out of the
        phase: the dump's phase plus 360 f delay_s (mod 360), near the filter's alone (scipy's
        freqz; 4 s of signal: within 5 degrees, where the delay kept is 277 degrees off). x
        (the transforms) changes nothing here."""
        if TestTransfer.geometry is None:
            self.test_curve_cursor_delay()
        mag = TestTransfer.geometry[0]

        def bin_at(col):  # the fractional bin of a column's centre, on the log axis
            u = (col + 0.5 - mag["area"][0]) / mag["area"][2]
            return mag["hz_left"] * (mag["hz_right"] / mag["hz_left"]) ** u * N / RATE
        # a column near 1 kHz whose centre is near a bin's: the bin the cursor must read
        col = self.x_y(mag, 1000.0, None)[0]
        col = min(range(col - 3, col + 4), key=lambda c: abs(bin_at(c) - round(bin_at(c))))
        _, s = self.window(keys=("x", "d"), at_col=col)  # x: no transform here (refused)
        cur = s["transfer"]["cursor"]
        self.assertIsNotNone(cur, s["readout"])
        self.assertEqual(s["transfer"]["remove_delay"], 1)
        k = cur["bin"]
        self.assertEqual(k, round(bin_at(col)), (cur, bin_at(col)))
        self.assertAlmostEqual(cur["hz"], k * RATE / N, places=6)
        self.assertLess(abs(cur["magnitude_db"] - self.tf[k, 1]), 0.1, (cur, self.tf[k]))
        self.assertLess(abs(cur["coherence"] - self.tf[k, 3]), 0.001, (cur, self.tf[k]))
        self.assertIn("magnitude %s%.2f dB" % ("\u2212" if cur["magnitude_db"] < 0 else "",
                                                abs(cur["magnitude_db"])), s["readout"])
        def wrapped(d):
            return (d + 180.0) % 360.0 - 180.0
        self.assertLess(abs(wrapped(cur["phase_deg"] - self.tf[k, 2] - 360.0 * cur["hz"] * self.meta["delay_s"])),
                        0.01, (cur, self.tf[k]))
        b, a = ET.test_filter()
        _, h = scipy.signal.freqz(b, a, worN=[cur["hz"]], fs=RATE)
        self.assertLess(abs(wrapped(cur["phase_deg"] - np.degrees(np.angle(h[0])))), 5.0, cur)

    def test_status_and_help(self):
        """The status line shows the transfer's own fields (averages, delay, delay removed or
        kept, the cursor's frequency), none of the spectrogram's (colour map, dB range, gain);
        the help lists only the keys that act here, d with what it does here."""
        if TestTransfer.geometry is None:
            self.test_curve_cursor_delay()
        col = self.x_y(TestTransfer.geometry[0], 1000.0, None)[0]
        _, s = self.window(keys=("d", "h"), at_col=col)
        status, t = s["status"].replace("\u2212", "-"), s["transfer"]
        self.assertIn("%d averages" % self.meta["averages"], status)
        self.assertIn("delay %.3f ms" % (1e3 * self.meta["delay_s"]), status)
        self.assertIn("delay removed", status)
        self.assertIsNotNone(t["cursor"], s)
        self.assertIn("cursor %.1f Hz" % t["cursor"]["hz"], status)
        for other in ("viridis", "gain", "dB  ", "linear"):
            self.assertNotIn(other, status)
        keys = dict(line.split(": ", 1) for line in s["help"].split(" | "))
        self.assertIn("phase", keys.get("d", ""), s["help"])
        for k in ("s", "h / ?", "q / Esc"):
            self.assertIn(k, keys, s["help"])
        for k in ("c", "l", "a", "t", "b", "x", "wheel"):
            self.assertNotIn(k, keys, s["help"])

    def test_reference_pair(self):
        """--reference FILE: REF from another file, read from where the two align (MEAS starts
        2000 samples later): the delay and the averages are the dump's."""
        sig = ET.make_signal()[:3 * RATE]
        ref, meas = os.path.join(self.tmp, "ref.wav"), os.path.join(self.tmp, "meas.wav")
        E.write_float_wav(ref, sig[:, 0], RATE)
        E.write_float_wav(meas, np.concatenate([np.zeros(2000, np.float32), sig[:, 1]]), RATE)
        args = ["--transfer", "0:0", "--reference", ref, meas]
        out = os.path.join(self.tmp, "ref.npy")
        p = E.run(args + ["-n", N, "--hop", HOP, "--dump", out, "-q"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out + ".json") as f:
            meta = json.load(f)
        _, s = self.window(args=args, meta=meta)
        self.assertAlmostEqual(s["transfer"]["delay_s"], meta["delay_s"], places=9)
        self.assertLess(abs(s["transfer"]["delay_s"] * RATE - (2000 + ET.DELAY)), 1.0, s["transfer"])

    def test_realtime_running_average(self):
        """--realtime (a live run, 5 s): the view shows the average of the frames so far:
        quit a moment after the window opens, it holds some averages, fewer than the file's."""
        stats = os.path.join(self.tmp, "stats-rt.json")
        w = EW.Window(["-q", "--size", "960x700", "--transfer", "0:1", "-n", N, "--hop", HOP, "--realtime",
                       self.path5], {"SPECTRO_VIEW_STATS": stats})
        self.windows.append(w)
        time.sleep(1.0)
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            t = json.load(f)["transfer"]
        total = E.frame_count(5 * RATE, N, HOP)
        self.assertGreater(t["averages"], 0, t)
        self.assertLess(t["averages"], total, t)
        self.assertEqual(len(t["panels"]), 3, t)

    def test_mono_refused(self):
        mono = os.path.join(self.tmp, "mono.wav")
        E.write_float_wav(mono, np.zeros(RATE, np.float32), RATE)
        p = E.run(["--transfer", "0:1", mono], env=EW.xenv(), timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
        self.assertIn("one channel", p.stderr)


if __name__ == "__main__":
    EW.main()  # under Xvfb, as e2e_window.py runs
