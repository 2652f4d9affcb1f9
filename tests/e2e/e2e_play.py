"""End-to-end tests of playback in the file view (view_play.c, view_player.c) under Xvfb.

    python3 tests/e2e/e2e_play.py SPECTRO_BINARY ASSETS_DIR [unittest args]

The output device is PortAudio's real ALSA playback path without a sound card: an ALSA
configuration written here (ALSA_CONFIG_PATH) whose PCMs are the `file` plugin straight over
`null` (never under `plug`), `format raw`: every byte PortAudio hands the device lands in a
file of the scratch directory, float32 mono as spectro opens it. `null` has no clock of its
own, so the stream runs as fast as the callback fills it; the playhead's consistency with the
output stream's clock is checked from the clock samples the window records each frame.

- p with the cursor on the picture: the bytes written are the file's mix from the sample
  under the cursor to the end, exactly (then silence to the end of the last buffer).
- p over a shift+drag selection: exactly the selection's samples (its first frame's first
  sample to its last frame's last), of the channel --channel picked.
- the playhead: position = buffer index + (stream time - DAC time) * rate, never past what
  was written, and between two frames of one buffer it advances rate samples per second of
  stream time.
- no output device (none defined, or --output-device naming none): the status line and the
  toast say "no audio output", the window keeps working, q exits 0.
- --list-devices shows each device's direction.

Needs Xvfb, xdotool and xwd (exits 77 when one is missing), PortAudio and ALSA in the build.
"""
import json
import os
import time
import unittest

import numpy as np

import e2e_window as EW
import spectro_e2e as E

RATE = 16000
N, HOP = 2048, 512

ASOUND = """
pcm.!default {{
    type file
    slave.pcm "null"
    file "{default}"
    format "raw"
}}
pcm.spectro_out {{
    type file
    slave.pcm "null"
    file "{named}"
    format "raw"
}}
pcm.null {{
    type null
}}
"""

# the file plugin over a real-time sink (tests/alsa/clock_pcm.c, SPECTRO_TEST_CLOCK_PCM)
ASOUND_PACED = """
pcm.spectro_paced {{
    type file
    slave.pcm "spectro_clock_dev"
    file "{paced}"
    format "raw"
}}
pcm.spectro_clock_dev {{
    type spectro_clock
}}
pcm_type.spectro_clock {{
    lib "{lib}"
}}
"""

# no device PortAudio would list (it skips `null`)
ASOUND_NONE = """
pcm.null {
    type null
}
"""


@E.needs_hooks
class TestPlay(EW.WindowCase):
    prefix = "spectro_play_"
    rate = RATE

    def setUp(self):
        super().setUp()
        self.out_default = os.path.join(self.tmp, "default.raw")
        self.out_named = os.path.join(self.tmp, "named.raw")
        self.conf = os.path.join(self.tmp, "asound.conf")
        with open(self.conf, "w") as f:
            f.write(ASOUND.format(default=self.out_default, named=self.out_named))
        self.env = {"ALSA_CONFIG_PATH": self.conf, "JACK_DEFAULT_SERVER": "spectro-test-no-server"}


    def signal(self, seconds, channels):
        rng = np.random.default_rng(19)
        t = np.arange(int(seconds * RATE)) / RATE
        x = 0.3 * np.sin(2 * np.pi * 1000.0 * t)[:, None] + rng.uniform(-0.2, 0.2, (t.size, channels))
        return x.astype(np.float32)

    def open(self, args, path, env=None):
        """A window on path with SPECTRO_VIEW_STATS, once the file's picture is up and its
        analysis over; returns it, the stats' path and the plot's rectangle."""
        stats = os.path.join(self.tmp, "stats-%d.json" % len(self.windows))
        w = EW.Window(["-q", "--size", "960x600", "-n", str(N), "--hop", str(HOP)] + args + [path],
                      dict(self.env, SPECTRO_VIEW_STATS=stats, **(env or {})))
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

    def wait_played(self, w, out, nbytes, timeout=20):
        """Until the device's file holds at least nbytes (null runs as fast as it is fed)
        and a moment more, for the window to draw the playhead at the end."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if os.path.exists(out) and os.path.getsize(out) >= nbytes:
                time.sleep(0.5)
                return
            time.sleep(0.1)
        raise AssertionError("the device got %s bytes, not %d: %s" % (
            os.path.getsize(out) if os.path.exists(out) else None, nbytes, w.stderr()))

    def assert_played(self, out, expected):
        """The device's bytes: less than a buffer of silence (what PortAudio's ALSA host
        puts in the device's buffer at the start, beside the callback's priming), expected
        exactly, then silence to the end of the last buffer. expected[0] is not 0 (noise)."""
        got = np.fromfile(out, dtype="<f4")
        self.assertNotEqual(expected[0], 0)
        nz = np.flatnonzero(got)
        self.assertGreater(nz.size, 0, "the device got only silence")
        lead = nz[0]
        self.assertLess(lead, 16384, "more than a buffer of silence before the stretch")
        got = got[lead:]
        self.assertGreaterEqual(got.size, expected.size)
        self.assertTrue(np.array_equal(got[:expected.size], expected),
                        "first difference at sample %s" % np.flatnonzero(got[:expected.size] != expected)[:1])
        tail = got[expected.size:]
        self.assertTrue(np.all(tail == 0), "after the stretch: not silence")
        self.assertLess(tail.size, 16384, "more than a buffer of silence after the stretch")

    def check_clock(self, play, rate):
        """The playhead against the output stream's clock, frame by frame."""
        clock = np.array(play["clock"], float)
        self.assertGreater(len(clock), 0, "no frame was drawn while playing")
        t, dac, idx, written, pos = clock[:, 0], clock[:, 1], clock[:, 2], clock[:, 3], clock[:, 4]
        self.assertTrue(np.all(pos <= written + 1e-6), "the playhead ran ahead of what was written")
        self.assertTrue(np.all(pos >= 0))
        self.assertTrue(np.all(np.diff(t) >= 0), "the stream time went back")
        # position = the buffer's first sample + the stream time since its DAC time (clamped)
        want = np.clip(idx + (t - dac) * rate, 0, written)
        self.assertLess(np.abs(pos - want).max(), 1e-3, "the position is not the output clock's")
        # two frames that read one buffer's clock: rate samples per second of stream time
        same = (np.diff(idx) == 0) & (np.diff(dac) == 0)
        inside = (want[:-1] > 0) & (want[:-1] < written[:-1]) & (want[1:] > 0) & (want[1:] < written[1:])
        k = np.flatnonzero(same & inside)
        if k.size:
            adv = (pos[k + 1] - pos[k]) - (t[k + 1] - t[k]) * rate
            self.assertLess(np.abs(adv).max(), 1e-2, "the playhead does not advance at the rate")

    # ---- tests ---------------------------------------------------------------------------

    def test_play_from_cursor(self):
        """p with the cursor at a third of a stereo file: the device gets the mix (the
        analysis' own: the float sum of the channels times 1/2) from the sample under the
        cursor to the end, exactly; the playhead follows the output clock."""
        x = self.signal(3.0, 2)
        path = self.wav("stereo.wav", x)
        w, stats, (px, py, pw, ph) = self.open([], path)
        EW.xdo("windowfocus", "--sync", w.wid)
        EW.xdo("mousemove", "--window", w.wid, px + pw // 3, py + ph // 2)
        time.sleep(0.3)
        w.key("p")
        mix = (x[:, 0] + x[:, 1]) * np.float32(0.5)
        # the start is the window's to say (stats): about a third of the way
        self.wait_played(w, self.out_default, 4 * int(0.5 * mix.size))
        s = self.quit_stats(w, stats)
        play = s["play"]
        self.assertEqual(play["starts"], 1, s)
        self.assertEqual(play["error"], "")
        first = play["first"]
        self.assertLess(abs(first - mix.size / 3), 0.02 * mix.size, play)
        self.assert_played(self.out_default, mix[first:])
        if play["clock"]:  # null plays at once: a frame drawn meanwhile is luck
            self.check_clock(play, RATE)

    def test_play_selection_channel(self):
        """shift+drag selects frames [a, b); p plays exactly their audio, samples
        [a*hop, (b-1)*hop + N), of the channel --channel 1 shows, to --output-device."""
        x = self.signal(3.0, 2)
        path = self.wav("sel.wav", x)
        w, stats, (px, py, pw, ph) = self.open(["--channel", "1", "--output-device", "spectro_out"], path)
        EW.xdo("windowfocus", "--sync", w.wid)
        EW.xdo("mousemove", "--window", w.wid, px + int(pw * 0.3), py + ph // 2)
        time.sleep(0.2)
        EW.xdo("keydown", "shift")
        time.sleep(0.2)
        EW.xdo("mousedown", "1")
        time.sleep(0.2)
        for f in (0.4, 0.5, 0.6):
            EW.xdo("mousemove", "--window", w.wid, px + int(pw * f), py + ph // 2)
            time.sleep(0.15)
        EW.xdo("mouseup", "1")
        time.sleep(0.2)
        EW.xdo("keyup", "shift")
        time.sleep(0.3)
        w.key("space")  # the analysis is complete: space plays
        time.sleep(0.3)
        # the selection's frames, as the window has them
        self.wait_played(w, self.out_named, 4 * int(0.2 * x.shape[0]))
        s = self.quit_stats(w, stats)
        sel, play = s["selection"], s["play"]
        self.assertIsNotNone(sel, s)
        a, b = sel["frames"]
        self.assertEqual(play["from_selection"], 1, play)
        self.assertEqual(play["channel"], 1, play)
        self.assertEqual((play["first"], play["end"]), (a * HOP, (b - 1) * HOP + N), (sel, play))
        self.assert_played(self.out_named, x[a * HOP:(b - 1) * HOP + N, 1])
        self.assertFalse(os.path.exists(self.out_default) and os.path.getsize(self.out_default) > 0,
                         "the default output played too")
        if play["clock"]:  # null plays at once: a frame drawn meanwhile is luck
            self.check_clock(play, RATE)

    @unittest.skipUnless(os.environ.get("SPECTRO_TEST_CLOCK_PCM"), "no real-time ALSA test plugin "
                         "(SPECTRO_TEST_CLOCK_PCM: built from tests/alsa/clock_pcm.c)")
    def test_playhead_follows_output_clock(self):
        """Through a device that plays in real time: every frame drawn while playing, the
        playhead is the output clock's position (never past what was written), it advances
        rate samples per second of stream time, and what was played so far is the mix from
        the playhead's start. Zoomed in, the view pages with it (it stays in view)."""
        paced = os.path.join(self.tmp, "paced.raw")
        with open(self.conf, "a") as f:
            f.write(ASOUND_PACED.format(paced=paced, lib=os.environ["SPECTRO_TEST_CLOCK_PCM"]))
        x = self.signal(4.0, 1)
        path = self.wav("paced.wav", x)
        w, stats, (px, py, pw, ph) = self.open(["--output-device", "spectro_paced"], path)
        EW.xdo("windowfocus", "--sync", w.wid)
        EW.xdo("mousemove", "--window", w.wid, px + pw // 20, py + ph // 2)
        time.sleep(0.2)
        w.wheel(True, 6)  # zoomed in around the cursor: about a quarter of the file in view
        EW.xdo("mousemove", "--window", w.wid, px + pw // 20, py + ph // 2)
        time.sleep(0.3)
        w.key("p")
        # 2.5 s of playback from the device's first bytes (a sanitized build's start can
        # take a good part of a second): the window draws a frame per change while playing,
        # as often as any change (view.c loop_timeout), not one per idle wait of 0.1 s
        deadline = time.time() + 20
        while not (os.path.exists(paced) and os.path.getsize(paced) > 0):
            self.assertLess(time.time(), deadline, "nothing played: " + w.stderr())
            time.sleep(0.05)
        time.sleep(2.5)
        s = self.quit_stats(w, stats)
        play = s["play"]
        self.assertEqual(play["starts"], 1, play)
        clock = np.array(play["clock"], float)
        self.assertGreater(len(clock), 20, "few frames drawn in 2.5 s of playing")
        self.check_clock(play, RATE)
        t, pos = clock[:, 0], clock[:, 4]
        k = np.flatnonzero((pos > 0) & (pos < clock[:, 3]))
        self.assertGreater(k.size, 10)
        # rate samples per second of stream time, from one frame to the next: pos - rate*t
        # is the device's buf_idx - rate*dac, constant while it plays on; where it broke
        # off (the callback late on a loaded machine: an underrun) it steps back once, so
        # the pace is the median over the frames, not the ends' (check_clock holds the
        # position to the clock in every frame, breaks or not)
        dt, dpos = np.diff(t[k]), np.diff(pos[k])
        pace = np.median(dpos[dt > 0] / (dt[dt > 0] * RATE))
        self.assertLess(abs(pace - 1), 0.05, "the playhead moved at %.3f x the rate" % pace)
        self.assertTrue(np.all(np.diff(pos[k]) >= -1e-6), "the playhead went back")
        # it went past the first view (a quarter of the file) and the view followed it
        self.assertGreater(pos.max(), 0.3 * x.shape[0])
        head = np.array(play["head_in_view"], float)
        # (a frame may catch it just past the edge, between the loop's paging and its drawing)
        late = head[len(head) // 2:]
        self.assertGreater(late.mean(), 0.9, "the view did not follow the playhead: %s" % late)
        self.assertFalse(np.any((late[1:] == 0) & (late[:-1] == 0)), "out of view for two frames: %s" % late)
        got = np.fromfile(paced, dtype="<f4")
        nz = np.flatnonzero(got)
        first = play["first"]
        got = got[nz[0]:]
        want = x[first:first + got.size, 0]
        bad = np.flatnonzero(got != want[:got.size])
        self.assertEqual(bad.size, 0, "the samples played differ from %s of %d: %s vs %s" % (
            bad[:1], got.size, got[bad[:4]] if bad.size else "", want[bad[:4]] if bad.size else ""))

    def test_no_output_device(self):
        """An ALSA configuration without an output, or --output-device naming none: p puts
        "no audio output" in the toast and the status line; the window keeps working (its
        keys still act) and q exits 0."""
        x = self.signal(1.0, 1)
        path = self.wav("mono.wav", x)
        for conf, args in ((ASOUND_NONE, []), (None, ["--output-device", "no-such-device"])):
            if conf:
                with open(self.conf, "w") as f:
                    f.write(conf)
            else:
                with open(self.conf, "w") as f:
                    f.write(ASOUND.format(default=self.out_default, named=self.out_named))
            w, stats, (px, py, pw, ph) = self.open(args, path)
            EW.xdo("mousemove", "--window", w.wid, px + pw // 2, py + ph // 2)
            w.key("p")
            time.sleep(0.5)
            w.key("plus")
            time.sleep(0.3)
            self.assertTrue(w.alive(), w.stderr())
            s = self.quit_stats(w, stats)
            self.assertIn("no audio output", s["status"], s["status"])
            self.assertEqual(s["play"]["starts"], 0)
            self.assertNotEqual(s["play"]["error"], "")
            self.assertIn("gain +3 dB", s["status"])
            self.assertEqual(w.stderr(), "")
        for out in (self.out_default, self.out_named):
            self.assertFalse(os.path.exists(out) and os.path.getsize(out) > 0, "a device played")

    def test_list_devices_direction(self):
        """--list-devices lists the configuration's PCMs with their direction."""
        p = E.run(["--list-devices"], timeout=30, env=dict(os.environ, **self.env))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        lines = p.stdout.splitlines()
        self.assertIn("dir", lines[0].split())
        named = [ln for ln in lines if "spectro_out" in ln]
        self.assertEqual(len(named), 1, p.stdout)
        self.assertIn(named[0].split()[-3] if "(default" in named[0] else named[0].split()[-3],
                      ("in+out", "out"), named[0])


if __name__ == "__main__":
    EW.main()  # under Xvfb, as e2e_window.py runs
