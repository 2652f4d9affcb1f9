"""End-to-end tests of the window's transforms (view_xform.c, the x key) under a virtual X
server, with e2e_window.py's Window and helpers:

    python3 tests/e2e/e2e_window_xform.py SPECTRO_BINARY ASSETS_DIR [unittest args]

The x key cycles linear -> mel -> CQT -> chroma -> reassigned -> linear, each analysed
from the start. Read back from the program's own screenshots (the s key):
- chroma: a 440 Hz tone lights the row of A (the tenth of twelve, C at the bottom), a
  523.25 Hz tone the row of C;
- mel: the brightest row is the band the tone is in (the band centres from the sidecar of
  --mel 128 --dump);
- CQT: the brightest row is A4's bin (the bins from --cqt's sidecar, fmin the lowest C
  whose kernel fits N 4096);
- reassigned: the tone's line on the linear axis, a few pixel rows where the linear
  spectrogram's is tens;
- a fifth x: the linear spectrogram again;
- --mel B, --cqt B ... without an output: the window opens on that transform, and the
  cycle comes back to it with the command line's parameters;
- live (--realtime): the chroma of a 440 Hz tone lights A in the newest columns;
- the read-out over the lit row (test hooks: SPECTRO_VIEW_STATS): "pitch class A", the mel
  band's number and Hz.

Needs Xvfb and xdotool (and xwd); exits 77 (skipped) when one is missing.
"""
import json
import os
import time
import unittest

import numpy as np

import e2e_window as EW
import spectro_e2e as E

RATE = 48000
CQT_FMIN = 261.6255653005986  # C4: the lowest C with Q * rate / f <= 4096 (Q = 16.8 at 12 a octave)


def luminance(img, plot, right=None):
    x, y, w, h = plot
    x0 = x + w - int(w * right) if right else x + w // 10
    a = img[y:y + h, x0:x + w - (2 if right else w // 10)].astype(np.float64)  # clear of the edges
    return (0.2126 * a[..., 0] + 0.7152 * a[..., 1] + 0.0722 * a[..., 2]).mean(axis=1)


def brightest_column(img, cols, right=None):
    """(index of the brightest of `cols` equal shares of the plot, bottom up; its mean
    luminance against the median share's); right: only that fraction of the plot's
    columns at its right end (a live picture's newest)."""
    plot = EW.find_plot(img)
    lum = luminance(img, plot, right)
    h = len(lum)
    share = np.array([lum[int(h - (k + 1) * h / cols) + 1:int(h - k * h / cols) - 1].mean() for k in range(cols)])
    return int(np.argmax(share)), float(share.max() - np.median(share))


class TestTransforms(EW.WindowCase):
    prefix = "spectro_xtest_"
    rate = RATE

    def tone(self, hz, seconds=3.0):
        t = np.arange(int(seconds * RATE)) / RATE
        return self.wav("tone%g.wav" % hz, 0.5 * np.sin(2 * np.pi * hz * t))

    def sidecar(self, path, *args):
        out = os.path.join(self.tmp, "side.npy")
        p = E.run([path] + [str(a) for a in args] + ["--dump", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out + ".json") as f:
            return json.load(f)

    def window(self, path, presses):
        """A window on path, x pressed `presses` times once its first picture is up."""
        w = EW.Window(["-q", "--size", "960x600", path])
        self.windows.append(w)
        self.shot(w, lambda img: EW.find_plot(img))
        for _ in range(presses):
            w.key("x")
            time.sleep(0.3)
        return w

    def shot(self, w, check, timeout=20.0):
        """Screenshots until check(img) passes (the analysis again, the key's message
        gone); returns check's value."""
        deadline = time.time() + timeout
        while True:
            img = w.screenshot_png()
            try:
                return check(img)
            except AssertionError:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)

    def test_chroma_lights_the_tone_class(self):
        for hz, cls in ((440.0, 9), (523.25, 0)):
            w = self.window(self.tone(hz), 3)

            def check(img):
                k, contrast = brightest_column(img, 12)
                self.assertEqual(k, cls, "brightest class %d, not %d (%.0f Hz)" % (k, cls, hz))
                self.assertGreater(contrast, 40)
                return k
            self.shot(w, check)
            self.assertEqual(w.quit(), 0, w.stderr())

    def test_mel_row_of_the_tone(self):
        path = self.tone(440.0)
        centres = np.array(self.sidecar(path, "--mel", 128)["freqs_hz"])
        want = int(np.argmin(np.abs(centres - 440.0)))
        w = self.window(path, 1)

        def check(img):
            k, contrast = brightest_column(img, 128)
            self.assertLessEqual(abs(k - want), 1, "brightest band %d (%.0f Hz), not %d (%.0f Hz)" %
                                 (k, centres[k], want, centres[want]))
            self.assertGreater(contrast, 40)
        self.shot(w, check)

    def test_cqt_row_of_a4(self):
        path = self.tone(440.0)
        freqs = np.array(self.sidecar(path, "--cqt", 12, "--fmin", CQT_FMIN)["freqs_hz"])
        want = int(np.argmin(np.abs(freqs - 440.0)))
        self.assertEqual(want, 9)
        w = self.window(path, 2)

        def check(img):
            k, contrast = brightest_column(img, len(freqs))
            self.assertEqual(k, want, "brightest bin %d (%.1f Hz), not A4's" % (k, freqs[k]))
            self.assertGreater(contrast, 40)
        self.shot(w, check)

    def test_reassigned_line_is_thin_and_linear_returns(self):
        path = self.tone(1234.5)
        w = self.window(path, 0)
        bright = {}

        def line(name):
            def check(img):
                plot = EW.find_plot(img)
                got, row_hz = EW.brightest_hz(img, plot, 24000.0)
                self.assertLess(abs(got - 1234.5), 2.5 * row_hz + 24.0, "%s: line at %.0f Hz" % (name, got))
                lum = luminance(img, plot)
                rows = int(np.count_nonzero(lum > lum.min() + 0.5 * (lum.max() - lum.min())))
                bright[name] = rows
                return rows
            return check
        self.shot(w, line("linear"))
        for _ in range(4):
            w.key("x")
            time.sleep(0.3)
        self.shot(w, lambda img: self.assertLessEqual(2 * line("reassigned")(img), bright["linear"], bright))
        w.key("x")
        self.shot(w, lambda img: self.assertGreaterEqual(line("again")(img), bright["linear"] - 1, bright))
        self.assertEqual(w.quit(), 0, w.stderr())

    def test_live_chroma(self):
        """--realtime: the live picture of chroma, the tone's class lit in its newest columns."""
        path = self.tone(440.0, seconds=30.0)
        w = EW.Window(["-q", "--size", "960x600", "--realtime", path])
        self.windows.append(w)
        self.shot(w, lambda img: EW.find_plot(img))
        for _ in range(3):
            w.key("x")
            time.sleep(0.3)

        def check(img):
            k, contrast = brightest_column(img, 12, right=0.1)
            self.assertEqual(k, 9, "brightest class %d, not A" % k)
            self.assertGreater(contrast, 40)
        time.sleep(1.0)
        self.shot(w, check)
        self.assertEqual(w.quit(), 0, w.stderr())

    def test_command_line_transform_first(self):
        """--mel 48 --fmax 4000 and --cqt 24 --fmin 220 without an output: the window opens on
        that transform with those parameters (the tone's band of 48 up to 4 kHz, where the x
        key's mel 128 up to Nyquist has it at a third of the height; A4's bin of the 24-an-
        octave CQT), and the x key's cycle comes back to it with them (mel: five presses)."""
        path = self.tone(440.0)
        centres = np.array(self.sidecar(path, "--mel", 48, "--fmax", 4000)["freqs_hz"])
        want_mel = int(np.argmin(np.abs(centres - 440.0)))
        freqs = np.array(self.sidecar(path, "--cqt", 24, "--fmin", 220, "-n", 8192)["freqs_hz"])
        want_cqt = int(np.argmin(np.abs(freqs - 440.0)))
        self.assertEqual(want_cqt, 24)

        def brightest(cols, want, what):
            def check(img):
                k, contrast = brightest_column(img, cols)
                self.assertLessEqual(abs(k - want), 1 if cols == 48 else 0, "%s: brightest %d of %d, not %d" %
                                     (what, k, cols, want))
                self.assertGreater(contrast, 40)
            return check
        w = EW.Window(["-q", "--size", "960x600", "--mel", "48", "--fmax", "4000", path])
        self.windows.append(w)
        self.shot(w, brightest(48, want_mel, "opened"))
        for _ in range(5):
            w.key("x")
            time.sleep(0.3)
        self.shot(w, brightest(48, want_mel, "cycled back"))
        self.assertEqual(w.quit(), 0, w.stderr())
        w = EW.Window(["-q", "--size", "960x600", "-n", "8192", "--cqt", "24", "--fmin", "220", path])
        self.windows.append(w)
        self.shot(w, brightest(len(freqs), want_cqt, "cqt"))
        self.assertEqual(w.quit(), 0, w.stderr())

    @E.needs_hooks
    def test_readout_names_the_column(self):
        """The read-out over the lit row: the pitch class (chroma), the mel band's Hz (mel)."""
        path = self.tone(440.0)
        centres = np.array(self.sidecar(path, "--mel", 128)["freqs_hz"])
        for presses, cols, want in ((3, 12, "pitch class A"), (1, 128, None)):
            stats = os.path.join(self.tmp, "stats%d.json" % presses)
            w = EW.Window(["-q", "--size", "960x600", path], {"SPECTRO_VIEW_STATS": stats})
            self.windows.append(w)
            self.shot(w, lambda img: EW.find_plot(img))
            for _ in range(presses):
                w.key("x")
                time.sleep(0.3)
            k = self.shot(w, lambda img: brightest_column(img, cols)[0] if brightest_column(img, cols)[1] > 40
                          else self.fail("not drawn yet"))
            x, y, pw, ph = EW.find_plot(w.screenshot_png())
            w.mouse(x + pw // 2, int(y + ph - (k + 0.5) * ph / cols))
            time.sleep(0.5)
            self.assertEqual(w.quit(), 0, w.stderr())
            with open(stats) as f:
                line = json.load(f)["readout"].split(" | ")[1]
            if want:
                self.assertEqual(line, want)
            else:
                self.assertEqual(line, "mel band %d   %.1f Hz" % (k, centres[k]))
                self.assertLess(abs(centres[k] - 440.0), 20.0)


if __name__ == "__main__":
    EW.main()
