"""End-to-end tests of the window (view.c) under a virtual X server.

    python3 tests/e2e/e2e_window.py SPECTRO_BINARY ASSETS_DIR [unittest args]

Runs the real program on Xvfb, drives it with xdotool (keys, resize), and reads back two
pictures: the program's own screenshot (the `s` key: a PNG through png_write) and the X
server's view of the window (xwd). Both are decoded here (zlib / the XWD layout, no imaging
library) and checked: the plot is found by its frame, the brightest row of the plot is at
the sine's frequency, the margins hold labels, the colour bar is the colour map.

Needs Xvfb and xdotool (and xwd from x11-apps); exits 77 (skipped) when one is missing.
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

import spectro_e2e as E

DISPLAY = None
XVFB = None

FRAME = (0x4d, 0x53, 0x60)   # render.c's frame colour around the panels
BG = (0x12, 0x14, 0x19)
VIRIDIS_TOP = (253, 231, 37)  # viridis(1.0)
VIRIDIS_BOTTOM = (68, 1, 84)  # viridis(0.0)
MAGMA_TOP = (252, 253, 191)   # magma(1.0)


# ---- pictures ------------------------------------------------------------------------------

read_png = E.read_png


def read_xwd(path):
    """xwd's ZPixmap of a TrueColor 24/32-bit window -> (h, w, 3) uint8."""
    with open(path, "rb") as f:
        data = f.read()
    hdr = struct.unpack(">25I", data[:100])
    hsize, fmt, depth, w, h = hdr[0], hdr[2], hdr[3], hdr[4], hdr[5]
    byte_order, bpp, bpl = hdr[7], hdr[11], hdr[12]
    rmask, gmask, bmask, ncolors = hdr[14], hdr[15], hdr[16], hdr[19]
    assert fmt == 2 and bpp == 32, (fmt, bpp)
    off = hsize + ncolors * 12
    px = np.frombuffer(data, np.uint8, bpl * h, off).reshape(h, bpl)[:, :w * 4]
    words = px.reshape(h, w, 4).astype(np.uint32)
    v = (words[..., 0] | words[..., 1] << 8 | words[..., 2] << 16 | words[..., 3] << 24) if byte_order == 0 else \
        (words[..., 3] | words[..., 2] << 8 | words[..., 1] << 16 | words[..., 0] << 24)

    def chan(mask):
        shift = (mask & -mask).bit_length() - 1
        return ((v & mask) >> shift).astype(np.uint8)
    return np.dstack([chan(rmask), chan(gmask), chan(bmask)])


def find_plot(img):
    """The spectrogram panel inside its frame: (x, y, w, h) of the data, from the longest
    horizontal runs of the frame colour (the panel is the widest framed thing)."""
    h, w, _ = img.shape
    is_frame = np.all(img == np.array(FRAME, np.uint8), axis=2)
    rows = []
    for y in range(h):
        r = is_frame[y].astype(np.int8)
        if r.sum() < w * 0.4:
            continue
        # longest run
        d = np.diff(np.concatenate([[0], r, [0]]))
        starts, ends = np.where(d == 1)[0], np.where(d == -1)[0]
        k = np.argmax(ends - starts)
        if ends[k] - starts[k] >= w * 0.4:
            rows.append((y, starts[k], ends[k]))
    assert len(rows) >= 2, "no plot frame found"
    top, bottom = rows[0], rows[-1]
    x0, x1 = top[1] + 1, top[2] - 1
    return x0, top[0] + 1, x1 - x0, bottom[0] - top[0] - 1


def brightest_hz(img, plot, fmax, cols=None):
    """Frequency of the brightest row of the plot (linear scale 0 .. fmax)."""
    x, y, w, h = plot
    area = img[y:y + h, x:x + w].astype(np.float64)
    if cols is not None:
        area = area[:, cols]
    lum = (0.2126 * area[..., 0] + 0.7152 * area[..., 1] + 0.0722 * area[..., 2]).mean(axis=1)
    row = int(np.argmax(lum))
    return fmax * (1.0 - (row + 0.5) / h), fmax / h


def close(a, b, tol=4):
    return all(abs(int(p) - int(q)) <= tol for p, q in zip(a, b))


# ---- the program on the X server -------------------------------------------------------------

def xdo(*args, timeout=10):
    return subprocess.run(["xdotool"] + [str(a) for a in args], env=xenv(), capture_output=True, text=True,
                          timeout=timeout)


def xenv(extra=None):
    env = dict(os.environ)
    env.pop("WAYLAND_DISPLAY", None)
    env["DISPLAY"] = DISPLAY
    env.setdefault("SDL_AUDIODRIVER", "dummy")
    # only system libraries (libX11, libdbus) leak on exit under LeakSanitizer
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    if extra:
        env.update(extra)
    return env


class Window:
    """spectro with a window, in its own temporary directory."""

    def __init__(self, args, env=None):
        self.dir = tempfile.mkdtemp(prefix="spectro_win_")
        self.err = open(os.path.join(self.dir, "stderr.txt"), "w+")
        self.proc = subprocess.Popen([E.BIN] + [str(a) for a in args], cwd=self.dir, env=xenv(env),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err)
        self.wid = None
        deadline = time.time() + 60  # sanitizer builds under load start slowly
        while time.time() < deadline and self.proc.poll() is None:
            r = xdo("search", "--onlyvisible", "--pid", self.proc.pid, "--name", "spectro")
            ids = r.stdout.split()
            if ids:
                self.wid = ids[-1]
                break
            time.sleep(0.2)
        if not self.wid:
            code = self.proc.poll()
            if code is None:
                self.proc.kill()
                self.proc.wait()
            raise AssertionError("no window appeared (exit %s): %s" % (code, self.stderr()))

    def stderr(self):
        self.err.flush()
        self.err.seek(0)
        return self.err.read()

    def alive(self):
        return self.proc.poll() is None

    def key(self, *keys):
        xdo("windowfocus", "--sync", self.wid)
        for k in keys:
            xdo("key", "--clearmodifiers", k)
            time.sleep(0.15)

    def screenshot_png(self, timeout=5):
        """Presses s and returns the decoded PNG the program wrote."""
        before = set(f for f in os.listdir(self.dir) if f.endswith(".png"))
        self.key("s")
        deadline = time.time() + timeout
        while time.time() < deadline:
            new = [f for f in os.listdir(self.dir) if f.endswith(".png") and not f.startswith(".")
                   and f not in before]
            if new:
                assert new[0].startswith("spectro-") and len(new[0]) >= len("spectro-YYYYmmdd-HHMMSS.png"), new[0]
                time.sleep(0.1)
                return read_png(os.path.join(self.dir, new[0]))
            time.sleep(0.1)
        raise AssertionError("no screenshot written: " + self.stderr())

    def mouse(self, x, y):
        """Moves the pointer to x, y of the window."""
        xdo("mousemove", "--window", self.wid, x, y)
        time.sleep(0.15)

    def leave(self):
        """Moves the pointer off the window (to the screen's corner)."""
        xdo("mousemove", 0, 0)
        time.sleep(0.15)

    def wheel(self, up, times=1):
        for _ in range(times):
            xdo("click", "--window", self.wid, 4 if up else 5)
            time.sleep(0.15)

    def screenshot_x(self):
        path = os.path.join(self.dir, "window.xwd")
        subprocess.run(["xwd", "-silent", "-id", self.wid, "-out", path], env=xenv(), check=True, timeout=10)
        return read_xwd(path)

    def quit(self, timeout=10):
        self.key("q")
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("q did not close the window")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.err.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def busy_signal(seconds, channels=1, rate=48000):
    """A sweep with bursts (every spectrum differs, so a column out of place shows); the
    second channel sweeps down."""
    t = np.arange(int(seconds * rate)) / rate
    gate = 0.3 + 0.7 * (np.floor(t / 0.23) % 2)
    up = np.sin(2 * np.pi * (300 * t + 400 * t * t)) * gate
    if channels == 1:
        return 0.5 * up
    down = np.sin(2 * np.pi * (9000 * t - 300 * t * t)) * (1.3 - gate)
    return 0.4 * np.stack([up, down], axis=1)


# ---- tests ------------------------------------------------------------------------------------

class WindowCase(unittest.TestCase):
    """A test that opens windows: a temporary directory (tmp) and the windows to close
    (windows) for each test, and float WAVs of `rate` written into it."""
    prefix = "spectro_wtest_"
    rate = 48000

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix=self.prefix)
        self.windows = []

    def tearDown(self):
        for w in self.windows:
            w.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def wav(self, name, x):
        path = os.path.join(self.tmp, name)
        E.write_float_wav(path, np.asarray(x, dtype=np.float32), self.rate)
        return path


class TestWindow(WindowCase):
    def quit_stats(self, w, stats):
        """Quits the window (exit 0 expected) and returns the stats it wrote."""
        self.assertEqual(w.quit(), 0, w.stderr())
        with open(stats) as f:
            return json.load(f)

    def settled(self, w, check, timeout=10.0):
        """Screenshots (the `s` key) until check(img) passes: the analysis and the first
        pictures take a moment, longer under a sanitizer. Returns the last picture."""
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

    def open(self, args, env=None):
        w = Window(args, env)
        self.windows.append(w)
        return w

    def check_picture(self, img, hz, fmax=24000.0, top=VIRIDIS_TOP, cols=None):
        plot = find_plot(img)
        x, y, w, h = plot
        self.assertGreater(w, img.shape[1] * 0.4)
        self.assertGreater(h, img.shape[0] * 0.4)
        got, row_hz = brightest_hz(img, plot, fmax, cols)
        self.assertLess(abs(got - hz), 2.5 * row_hz + 24.0, "brightest row at %.0f Hz, not %.0f Hz" % (got, hz))
        # labels: light pixels left of the plot (frequencies) and under it (times)
        lum = img.astype(np.int32).sum(axis=2)
        self.assertGreater((lum[y:y + h, :x - 2] > 450).sum(), 200, "no frequency labels")
        self.assertGreater((lum[y + h + 2:, x:x + w] > 450).sum(), 200, "no time labels")
        # the colour bar: right of the plot, same rows, top = the map at 1.0, bottom at 0.0
        right = img[y + 1, x + w + 2:]
        cand = [i for i in range(right.shape[0]) if close(right[i], top)]
        self.assertTrue(cand, "no colour bar with the colour map's top colour")
        bx = x + w + 2 + cand[0] + 1
        bottom = VIRIDIS_BOTTOM if top == VIRIDIS_TOP else None
        if bottom:
            self.assertTrue(close(img[y + h - 2, bx], bottom), "colour bar bottom %s" % (img[y + h - 2, bx],))
        # monotonic luminance up the bar (perceptual maps)
        col = img[y:y + h, bx].astype(np.float64)
        lumbar = 0.2126 * col[:, 0] + 0.7152 * col[:, 1] + 0.0722 * col[:, 2]
        self.assertGreater(lumbar[1], lumbar[-2] + 100)
        return plot

    def test_file_view_keys_resize_quit(self):
        """Whole-file view: picture, keys, resize, screenshot after, q exits 0."""
        w = self.open(["-q", "--size", "960x600", E.asset("sine_1125hz_48k_f32.wav")])
        img = self.settled(w, lambda im: self.check_picture(im, 1125.0))
        self.assertEqual(img.shape[:2], (600, 960))
        ximg = w.screenshot_x()
        self.assertEqual(ximg.shape[:2], (600, 960))
        self.check_picture(ximg, 1125.0)
        # keys: colour map, scale, dB range, pause, help; then back to linear (l l)
        w.key("c", "l", "Up", "space", "h", "h", "space", "Down", "l", "l", "plus", "minus", "Right", "Home")
        self.assertTrue(w.alive(), w.stderr())
        xdo("windowsize", w.wid, 800, 500)
        time.sleep(1.0)
        self.assertTrue(w.alive(), w.stderr())
        img2 = w.screenshot_png()
        self.assertEqual(img2.shape[:2], (500, 800))
        self.check_picture(img2, 1125.0, top=MAGMA_TOP)
        ximg2 = w.screenshot_x()
        self.assertEqual(ximg2.shape[:2], (500, 800))
        self.assertGreater((np.abs(ximg2.astype(int) - np.array(BG)).sum(axis=2) > 30).mean(), 0.3)
        self.assertEqual(w.quit(), 0, w.stderr())
        self.assertEqual(w.stderr().strip(), "")

    def open_realtime_3k(self, seconds):
        """A window streaming `seconds` of a 3 kHz sine through the live path (--realtime,
        N 4096, hop 512, 960x600); returns it and the path of its SPECTRO_VIEW_STATS file."""
        path = os.path.join(self.tmp, "sine3k.wav")
        t = np.arange(48000 * seconds) / 48000.0
        E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * 3000.0 * t), 48000)
        stats = os.path.join(self.tmp, "stats.json")
        w = self.open(["-q", "--realtime", "-b", "cpu", "-n", "4096", "--hop", "512", "--size", "960x600", path],
                      env={"SPECTRO_VIEW_STATS": stats})
        return w, stats

    @E.needs_hooks
    def test_realtime_scrolling_stats(self):
        """--realtime: live scrolling; SPECTRO_VIEW_STATS reports fps and latency."""
        w, stats = self.open_realtime_3k(8)
        time.sleep(1.5)

        def check(img):
            x, y, pw, ph = find_plot(img)
            # newest at the right: the right quarter holds the tone
            self.check_picture(img, 3000.0, cols=slice(pw * 3 // 4, pw))
        self.settled(w, check)
        time.sleep(1.0)
        self.assertTrue(w.alive())
        s = self.quit_stats(w, stats)
        self.assertGreater(s["frames_drawn"], 10)
        self.assertGreater(s["mean_fps"], 0)
        self.assertGreater(s["latency_samples"], 0)
        self.assertGreater(s["latency_p50_ms"], 0)
        self.assertLess(s["latency_p95_ms"], 1000)
        sys.stderr.write("\n  realtime window: %s\n" % json.dumps(s))

    @E.needs_hooks
    def test_live_wheel_burst_and_restart(self):
        """--realtime: after a restart (w: next window function) the latency read-out goes
        on (it once waited for the new run's frame count to pass the old one's: a third of
        the samples were lost here). Also a burst of 80 wheel-out clicks keeps the window
        running (the time zoom is bounded now; it once doubled to 0, a division by zero,
        when 64 clicks came between two pictures, which this burst does not always do)."""
        w, stats = self.open_realtime_3k(12)
        time.sleep(2.0)
        xdo("click", "--window", w.wid, "--repeat", 80, "--delay", 0, 5)
        time.sleep(0.5)
        self.assertTrue(w.alive(), "a burst of 80 wheel-out clicks ended the window: " + w.stderr())
        w.wheel(True, 80 // 10)  # back in a little; still alive
        time.sleep(2.0)
        w.key("w")
        time.sleep(3.0)
        # n eight times: 8192 ... 32768, 256 ... 4096 again, a restart each (under
        # ThreadSanitizer in scripts/test.sh: the analysis's config is not touched while it runs)
        w.key(*["n"] * 8)
        time.sleep(2.0)
        self.assertTrue(w.alive(), w.stderr())
        s = self.quit_stats(w, stats)
        # every picture with a newer frame is a latency sample; before and after the restart
        self.assertGreater(s["frames_drawn"], 100, s)
        self.assertGreater(s["latency_samples"], 0.8 * s["frames_drawn"], s)

    @E.needs_hooks
    def test_live_incremental_matches_whole_redraw(self):
        """--realtime, SPECTRO_VIEW_VERIFY: every picture the window draws in parts (the
        panels kept as columns between frames, only what moved drawn again) is compared
        inside the program with a whole redraw from the same spectra, and what the renderer
        shows (read back) with the picture; through keys, zoom, pause, read-out, resize and
        a restart."""
        for channels in (1, 2):
            with self.subTest(channels=channels):
                path = os.path.join(self.tmp, "busy%d.wav" % channels)
                E.write_float_wav(path, busy_signal(14, channels), 48000)
                stats = os.path.join(self.tmp, "verify%d.json" % channels)
                args = ["-q", "--realtime", "-b", "cpu", "-n", "2048", "--hop", "512", "--size", "960x600"]
                if channels > 1:
                    args += ["--channel", "all"]
                w = self.open(args + [path], env={"SPECTRO_VIEW_VERIFY": "1", "SPECTRO_VIEW_STATS": stats})
                time.sleep(1.5)
                w.mouse(300, 200)  # read-out over a panel
                w.mouse(500, 260)
                w.key("c", "Up", "plus")
                w.wheel(False, 2)  # time zoom out: two frames a column, then four
                time.sleep(0.5)
                w.wheel(True)
                w.key("Prior", "minus", "h")
                time.sleep(0.3)
                w.key("h", "space")
                time.sleep(0.4)
                w.key("space", "l")
                w.leave()
                w.key("0")
                xdo("windowsize", w.wid, 800, 500)
                time.sleep(0.8)
                for x in range(50, 130, 10):  # cross-hairs through the channel labels
                    w.mouse(x, 120)
                    w.mouse(x, 330)
                w.key("n")  # a restart with the next FFT size
                time.sleep(1.0)
                w.key("s")
                time.sleep(0.5)
                self.assertTrue(w.alive(), w.stderr())
                s = self.quit_stats(w, stats)
                self.assertGreater(s["verify_frames"], 50, s)
                self.assertGreater(s["verify_shown"], 50, s)
                self.assertEqual((s["verify_mismatches"], s["verify_shown_mismatches"]), (0, 0), s["verify_first"])

    def test_live_shown_matches_screenshot(self):
        """--realtime without the check: paused after the read-out was up, then the pointer
        leaves; the X server's picture (the texture updated in parts) must equal the
        program's screenshot (the whole picture composed), status line aside."""
        for channels in (1, 2):
            with self.subTest(channels=channels):
                path = os.path.join(self.tmp, "shown%d.wav" % channels)
                E.write_float_wav(path, busy_signal(12, channels), 48000)
                args = ["-q", "--realtime", "-b", "cpu", "-n", "4096", "--hop", "512", "--size", "960x600"]
                if channels > 1:
                    args += ["--channel", "all"]
                w = self.open(args + [path])
                time.sleep(1.5)
                w.mouse(400, 250)
                time.sleep(0.5)
                w.key("space")
                w.leave()  # the read-out goes: the next picture puts back what it covered
                time.sleep(0.5)
                ximg = w.screenshot_x()
                img = w.screenshot_png()
                self.assertEqual(ximg.shape, img.shape)
                rows = img.shape[0] - 40  # the status line (fps) may change between the two
                diff = np.any(ximg[:rows] != img[:rows], axis=2)
                self.assertFalse(diff.any(), "%d pixels differ, first at (x, y) %s" %
                                 (diff.sum(), tuple(np.argwhere(diff)[0][::-1]) if diff.any() else None))
                self.assertEqual(w.quit(), 0, w.stderr())

    def test_channel_all_stacks(self):
        """--channel all: one panel per channel, each at its own tone."""
        w = self.open(["-q", "--channel", "all", "--size", "960x700",
                       E.asset("stereo_1500l_3000r_48k_s16.wav")])

        def check(img):
            is_frame = np.all(img == np.array(FRAME, np.uint8), axis=2)
            rows = [y for y in range(img.shape[0]) if is_frame[y].sum() > img.shape[1] * 0.4]
            # two panels: two pairs of long frame rows (top and bottom of each)
            groups = [rows[0]] + [b for a, b in zip(rows, rows[1:]) if b - a > 2]
            self.assertEqual(len(groups), 4, "frame rows %s" % groups)
            x, _, pw, _ = find_plot(img)
            for (top, bottom), hz in (((groups[0], groups[1]), 1500.0), ((groups[2], groups[3]), 3000.0)):
                got, row_hz = brightest_hz(img, (x, top + 1, pw, bottom - top - 1), 24000.0)
                self.assertLess(abs(got - hz), 2.5 * row_hz + 24.0, "panel tone %.0f Hz, not %.0f" % (got, hz))
        self.settled(w, check)
        self.assertEqual(w.quit(), 0, w.stderr())

    def stats_window(self, name, args, seconds=None, rate=48000):
        """A window on a file (a 1 kHz sine of `seconds` written here, or the asset `name`)
        with SPECTRO_VIEW_STATS; returns it and the stats' path."""
        path = E.asset(name)
        if seconds:
            path = os.path.join(self.tmp, name)
            t = np.arange(int(rate * seconds)) / rate
            E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * 1000.0 * t), rate)
        stats = os.path.join(self.tmp, "stats-%s.json" % name)
        return self.open(["-q"] + args + [path], env={"SPECTRO_VIEW_STATS": stats}), stats

    @E.needs_hooks
    def test_status_line_drops_whole_fields(self):
        """A narrow window's status line keeps whole fields (N=8192, never N=819): the least
        important go first; a wide one shows them all."""
        fields = {}
        for size in ("1400x600", "520x400", "360x300"):
            w, stats = self.stats_window("sine_1125hz_48k_f32.wav", ["-n", "8192", "--size", size])
            self.settled(w, lambda im: self.check_picture(im, 1125.0))
            s = self.quit_stats(w, stats)
            left, right = s["status"].split(" | ")
            fields[size] = [f for part in (left, right) for g in part.split("  \u00b7  ")
                            for f in g.strip().split("  ")]
        wide = fields["1400x600"]
        for f in ("N=8192", "hop=2048", "48000 Hz", "gain +0 dB", "h: help"):
            self.assertIn(f, wide)
        for size in ("520x400", "360x300"):
            self.assertIn("N=8192", fields[size], fields[size])
            for f in fields[size]:
                self.assertIn(f, wide, "%s: a field cut or changed: %r of %s" % (size, f, fields[size]))
        self.assertLess(len(fields["360x300"]), len(wide))

    @E.needs_hooks
    def test_colorbar_follows_gain(self):
        """+ (gain up) moves the colours and the colour bar's labels with them: the bar says
        which dBFS each colour means (-120..0 with +12 dB of gain: -132..-12)."""
        w, stats = self.stats_window("sine_1125hz_48k_f32.wav", ["--size", "960x600"])
        before = self.settled(w, lambda im: self.check_picture(im, 1125.0))
        x, y, pw, ph = find_plot(before)
        w.key("plus", "plus", "plus", "plus")
        time.sleep(0.5)
        after = w.screenshot_png()
        labels = (slice(y, y + ph), slice(x + pw + 2, before.shape[1]))
        self.assertTrue(np.any(before[labels] != after[labels]), "the colour bar's labels did not change")
        s = self.quit_stats(w, stats)
        self.assertEqual(s["colorbar_db"], [-132, -12])
        self.assertIn("gain +12 dB", s["status"])

    @E.needs_hooks
    def test_readout_time_as_axis(self):
        """Over a 70 s file the time axis says m:ss: so does the read-out (1:02.123, not
        62.123 s)."""
        w, stats = self.stats_window("long70.wav", ["--size", "960x600"], seconds=70, rate=8000)
        self.settled(w, lambda im: self.check_picture(im, 1000.0, fmax=4000.0))
        img = w.screenshot_png()
        x, y, pw, ph = find_plot(img)
        w.mouse(x + pw * 9 // 10, y + ph // 2)
        time.sleep(0.5)
        s = self.quit_stats(w, stats)
        t = s["readout"].split(" | ")[0]
        self.assertRegex(t, r"^1:0\d\.\d{3}$", s["readout"])

    @E.needs_hooks
    def test_start_offsets_the_time_axis(self):
        """--start 40 over a 50 s file: the picture shows 40 ... 50 s, so the read-out near its
        right edge reads past 0:48, and near its left edge at 0:40 or after (frame times stay
        absolute, as in the dump)."""
        w, stats = self.stats_window("long50.wav", ["--size", "960x600", "--start", "40"], seconds=50, rate=8000)
        self.settled(w, lambda im: self.check_picture(im, 1000.0, fmax=4000.0))
        img = w.screenshot_png()
        x, y, pw, ph = find_plot(img)
        w.mouse(x + pw * 19 // 20, y + ph // 2)
        time.sleep(0.5)
        right = self.quit_stats(w, stats)["readout"].split(" | ")[0]
        w, stats = self.stats_window("long50.wav", ["--size", "960x600", "--start", "40"], seconds=50, rate=8000)
        self.settled(w, lambda im: self.check_picture(im, 1000.0, fmax=4000.0))
        w.mouse(x + 2, y + ph // 2)
        time.sleep(0.5)
        left = self.quit_stats(w, stats)["readout"].split(" | ")[0]
        def secs(t):
            m, s = t.split(":") if ":" in t else ("0", t.rstrip(" s"))
            return 60 * int(m) + float(s)
        self.assertGreater(secs(right), 48.0, right)
        self.assertLessEqual(secs(right), 50.0, right)
        self.assertGreaterEqual(secs(left), 40.0, left)
        self.assertLess(secs(left), 41.0, left)

    @E.needs_hooks
    def test_range_width_keys(self):
        """] / [ widen / narrow the dB range (its low end, 10 dB a press; never below 10 dB
        wide); the colour bar follows."""
        w, stats = self.stats_window("sine_1125hz_48k_f32.wav", ["--size", "960x600"])
        self.settled(w, lambda im: self.check_picture(im, 1125.0))
        w.key("bracketright", "bracketright")
        time.sleep(0.3)
        w.screenshot_png()
        w.key(*["bracketleft"] * 14)  # -140 .. 0 narrowed to -10 .. 0, no further
        time.sleep(0.3)
        s = self.quit_stats(w, stats)
        self.assertEqual(s["colorbar_db"], [-10, 0])
        self.assertIn("\u221210 \u2026 0 dB", s["status"])
        w, stats = self.stats_window("sine_1125hz_48k_f32.wav", ["--size", "960x600"])
        self.settled(w, lambda im: self.check_picture(im, 1125.0))
        w.key("bracketright", "bracketright", "Up")
        time.sleep(0.3)
        s = self.quit_stats(w, stats)
        self.assertEqual(s["colorbar_db"], [-135, 5])

    def test_toast_covers_no_axis(self):
        """A key's message is drawn inside the plot, not over the time axis's labels: the
        window (X's picture, message up) equals the screenshot (no message) outside the plot."""
        w = self.open(["-q", "--size", "960x600", E.asset("sine_1125hz_48k_f32.wav")])
        img = self.settled(w, lambda im: self.check_picture(im, 1125.0))
        x, y, pw, ph = find_plot(img)
        w.key("l", "l", "l")  # the scale back where it was, "frequency scale: linear" shown
        ximg = w.screenshot_x()
        img = w.screenshot_png()
        self.assertEqual(ximg.shape, img.shape)
        outside = np.ones(img.shape[:2], bool)
        outside[y - 1:y + ph + 1, x - 1:x + pw + 1] = False
        outside[img.shape[0] - 40:] = False  # the status line
        self.assertGreater(np.any(ximg[y:y + ph, x:x + pw] != img[y:y + ph, x:x + pw], axis=2).sum(), 100,
                           "no message drawn in the plot")
        diff = np.any(ximg != img, axis=2) & outside
        self.assertFalse(diff.any(), "%d pixels outside the plot differ, first at (x, y) %s" %
                         (diff.sum(), tuple(np.argwhere(diff)[0][::-1]) if diff.any() else None))
        self.assertEqual(w.quit(), 0, w.stderr())

    def test_help_fits_smallest_window(self):
        """At the smallest size (560x360) the help overlay (all of the key table) fits the
        window: what `h` changes lies inside it, its frame included (it took two columns)."""
        w = self.open(["-q", "--size", "560x360", E.asset("sine_1125hz_48k_f32.wav")])
        self.settled(w, lambda im: self.check_picture(im, 1125.0))
        before = w.screenshot_x()
        w.key("h")
        time.sleep(0.5)
        after = w.screenshot_x()
        self.assertEqual(before.shape, after.shape)
        changed = np.argwhere(np.any(before != after, axis=2))
        self.assertGreater(len(changed), 1000, "no help drawn")
        (y0, x0), (y1, x1) = changed.min(axis=0), changed.max(axis=0)
        h, wd = after.shape[:2]
        self.assertTrue(y0 > 0 and x0 > 0 and y1 < h - 1 and x1 < wd - 1,
                        "the help spans rows %d..%d, columns %d..%d of %dx%d" % (y0, y1, x0, x1, wd, h))
        self.assertEqual(w.quit(), 0, w.stderr())

    @E.needs_hooks
    def test_readout_no_data(self):
        """--realtime, a second in: the left of the panel is before the start. It is drawn
        hatched in greys on screen, not as silence (the bottom colour), and the read-out says
        "no data" there (it said "<= -200 dBFS", like silence). The right of the panel, where
        the tone plays, is not hatched."""
        w, stats = self.open_realtime_3k(8)
        time.sleep(1.5)
        img = w.screenshot_png()
        x, y, pw, ph = find_plot(img)
        shown = w.screenshot_x()
        for cols, hatched in ((slice(x, x + 12), True), (slice(x + pw - 12, x + pw), False)):
            px = shown[y:y + ph, cols, :3].reshape(-1, 3).astype(int)
            grey = (np.all(px == 0x2a, axis=1) | np.all(px == 0x4a, axis=1)).mean()
            silence = np.all(px == VIRIDIS_BOTTOM, axis=1).mean()
            if hatched:
                self.assertGreater(grey, 0.9, "before the start: %.3f of the pixels hatched" % grey)
                self.assertEqual(silence, 0.0, "before the start drawn as silence")
            else:
                self.assertLess(grey, 0.05, "the newest columns hatched: %.3f" % grey)
        w.mouse(x + 5, y + ph // 2)
        time.sleep(0.5)
        s = self.quit_stats(w, stats)
        self.assertTrue(s["readout"].endswith("| no data"), s["readout"])

    def test_bad_file_no_window(self):
        """A file that cannot be read fails before any window: exit 2, one line."""
        p = E.run([os.path.join(self.tmp, "missing.wav")], timeout=20, env=xenv())
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_display_unreachable(self):
        """DISPLAY names no X server: exit 1 with one line, no invisible window left running."""
        env = dict(os.environ)
        env["DISPLAY"] = ":%d" % (os.getpid() % 1000 + 5000)
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("SDL_VIDEODRIVER", None)
        p = E.run(["-q", E.asset("sine_1125hz_48k_f32.wav")], timeout=20, env=env)
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(env["DISPLAY"], lines[0])
        self.assertIn("--png", lines[0])

    def test_no_display(self):
        """No display: exit 1 with one line that points to the headless outputs."""
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("SDL_VIDEODRIVER", None)
        p = E.run([E.asset("sine_1125hz_48k_f32.wav")], timeout=20, env=env)
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("--png", lines[0])


def start_xvfb():
    """Xvfb on a free display number (-displayfd); returns (process, ':N')."""
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24", "-nolisten", "tcp",
                             "-noreset"],  # no server reset when a client (xdotool) leaves
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    num = b""
    deadline = time.time() + 10
    while time.time() < deadline and not num.endswith(b"\n"):
        chunk = os.read(r, 16)
        if not chunk:
            break
        num += chunk
    os.close(r)
    if not num.strip():
        proc.kill()
        raise RuntimeError("Xvfb did not start")
    display = ":" + num.decode().strip()
    # ready when a client gets an answer (under load the first connections can fail)
    env = dict(os.environ, DISPLAY=display)
    deadline = time.time() + 20
    while time.time() < deadline:
        if subprocess.run(["xdotool", "getdisplaygeometry"], env=env, capture_output=True).returncode == 0:
            return proc, display
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("Xvfb on %s does not answer" % display)


def main():
    global DISPLAY, XVFB
    argv = E.parse_args()
    for tool in ("Xvfb", "xdotool", "xwd"):
        if not shutil.which(tool):
            print("skipped: %s is not installed (apt-get install xvfb xdotool x11-apps)" % tool)
            sys.exit(77)
    XVFB, DISPLAY = start_xvfb()
    try:
        prog = unittest.main(argv=argv, verbosity=2, exit=False)
        ok = prog.result.wasSuccessful()
    finally:
        XVFB.send_signal(signal.SIGTERM)
        try:
            XVFB.wait(5)
        except subprocess.TimeoutExpired:
            XVFB.kill()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
