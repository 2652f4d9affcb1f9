"""End-to-end tests of the file window's picture from column maxima (view_worker.c), under a
virtual X server with e2e_window.py's Window and helpers:

    python3 tests/e2e/e2e_window_maxima.py SPECTRO_BINARY ASSETS_DIR [unittest args]

A file whose store keeps more than one frame an entry (a long or dense analysis: here N
32768 with a hop of 16, or --channel all) asks the pipeline for column maxima of that
span; a GPU backend computes them beside its FFT. The cpu backend does not reduce columns,
so the view gets every spectrum; the test hook SPECTRO_TEST_MAXIMA=host makes the
pipeline hand it maxima computed on the host instead (fft_stft_reduce's host path): the
window's own path for maxima, without a GPU. Checked here:

- the picture, the spectrum strip and the read-out under the cursor, whole and zoomed in to
  the store's finest entries, are pixel for pixel those of the same run fed frame by frame;
  SPECTRO_VIEW_STATS says which path fed the store, -v says the maxima were used;
- the zoom does not depend on the drawing's pace: wheel clicks taken together (the window
  stopped meanwhile, as a slow build's long frame leaves them queued) zoom to the picture
  that the same clicks give with a picture drawn after each (the zoomed picture compared
  above is then the same however its run's frames fell between the clicks);
- the running average needs every spectrum: `a` in a run fed by maxima analyses the file
  again (once), and its export is --average mean's; with --view --average (the average
  asked for at the start) no maxima are asked for at all.

Needs Xvfb and xdotool (and xwd); exits 77 (skipped) when one is missing.
"""
import glob
import json
import os
import signal
import time
import unittest

import numpy as np

import e2e_window as EW
import spectro_e2e as E

RATE = 48000
DENSE = ["-b", "cpu", "-n", "32768", "--hop", "16"]  # about 16000 frames: 2 a store entry
HOOK = {"SPECTRO_TEST_MAXIMA": "host"}


@E.needs_hooks
class TestWindowMaxima(EW.WindowCase):
    prefix = "spectro_mtest_"
    rate = RATE

    def open(self, args, env=None):
        stats = os.path.join(self.tmp, "stats-%d.json" % len(self.windows))
        w = EW.Window(["--size", "960x600"] + args, dict(env or {}, SPECTRO_VIEW_STATS=stats))
        self.windows.append(w)
        return w, stats

    def settled(self, w, timeout=300.0, quiet=1.0):
        """Screenshots until the picture, with a plot, has stayed the same for `quiet`
        seconds: the analysis is over (while it runs, the status line shows its progress and
        the frame rate) and the wheel's clicks are all taken (a loaded machine, an ASan
        build, can leave two screenshots 0.5 s apart equal half-way through a zoom). The
        dense analyses here take a minute and more in an ASan build on a loaded machine."""
        deadline = time.time() + timeout
        last, since = None, None
        while True:
            time.sleep(0.5)
            img = w.screenshot_png(timeout=60)  # an ASan build's frame after `a`'s restart: seconds
            try:
                EW.find_plot(img)
                plot = True
            except AssertionError:
                plot = False
            if not (plot and last is not None and last.shape == img.shape and (last == img).all()):
                since = time.time()  # changed (or no plot yet): the quiet time starts again
            elif time.time() - since >= quiet:
                return img
            if time.time() > deadline:
                raise AssertionError("the picture did not settle: " + w.stderr())
            last = img

    def quit_stats(self, w, stats):
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            return json.load(f)

    def pictures(self, args, env):
        """The settled window's screenshot with the cursor on the plot, then zoomed in at
        the cursor as far as the wheel goes; its stats and stderr."""
        w, stats = self.open(args, env)
        img = self.settled(w)
        x, y, pw, ph = EW.find_plot(img)
        w.mouse(x + pw // 3, y + ph // 4)  # in the first panel (two channels: two panels)
        whole = self.settled(w)
        w.wheel(True, 30)
        zoomed = self.settled(w)
        s = self.quit_stats(w, stats)
        return whole, zoomed, s, w.stderr()

    def compare(self, args, what):
        ref = self.pictures(args, None)
        got = self.pictures(args, HOOK)
        for i, name in enumerate(("whole", "zoomed")):
            a, b = ref[i], got[i]
            self.assertEqual(a.shape, b.shape, what)
            diff = (a != b).any(axis=2)
            self.assertFalse(diff.any(), "%s, %s: %d pixels differ (first at %s)" %
                             (what, name, diff.sum(), np.argwhere(diff)[0] if diff.any() else None))
            self.assertGreater(len(np.unique(a.reshape(-1, 3), axis=0)), 50, what + ": a flat picture")
        self.assertFalse(np.array_equal(ref[0], ref[1]), what + ": the zoom changed nothing")
        sr, sg = ref[2], got[2]
        self.assertNotIn("analysing", sg["status"], what)
        self.assertEqual(sr["readout"], sg["readout"], what)
        self.assertTrue(sg["readout"], what + ": no read-out")
        fpc = sg["store"]["frames_per_entry"]
        self.assertGreater(fpc, 1, what)
        self.assertEqual(sr["store"]["frames_per_entry"], fpc, what)
        self.assertEqual(sr["store"]["maxima_span"], 0, what + ": frames expected without the hook")
        self.assertEqual(sg["store"]["maxima_span"], fpc, what + ": maxima expected with the hook")
        line = "picture: the maxima of every %d frames computed beside the FFT (cpu)" % fpc
        self.assertIn(line, got[3], what)
        self.assertNotIn("picture: the maxima", ref[3], what)

    def test_mono_same_pixels(self):
        """One channel, N 32768, hop 16: maxima of 2 frames, the same pixels."""
        path = self.wav("busy.wav", EW.busy_signal(6.0))
        self.compare(["-v"] + DENSE + [path], "mono")

    def test_channels_all_same_pixels(self):
        """Two channels shown apart (--channel all) on a log scale: the same pixels."""
        path = self.wav("busy2.wav", EW.busy_signal(3.5, channels=2))
        self.compare(["-v", "-b", "cpu", "-n", "16384", "--hop", "8", "--channel", "all", "--scale", "log", path],
                     "channel all")

    def zoomed_by_clicks(self, path, together):
        """The settled picture after 10 wheel clicks at the cursor: together (the window
        stopped while they queue, then all taken before it draws), or one at a time with a
        picture drawn after each (a screenshot waits for one)."""
        w, stats = self.open(["-q", "-b", "cpu", "-n", "4096", "--hop", "32", path])
        x, y, pw, ph = EW.find_plot(self.settled(w))
        w.mouse(x + pw // 3, y + ph // 4)
        self.settled(w)
        if together:
            os.kill(w.proc.pid, signal.SIGSTOP)
            try:
                for _ in range(10):
                    EW.xdo("click", "--window", w.wid, 4)
            finally:
                os.kill(w.proc.pid, signal.SIGCONT)
        else:
            for _ in range(10):
                EW.xdo("click", "--window", w.wid, 4)
                w.screenshot_png()
        img = self.settled(w)
        self.quit_stats(w, stats)
        return img

    def test_zoom_same_at_any_pace(self):
        """10 clicks taken together zoom as 10 clicks with a picture between each: the
        frame under the cursor comes from the view as it stands, not the last picture."""
        path = self.wav("busy.wav", EW.busy_signal(4.0))
        a = self.zoomed_by_clicks(path, True)
        b = self.zoomed_by_clicks(path, False)
        self.assertEqual(a.shape, b.shape)
        diff = (a != b).any(axis=2)
        self.assertFalse(diff.any(), "%d pixels differ (first at %s)" %
                         (diff.sum(), np.argwhere(diff)[0] if diff.any() else None))

    def export(self, w):
        w.key("e")
        deadline = time.time() + 20
        while time.time() < deadline:
            got = glob.glob(os.path.join(w.dir, "spectro-avg-*.csv"))
            if got and os.path.exists(got[0] + ".json"):
                return got[0]
            time.sleep(0.1)
        raise AssertionError("no export written: " + w.stderr())

    def test_average_analyses_again(self):
        """a, a in a run fed by maxima: the infinite average needs every spectrum, so the
        file is analysed again, once, taking them; the export then equals --average mean's
        over every frame, and the picture is the one of a run fed frame by frame."""
        path = self.wav("busy.wav", EW.busy_signal(6.0))
        w, stats = self.open(DENSE + ["-q", path], HOOK)
        w.leave()
        self.settled(w)
        w.key("a", "a")
        time.sleep(0.5)
        img = self.settled(w)
        got = self.export(w)
        s = self.quit_stats(w, stats)
        self.assertEqual(s["store"]["reanalysed"], 1)
        self.assertEqual(s["store"]["maxima_span"], 0)
        self.assertEqual(s["panel_shown"], "infinite")
        self.assertEqual(s["panel_frames"], (6 * RATE - 32768) // 16 + 1)
        ref = os.path.join(self.tmp, "ref.csv")
        p = E.run(["-q"] + DENSE + ["--average", "mean", "--dump", ref, path], timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(got) as f1, open(ref) as f2:
            a, b = f1.read().splitlines(), f2.read().splitlines()
        self.assertEqual(a[0], b[0])
        diff = np.abs(np.array(a[1].split(","), float) - np.array(b[1].split(","), float)).max()
        self.assertLessEqual(diff, 1e-4, "the export is %.5f dB from --average mean's" % diff)
        # the same picture as a run with the average on from the start (fed frame by frame)
        w2, stats2 = self.open(DENSE + ["-q", "--view", "--average", "mean", path], HOOK)
        w2.leave()
        img2 = self.settled(w2)
        s2 = self.quit_stats(w2, stats2)
        self.assertEqual(s2["store"]["maxima_span"], 0, "--view --average asked for maxima")
        self.assertEqual(s2["store"]["reanalysed"], 0)
        self.assertEqual(img.shape, img2.shape)
        self.assertTrue((img == img2).all(), "%d pixels differ" % (img != img2).any(axis=2).sum())


if __name__ == "__main__":
    EW.main()  # under Xvfb, as e2e_window.py runs
