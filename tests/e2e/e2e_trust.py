#!/usr/bin/python3
"""Outputs and inputs to trust (issue 17): truncation in every container, finite levels for
huge samples, --peaks --channel all frame by frame, input errors before "no display", exit
codes of interrupted runs, a closed or full standard output, one-line MP3 errors."""
import os
import shutil
import signal
import subprocess
import time
import unittest

import numpy as np

import spectro_e2e as E


def noisy_sine(rate, secs, seed=17):
    rng = np.random.default_rng(seed)
    t = np.arange(int(rate * secs)) / rate
    return (0.3 * np.sin(2 * np.pi * 1000.0 * t) + 0.05 * rng.standard_normal(t.size)).astype("<f4")


def halve(path):
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2])


class Truncation(unittest.TestCase):
    """sox writes each container from a float WAV; the halved copy must warn, say
    "truncated": true in the sidecar and exit 0; the whole one must not."""
    FORMATS = ["aiff", "au", "w64", "caf", "ogg", "flac", "wav"]

    @unittest.skipIf(shutil.which("sox") is None, "sox is needed to write the formats")
    def test_halved_files(self):
        with E.TempDir() as d:
            src = os.path.join(d, "src.wav")
            E.write_float_wav(src, noisy_sine(48000, 10), 48000)
            for fmt in self.FORMATS:
                with self.subTest(format=fmt):
                    path = os.path.join(d, "t." + fmt)
                    enc = ["-b", "16"] if fmt not in ("ogg",) else []
                    subprocess.run(["sox", "-D", "-V1", src] + enc + [path], check=True)
                    out = os.path.join(d, "o.npy")
                    p = E.run([path, "-o", out])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(E.stderr_lines(p), [], "whole %s: %s" % (fmt, p.stderr))
                    whole = E.load_npy(self, out).shape[0]
                    self.assertFalse(E.load_json(self, out + ".json")["truncated"], fmt)
                    halve(path)
                    p = E.run([path, "-o", out])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    lines = E.stderr_lines(p)
                    self.assertEqual(len(lines), 1, p.stderr)
                    self.assertTrue(lines[0].startswith("spectro: warning: " + path), lines[0])
                    self.assertIn("truncated", lines[0])
                    self.assertTrue(E.load_json(self, out + ".json")["truncated"], fmt)
                    got = E.load_npy(self, out).shape[0]
                    self.assertTrue(0 < got < whole, "%s: %d frames of %d" % (fmt, got, whole))

    def test_assets_not_flagged(self):
        for name in sorted(os.listdir(E.ASSETS)):
            if not name.endswith((".wav", ".flac", ".ogg")) or name in (
                    "truncated_48k_s16.wav", "not_audio.wav", "empty.wav"):
                continue
            with self.subTest(asset=name):
                p = E.run([E.asset(name), "--peaks"])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertNotIn("truncated", p.stderr)


class HugeSamples(unittest.TestCase):
    """Finite samples near the top of float32: finite levels, no NaN peaks (item 3)."""

    def test_huge_float_samples(self):
        with E.TempDir() as d:
            rate = 48000
            t = np.arange(rate) / rate
            for amp in (1e30, 3e38):
                with self.subTest(amp=amp):
                    path = os.path.join(d, "huge.wav")
                    x = amp * np.sin(2 * np.pi * 1125.0 * t)  # bin 96 of 4096: no scalloping
                    E.write_float_wav(path, x, rate)
                    a, meta, p = E.dump(self, [path, "-b", "cpu"])
                    self.assertTrue(np.isfinite(a).all(), "non-finite levels for %g" % amp)
                    want = 20 * np.log10(amp)
                    peak = a.max(axis=1)
                    self.assertLess(np.abs(peak - want).max(), 0.1, (peak[:3], want))
                    p = E.run([path, "--peaks", "-b", "cpu"])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    rows = np.array([[float(v) for v in l.split("\t")] for l in p.stdout.splitlines()])
                    self.assertTrue(np.isfinite(rows).all(), p.stdout[:200])
                    self.assertLess(np.abs(rows[:, 1] - 1125.0).max(), 0.1)
                    self.assertLess(np.abs(rows[:, 2] - want).max(), 0.1)


class PeaksOrder(unittest.TestCase):
    def test_channel_all_frame_by_frame(self):
        """Lines go frame by frame, channels in order: times never go back (item 9)."""
        path = E.asset("eight_channels_48k_s16.wav")
        p = E.run([path, "--peaks", "--channel", "all", "-n", "1024"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [l.split("\t") for l in p.stdout.splitlines()]
        chans = [int(r[0]) for r in rows]
        times = [float(r[1]) for r in rows]
        self.assertEqual(len(rows) % 8, 0)
        self.assertEqual(chans, list(range(8)) * (len(rows) // 8))
        self.assertEqual(times, sorted(times), "times go backwards")
        for f in range(len(rows) // 8):
            self.assertEqual(len(set(times[8 * f:8 * f + 8])), 1)


class ErrorOrder(unittest.TestCase):
    def test_input_errors_before_no_display(self):
        """No display and a bad input: the input's error (exit 2, naming it) comes first."""
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        env["SDL_VIDEODRIVER"] = "x11"
        with E.TempDir() as d:
            for bad in (os.path.join(d, "nosuch.wav"), d, E.asset("not_audio.wav"),
                        E.asset("empty.wav")):
                with self.subTest(input=bad):
                    p = E.run([bad], env=env)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    lines = E.stderr_lines(p)
                    self.assertEqual(len(lines), 1, p.stderr)
                    self.assertIn(bad, lines[0])
                    self.assertNotIn("display", lines[0])


class ExitCodes(unittest.TestCase):
    def interrupt(self, sig, args, out="o.npy"):
        with E.TempDir() as d:
            out = os.path.join(d, out)
            proc = subprocess.Popen([E.BIN] + args + ["-o", out], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1.0)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=30)
            return proc.returncode, err, E.listing(d)

    def test_interrupted_file_run(self):
        """SIGINT: 130, SIGTERM: 143; one line naming the input; nothing left behind."""
        inp = "synth:duration=100000"
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            with self.subTest(signal=sig):
                rc, err, left = self.interrupt(sig, [inp, "-q"])
                self.assertEqual(rc, code, err)
                lines = [l for l in err.splitlines() if l and not l.startswith("spectro: note:")]
                self.assertEqual(lines, ["spectro: %s: interrupted" % inp])
                self.assertEqual(left, set())

    def test_interrupted_batch(self):
        """A batch stopped by SIGTERM exits 143, by SIGINT 130 (it said 130 for both)."""
        inputs = ["synth:duration=100000", "synth:duration=100001"]
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            with self.subTest(signal=sig):
                rc, err, left = self.interrupt(sig, inputs + ["-q"], out="{stem}.npy")
                self.assertEqual(rc, code, err)
                self.assertIn("spectro: %s: interrupted" % inputs[0], err.splitlines())
                self.assertEqual(left, set())

    @unittest.skipUnless(os.environ.get("SPECTRO_TEST_RENDER", "1") != "0", "no renderer")
    def test_signal_within_a_long_read(self):
        """-n 1048576 --hop 1: one read from the ring holds up to a million frames, hours of
        FFTs; the stop was looked at only between reads, so a signal went unanswered for as
        long. Now between FFT calls: 130/143 within seconds, no picture (half-written or
        other) left. One FFT thread, so the test takes one core."""
        with E.TempDir() as d:
            wav = os.path.join(d, "long.wav")
            E.write_float_wav(wav, noisy_sine(48000, 60), 48000)
            env = dict(os.environ, SPECTRO_CPU_THREADS="1")
            for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
                with self.subTest(signal=sig):
                    png = os.path.join(d, "x.png")
                    proc = subprocess.Popen([E.BIN, wav, "-n", "1048576", "--hop", "1", "-b", "cpu", "-q",
                                             "--png", png], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True, env=env)
                    time.sleep(2.0)  # well into the frames: the framer fills in a few ms
                    proc.send_signal(sig)
                    try:
                        _, err = proc.communicate(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.communicate()
                        self.fail("still running 10 s after the signal")
                    self.assertEqual(proc.returncode, code, err)
                    self.assertEqual(err.splitlines(), ["spectro: %s: interrupted" % wav])
                    self.assertEqual(E.listing(d), {"long.wav"})

    def test_interrupted_live_run_keeps_outputs(self):
        """--realtime runs through the live path: a signal ends it normally (outputs
        written) and the exit code still says it was interrupted."""
        rc, err, left = self.interrupt(signal.SIGINT, ["synth:duration=100000", "--realtime", "-q"])
        self.assertEqual(rc, 130, err)
        self.assertEqual(left, {"o.npy", "o.npy.json"})

    def test_closed_stdout_is_quiet(self):
        """`spectro --peaks ... | head -1`: exit 0, nothing on stderr, no file left."""
        for extra in ([], ["--realtime"]):
            with self.subTest(args=extra), E.TempDir() as d:
                out = os.path.join(d, "o.npy")
                cmd = "'%s' synth:duration=100000 --peaks -q -o '%s' %s | head -1; echo rc=${PIPESTATUS[0]}" % (
                    E.BIN, out, " ".join(extra))
                p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60)
                self.assertEqual(p.stderr, "")
                self.assertEqual(p.stdout.splitlines()[-1], "rc=0", p.stdout)
                self.assertEqual(len(p.stdout.splitlines()), 2)

    def test_batch_closed_stdout_is_quiet(self):
        """Several inputs into `| head`: the batch ends at the first file that finds the reader
        gone, quietly, exit 0, as one file does (it said "Broken pipe" for each file, analysed
        the rest and exited 1)."""
        inp = "synth:duration=60"
        with E.TempDir() as d:
            listing = os.path.join(d, "list")
            with open(listing, "w") as f:
                f.write((inp + "\n") * 3)
            for args, head in (([inp] * 3 + ["--peaks"], "-n 1"), (["--files-from", listing, "--peaks"], "-n 1"),
                               ([inp] * 2 + ["--tone"], "-c 10")):
                with self.subTest(args=args, head=head):
                    cmd = "'%s' %s -q | head %s; echo; echo rc=${PIPESTATUS[0]}" % (
                        E.BIN, " ".join("'%s'" % a for a in args), head)
                    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60)
                    self.assertEqual(p.stderr, "")
                    self.assertEqual(p.stdout.splitlines()[-1], "rc=0", p.stdout)

    @unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
    def test_batch_full_stdout_one_line(self):
        """A batch into a full device: the first file's one line, exit 1; the batch ends there
        (it said so for each file, and counted them)."""
        inp = "synth:duration=60"
        for kind, what in (("--peaks", "peaks"), ("--tone", "the tone analysis")):
            with self.subTest(kind=kind), open("/dev/full", "w") as full:
                p = subprocess.run([E.BIN, inp, inp, inp, kind, "-q"], stdout=full, stderr=subprocess.PIPE,
                                   text=True, timeout=60)
                self.assertEqual(p.returncode, 1)
                self.assertEqual(p.stderr.splitlines(),
                                 ["spectro: %s: writing %s to standard output failed: No space left on device"
                                  % (inp, what)])

    @unittest.skipIf("ASAN_OPTIONS" in os.environ or "TSAN_OPTIONS" in os.environ,
                     "sanitizers reserve more address space than the limit")
    def test_out_of_memory_names_the_input(self):
        import resource

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))
        with E.TempDir() as d:
            p = subprocess.run([E.BIN, "synth:duration=100", "-n", "4194304", "-q", "-o",
                                os.path.join(d, "o.npy")], capture_output=True, text=True,
                               timeout=60, preexec_fn=limit)
            self.assertEqual(p.returncode, 1, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertTrue(lines[0].startswith("spectro: synth:duration=100: "), lines[0])
            self.assertIn("out of memory", lines[0])
            self.assertEqual(E.listing(d), set())

    @unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
    def test_full_stdout_names_the_reason(self):
        with open("/dev/full", "w") as full:
            # long enough that a write fails mid-run, not only at the final flush
            p = subprocess.run([E.BIN, "synth:duration=60", "--peaks"], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        lines = [l for l in p.stderr.splitlines() if not l.startswith("spectro: note:")]
        self.assertEqual(lines, ["spectro: writing peaks to standard output failed: No space left on device"])

    @unittest.skipIf(shutil.which("sox") is None or
                     subprocess.run(["sox", "-h"], capture_output=True, text=True).stdout.find(" mp3 ") < 0,
                     "sox cannot write MP3")
    def test_mp3_errors_one_line(self):
        with E.TempDir() as d:
            src = os.path.join(d, "src.wav")
            E.write_float_wav(src, noisy_sine(48000, 10), 48000)
            mp3 = os.path.join(d, "a.mp3")
            subprocess.run(["sox", "-D", "-V1", src, mp3], check=True)
            with open(mp3, "rb") as f:
                data = f.read()
            cut = os.path.join(d, "cut.mp3")
            with open(cut, "wb") as f:
                f.write(data[:100])  # no whole MPEG frame
            p = E.run([cut, "--peaks"])
            self.assertEqual(p.returncode, 2, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn(cut, lines[0])
            self.assertIn("MP3", lines[0])
            self.assertNotIn("does not exist", lines[0])
            # a whole MP3 and a halved one: no libmpg123 chatter, at most our warning (sox
            # writes no Xing header: nothing promises a length, so a cut is not seen)
            for path, warn in ((mp3, 0), (cut, 1)):
                if path == cut:
                    with open(cut, "wb") as f:
                        f.write(data[:len(data) // 2])
                p = E.run([path, "--peaks"])
                self.assertEqual(p.returncode, 0, p.stderr)
                lines = E.stderr_lines(p)
                self.assertLessEqual(len(lines), warn, p.stderr)
                self.assertTrue(all(l.startswith("spectro: ") for l in lines), p.stderr)


class LongNames(unittest.TestCase):
    @unittest.skipUnless(os.environ.get("SPECTRO_TEST_RENDER", "1") != "0", "no renderer")
    def test_output_names_up_to_name_max(self):
        """Names of 248 .. 255 bytes work: the hidden temporary is cut to fit NAME_MAX
        (a --dump's sidecar adds ".json", so a dump name stays within 250)."""
        src = E.asset("two_tone_48k_s16.wav")
        with E.TempDir() as d:
            for length in (248, 251, 255):
                with self.subTest(png=length):
                    name = "p" * (length - 4) + ".png"
                    p = E.run([src, "--png", name], cwd=d)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(E.listing(d), {name})
                    os.remove(os.path.join(d, name))
            name = "d" * 246 + ".npy"
            a, meta, p = E.dump(self, [src], out_name=name, cwd=d)
            self.assertEqual(E.listing(d), {name, name + ".json"})


if __name__ == "__main__":
    E.main()
