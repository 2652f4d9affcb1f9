#!/usr/bin/python3
"""The live path of the real binary, without sound hardware.

- Microphone: PortAudio's real ALSA capture path, with ALSA's default capture device made
  the `file` plugin reading a 1 kHz sine from a file (tests/alsa/asound.conf, selected with
  ALSA_CONFIG_PATH). `spectro --duration 2 --peaks` must report 1000 Hz within 1 Hz, and
  no ALSA/JACK chatter may reach stderr. A device that stops delivering (the plugin reads a
  FIFO whose writer goes quiet) ends the run with one line and exit 1, keeping what was
  analysed.
- Busy microphone: a capture device that PortAudio lists but that another program takes
  before spectro opens it, an ALSA plugin answering EBUSY (tests/alsa/busy_pcm.c, with
  the busy.conf that CMake writes to the build tree and names in SPECTRO_TEST_BUSY_CONF):
  one line saying the device is busy, exit 1, nothing on stdout.
- --realtime: a file streamed at its own rate through the live path; with the consumer
  stalled by the test hook (SPECTRO_TEST_STALL=AT:FOR), samples are dropped and counted,
  and the analysis catches up: the frames after the stall show the sine again, and the
  dump keeps one row per frame time (floor rows where audio was skipped).
"""
import os
import re
import sys
import threading
import time
import unittest

import numpy as np

import spectro_e2e as E

HERE = os.path.dirname(os.path.abspath(__file__))
ASOUND = os.path.join(os.path.dirname(HERE), "alsa", "asound.conf")
# the busy plugin's configuration in the build tree; unset when CMake did not build the plugin
BUSY_CONF = os.environ.get("SPECTRO_TEST_BUSY_CONF", "")


class SineFeeder:
    """Writes a phase-continuous float32 sine into a FIFO, from phase 0 each time a reader
    opens it (ALSA opens the device more than once while PortAudio probes)."""

    def __init__(self, path, freq=1000.0, rate=48000, amp=0.5):
        self.path, self.stop = path, False
        t = np.arange(rate) / rate
        self.block = (amp * np.sin(2 * np.pi * freq * t)).astype("<f4").tobytes()
        os.mkfifo(path)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                fd = os.open(self.path, os.O_WRONLY)
            except OSError:
                return
            try:
                self.feed(fd)
            except OSError:
                pass
            finally:
                os.close(fd)

    def feed(self, fd):
        """What one reader gets: the sine until it closes its end (EPIPE)."""
        while not self.stop:
            os.write(fd, self.block)

    def close(self):
        self.stop = True
        try:  # unblock a writer waiting in open()
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        self.thread.join(timeout=5)


class StallingFeeder(SineFeeder):
    """Three seconds of sine a reader, then silence on an open FIFO: the capture blocks, as a
    device that stopped delivering. (One second was too little on a loaded machine: the
    capture takes it at once, and an analysis that starts late skips it all to stay live.)"""

    def __init__(self, path, stall_s):
        self.stall_s = stall_s
        super().__init__(path)

    def feed(self, fd):
        for _ in range(3):
            os.write(fd, self.block)
        t_end = time.monotonic() + self.stall_s
        while not self.stop and time.monotonic() < t_end:
            time.sleep(0.05)


def mic_env(fifo):
    env = dict(os.environ)
    env.update(ALSA_CONFIG_PATH=ASOUND, SPECTRO_TEST_SINE=fifo,
               JACK_DEFAULT_SERVER="spectro-test-no-server")
    return env


def run_realtime(wav, out, stall, *opts):
    """spectro --realtime -b cpu OPTS -o OUT WAV, the analysis stalled as SPECTRO_TEST_STALL
    says (AT:FOR seconds; None: no stall)."""
    env = dict(os.environ)
    if stall:
        env["SPECTRO_TEST_STALL"] = stall
    return E.run(["--realtime", "-b", "cpu"] + list(opts) + ["-o", out, wav], env=env)


class Live(unittest.TestCase):
    def test_microphone_peaks(self):
        with E.TempDir() as d:
            # a regular file, not a FIFO: the file plugin reads once per period and keeps
            # null's silence for what a read did not return, so a FIFO whose writer falls
            # behind on a loaded machine put gaps into the "recording". Without a clock the
            # plugin reads ahead as fast as the callbacks run: 60 s keep the end (silence
            # after it) far from the 2 s analysed even when the analysis is starved
            path = os.path.join(d, "sine.raw")
            t = np.arange(48000 * 60) / 48000.0
            with open(path, "wb") as f:
                f.write((0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype("<f4").tobytes())
            p = E.run(["--duration", "2", "--peaks", "--rate", "48000", "-b", "cpu"], env=mic_env(path))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertNotIn("ALSA lib", p.stderr)
            self.assertNotIn("jack", p.stderr.lower())
            rows = [l.split("\t") for l in p.stdout.splitlines()]
            # 2 s at 48 kHz, N 4096, hop 1024: 90 frame times (skipped ones print nothing).
            # The file plugin has no clock: all of it arrives at once, and a slow build
            # (sanitizers, a loaded machine) falls behind and skips ahead, as designed; then
            # the skip must be reported.
            if len(rows) <= 20:
                self.assertIn("dropped", p.stderr, "only %d frames and no drop reported" % len(rows))
            self.assertGreater(len(rows), 0, p.stderr)
            self.assertTrue(all(len(r) == 3 for r in rows))
            freqs = np.array([float(r[1]) for r in rows])
            times = np.array([float(r[0]) for r in rows])
            self.assertTrue((np.diff(times) > 0).all(), "frame times must increase")
            self.assertLess(times[-1], 2.0 + 1e-9)
            # When the analysis falls a ring behind (a loaded machine: the plugin has no
            # clock), the capture drops audio; no frame spans such a gap, so every frame
            # is the clean sine
            self.assertTrue((np.abs(freqs - 1000.0) < 1.0).all(), (freqs, p.stderr))

    @E.needs_hooks
    def test_microphone_gaps_placed(self):
        """The analysis stalled for 50 ms while the clockless capture runs on: the ring
        overflows and the device's audio is lost, here and wherever the machine falls behind.
        The capture is a chirp, 200 Hz + 12 Hz/s, so each frame's peak says where in the
        stream it is: no frame may span a gap, and the frame times must move on by exactly
        the audio lost."""
        rate, n, hop, secs = 48000, 4096, 1024, 240
        with E.TempDir() as d:
            path = os.path.join(d, "chirp.raw")
            with open(path, "wb") as f:
                for s0 in range(0, rate * secs, rate * 10):
                    t = np.arange(s0, s0 + rate * 10) / rate
                    f.write((0.5 * np.sin(2 * np.pi * (200.0 * t + 6.0 * t * t))).astype("<f4").tobytes())
            env = mic_env(path)
            env["SPECTRO_TEST_STALL"] = "0.5:0.05"
            p = E.run(["--duration", "270", "--peaks", "--rate", rate, "-b", "cpu"], timeout=120, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            m = re.search(r"(\d+) samples per channel dropped", p.stderr)
            self.assertIsNotNone(m, p.stderr)
            dropped = int(m.group(1))
            rows = np.array([[float(v) for v in l.split("\t")] for l in p.stdout.splitlines()])
            times, freqs = rows[:, 0], rows[:, 1]
            self.assertTrue((np.diff(times) > 0).all(), "frame times must increase")
            self.assertLess(times[-1], 270.0)
            # a frame's time is its centre: (f*hop + n/2) / rate
            index = times * rate / hop - n / 2 / hop
            self.assertLess(np.abs(index - np.round(index)).max(), 1e-3, "times on the hop grid")
            # frames wholly inside the file: the chirp at the frame's centre
            inside = times + n / 2 / rate < secs
            err = freqs[inside] - (200.0 + 12.0 * times[inside])
            bad = np.flatnonzero(np.abs(err) > 0.5)
            self.assertEqual(len(bad), 0, "frames off the chirp (spanning a gap or misplaced): t=%s err=%s; %s"
                             % (times[inside][bad][:5], err[bad][:5], p.stderr))
            # the stall's gap is there, and frames follow it
            steps = np.diff(np.round(index)).astype(np.int64)
            self.assertGreater(steps.max() * hop / rate, 0.5, "no gap of the stall's size")
            self.assertGreater(times[-1], times[np.argmax(steps)] + 1.0, "nothing analysed after the gap")
            # That each frame sits at its own time the chirp has shown; the reported count
            # must cover the skips: around a gap the frames it cuts short are lost too, at
            # most n + hop samples each time the analysis meets a gap, and one step may hold
            # a few (the ring skip after the stall keeps n samples, then meets the device's
            # gap). (The count may exceed the skips: the run can end inside a gap.)
            skipped = int((steps - 1).sum()) * hop
            gaps = int((steps > 1).sum())
            self.assertLessEqual(skipped, dropped + 3 * (n + hop) * gaps, p.stderr)

    def test_microphone_lost(self):
        with E.TempDir() as d:
            fifo = os.path.join(d, "sine.fifo")
            feeder = StallingFeeder(fifo, 3.0)
            try:
                p = E.run(["--duration", "30", "--peaks", "--rate", "48000", "-b", "cpu"], env=mic_env(fifo))
            finally:
                feeder.close()
            self.assertEqual(p.returncode, 1, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn("audio device lost", lines[0])
            rows = [l.split("\t") for l in p.stdout.splitlines()]
            self.assertGreater(len(rows), 0, "the audio before the loss is analysed")
            self.assertLess(abs(np.median([float(r[1]) for r in rows]) - 1000.0), 1.0, p.stdout[:300])

    def test_microphone_lost_keeps_outputs(self):
        """A lost device ends the run with exit 1, like Ctrl-C for the outputs: the .npy (and
        the picture) of what was analysed before the loss stay, complete and readable."""
        have_png = os.environ.get("SPECTRO_TEST_RENDER", "1") != "0"
        with E.TempDir() as d:
            fifo = os.path.join(d, "sine.fifo")
            out, png = os.path.join(d, "rec.npy"), os.path.join(d, "rec.png")
            feeder = StallingFeeder(fifo, 3.0)
            try:
                p = E.run(["--duration", "30", "--rate", "48000", "-b", "cpu", "-o", out]
                          + (["--png", png, "--size", "320x200"] if have_png else []), env=mic_env(fifo))
            finally:
                feeder.close()
            self.assertEqual(p.returncode, 1, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn("audio device lost", lines[0])
            a = E.load_npy(self, out)
            meta = E.load_json(self, out + ".json")
            self.assertEqual(meta["frames"], a.shape[0])
            self.assertGreater(a.shape[0], 0)
            # 1000 Hz at 48 kHz, N 4096: bin 85.3, in the rows that hold audio (a loaded machine
            # makes the analysis skip ahead: those frames are floor rows, -200 dB)
            heard = a[a.max(axis=1) > -199.0]
            self.assertGreater(heard.shape[0], 0)
            self.assertIn(int(np.median(np.argmax(heard, axis=1))), (85, 86))
            if have_png:
                with open(png, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertEqual(sorted(os.listdir(d)), sorted(["sine.fifo", "rec.npy", "rec.npy.json"]
                                                           + (["rec.png"] if have_png else [])))

    @unittest.skipUnless(BUSY_CONF, "the busy ALSA plugin was not built (no SPECTRO_TEST_BUSY_CONF: "
                         "needs alsa/pcm_external.h from libasound2-dev)")
    def test_microphone_busy(self):
        self.assertTrue(os.path.isfile(BUSY_CONF), "SPECTRO_TEST_BUSY_CONF=%s is missing" % BUSY_CONF)
        # free_opens: capture opens the plugin allows before it is busy. PortAudio opens the
        # device once to list it, then in Pa_IsFormatSupported (1: busy there), then in
        # Pa_OpenStream (2: busy only there); each busy open is retried for about 1 s.
        cases = [("busy at the format check", 1, []),
                 ("busy at the stream's open", 2, []),
                 ("--device default", 1, ["--device", "default"])]
        for what, free_opens, extra in cases:
            with self.subTest(what), E.TempDir() as d:
                log = os.path.join(d, "opens.log")
                env = dict(os.environ, ALSA_CONFIG_PATH=BUSY_CONF, SPECTRO_TEST_BUSY_LOG=log,
                           SPECTRO_TEST_FREE_OPENS=str(free_opens),
                           JACK_DEFAULT_SERVER="spectro-test-no-server")
                p = E.run(["--duration", "2", "--peaks", "-b", "cpu"] + extra, env=env)
                opens = []
                if os.path.exists(log):
                    with open(log) as f:
                        opens = f.read().splitlines()
                busy = [l for l in opens if l.endswith(": busy")]
                why = "stderr:\n%sthe plugin's opens: %s, then %d busy" % (
                    p.stderr, [l for l in opens if l not in busy] or "none", len(busy))
                self.assertEqual(p.returncode, 1, why)
                self.assertEqual(p.stdout, "")
                self.assertEqual(len(p.stderr.splitlines()), 1, why)
                self.assertRegex(p.stderr, r"^spectro: audio input default is busy\b", why)
                self.assertNotIn("ALSA lib", p.stderr)
                self.assertNotIn("jack", p.stderr.lower())
                # the EBUSY came from the plugin, after the device was listed
                self.assertTrue(busy and busy[0].endswith("capture open %d: busy" % (free_opens + 1)), why)

    def test_list_devices_quiet(self):
        with E.TempDir() as d:
            fifo = os.path.join(d, "sine.fifo")
            feeder = SineFeeder(fifo)
            try:
                p = E.run(["--list-devices"], timeout=30, env=mic_env(fifo))
            finally:
                feeder.close()
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr, "")
            self.assertIn("(default)", p.stdout)

    def test_no_alsa_config_is_one_clear_line(self):
        env = dict(os.environ, ALSA_CONFIG_PATH="/nonexistent/alsa.conf")
        p = E.run(["--duration", "1", "--peaks"], timeout=30, env=env)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
        self.assertTrue(p.stderr.startswith("spectro: "), p.stderr)

    @E.needs_hooks
    def test_verbose_counts_frames_analysed(self):
        """-v: the frames analysed, and those a skip-ahead passed over apart (it once counted
        the frame index reached, skips included)."""
        rate, secs = 48000, 3.0
        with E.TempDir() as d:
            wav = os.path.join(d, "sine.wav")
            t = np.arange(int(rate * secs)) / rate
            E.write_float_wav(wav, np.sin(2 * np.pi * 1125.0 * t).astype(np.float32), rate)
            env = dict(os.environ, SPECTRO_TEST_STALL="1.0:1.2")
            out = os.path.join(d, "o.npy")
            p = E.run(["-v", "--realtime", "-b", "cpu", "-o", out, wav], env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            meta = E.load_json(self, out + ".json")
            gap = int((np.load(out).max(axis=1) <= -200.0).sum())
            m = re.search(r"; (\d+) frames \((\d+) skipped\) in ", p.stderr)
            self.assertTrue(m, p.stderr)
            analysed, skipped = int(m.group(1)), int(m.group(2))
            self.assertEqual(analysed + skipped, meta["frames"])
            self.assertEqual(skipped, gap)

    @E.needs_hooks
    def test_realtime_stall_drops_and_catches_up(self):
        rate, secs, f0 = 48000, 3.0, 1125.0  # 1125 Hz = bin 96 of N 4096
        with E.TempDir() as d:
            wav = os.path.join(d, "sine.wav")
            t = np.arange(int(rate * secs)) / rate
            E.write_float_wav(wav, np.sin(2 * np.pi * f0 * t).astype(np.float32), rate)
            env = dict(os.environ, SPECTRO_TEST_STALL="1.0:1.2")
            out = os.path.join(d, "o.npy")
            p = E.run(["--realtime", "-b", "cpu", "-o", out, wav], env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("dropped", p.stderr)
            meta = E.load_json(self, out + ".json")
            a = np.load(out)
            self.assertGreater(meta["dropped_samples"], rate * 0.3)
            # one row per frame time, as for a file analysed without loss
            self.assertEqual(a.shape, (meta["frames"], 2049))
            self.assertEqual(meta["frames"], E.frame_count(len(t), 4096, 1024))
            live = a[:, 96] > -1.0
            gap = a.max(axis=1) <= -200.0
            self.assertTrue(gap.any(), "the stall left no gap")
            last_gap = np.nonzero(gap)[0].max()
            # caught up: the frames after the gap show the sine at 0 dBFS again
            self.assertTrue(live[last_gap + 1:].all())
            self.assertGreater(len(live) - last_gap - 1, 20)
            self.assertTrue(live[:30].all(), "frames before the stall")

    @E.needs_hooks
    def test_realtime_stall_keeps_channels_and_times(self):
        """--realtime, 3 channels, the analysis stalled for 2 s (longer than the ring): the
        reader drops whole frames only, so the channels stay apart (channel 0 once became
        channel 1), and what it dropped moves the frame times on, so a change in the
        signal shows at its time (it once showed a second early)."""
        rate, secs, switch = 8000, 5.0, 3.0
        n, hop = 256, 64
        with E.TempDir() as d:
            wav = os.path.join(d, "three.wav")
            t = np.arange(int(rate * secs)) / rate
            c0 = np.where(t < switch, np.sin(2 * np.pi * 1000.0 * t), np.sin(2 * np.pi * 2000.0 * t))
            x = np.stack([c0, np.sin(2 * np.pi * 3000.0 * t), np.sin(2 * np.pi * 500.0 * t)], axis=1)
            E.write_float_wav(wav, (0.5 * x).astype(np.float32), rate)
            out = os.path.join(d, "o.npy")
            p = run_realtime(wav, out, "0.5:2", "-n", n, "--hop", hop, "--channel", "all")
            self.assertEqual(p.returncode, 0, p.stderr)
            meta = E.load_json(self, out + ".json")
            a = np.load(out)  # (channels, frames, bins)
            self.assertGreater(meta["dropped_samples"], rate * 0.5, meta)
            self.assertEqual(a.shape, (3, E.frame_count(len(t), n, hop), n // 2 + 1))
            bin_hz = rate / n
            times = (np.arange(a.shape[1]) * hop + n / 2) / rate
            rows = a.max(axis=2) > -200.0  # frames analysed (not the floor rows of a skip)
            self.assertGreater(rows.sum(axis=1).min(), 100)
            peak = a.argmax(axis=2) * bin_hz
            for c, hz in ((1, 3000.0), (2, 500.0)):
                self.assertTrue((np.abs(peak[c][rows[c]] - hz) <= bin_hz).all(),
                                "channel %d: peaks %s" % (c, np.unique(peak[c][rows[c]])))
            two = rows[0] & (np.abs(peak[0] - 2000.0) <= bin_hz)
            self.assertTrue(two.any(), "the change to 2 kHz never shows")
            first = times[np.nonzero(two)[0][0]]
            # the first frame holding enough 2 kHz to peak there starts before the switch
            self.assertLess(abs(first - switch), 1.5 * n / rate, "2 kHz first at %.3f s" % first)

    @E.needs_hooks
    def test_realtime_duration_with_a_skip(self):
        """--realtime --duration 1 with the analysis stalled across the end: the skip
        ahead stops at the duration; no frame (and no floor row) lies beyond it."""
        rate, n, hop = 8000, 256, 64
        with E.TempDir() as d:
            wav = os.path.join(d, "long.wav")
            t = np.arange(rate * 3) / rate
            E.write_float_wav(wav, (0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype(np.float32), rate)
            out = os.path.join(d, "r.npy")
            p = run_realtime(wav, out, "0.8:1.2", "-n", n, "--hop", hop, "--duration", 1)
            self.assertEqual(p.returncode, 0, p.stderr)
            a = np.load(out)
            self.assertLessEqual(a.shape[0], E.frame_count(rate, n, hop), a.shape)
            self.assertGreater(a.shape[0], 0)

    def test_realtime_huge_hop(self):
        """--realtime with a hop far beyond the file: one frame, not a buffer of 16 hops
        (that asked for terabytes and failed with 'out of memory')."""
        with E.TempDir() as d:
            out = os.path.join(d, "h.npy")
            p = run_realtime(E.asset("short_3000_samples_48k_f32.wav"), out, None, "-n", 256, "--hop", 1 << 40)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(np.load(out).shape, (1, 129))


if __name__ == "__main__":
    E.main()
