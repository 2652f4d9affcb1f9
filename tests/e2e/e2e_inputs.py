#!/usr/bin/python3
"""Inputs: time ranges, standard input and pipes, FFmpeg's formats.

    python3 tests/e2e/e2e_inputs.py SPECTRO_BINARY ASSETS_DIR [unittest args]

- Ranges: a --start of k hops gives exactly rows k.. of the whole file's dump (bit for bit;
  WAV 16-bit, float WAV, FLAC), frame times stay absolute (sidecar, CSV, --peaks), --end and
  --duration bound it, times read as seconds or [h:]mm:ss[.fff]; past the end: exit 2.
- Pipes: WAV, AU and raw samples piped through `cat` give the .npy bytes of the file's
  run; a FIFO fed at real time by a writer here is followed as it comes; memory does not
  grow with the stream.
- FFmpeg: M4A (AAC, ALAC), Opus in MKV and a video with two audio streams, made here by
  ffmpeg, give the spectra of ffmpeg's own decode (`ffmpeg -map 0:a:K -f f32le -` piped
  back in as raw samples) byte for byte; without FFmpeg in the build, one line saying so.
"""
import json
import os
import shutil
import struct
import subprocess
import threading
import time
import unittest

import numpy as np

import spectro_e2e as E

N, HOP = 1024, 256


def write_pcm16_wav(path, x, rate):
    x = np.asarray(x)
    if x.ndim == 1:
        x = x[:, None]
    frames, ch = x.shape
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype("<i2")
    fmt = struct.pack("<HHIIHH", 1, ch, rate, rate * 2 * ch, 2 * ch, 16)
    data = pcm.tobytes()
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks)


def signal(seconds, rate, ch, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    cols = [0.4 * np.sin(2 * np.pi * rng.uniform(200, rate / 3) * t) + 0.05 * rng.standard_normal(len(t))
            for _ in range(ch)]
    return np.stack(cols, axis=1).astype(np.float32)


def run_piped(feeder, args, cwd, timeout=60):
    """feeder (a command list) | spectro ARGS, in cwd; returns spectro's CompletedProcess."""
    feed = subprocess.Popen(feeder, stdout=subprocess.PIPE, cwd=cwd)
    try:
        p = subprocess.run([E.BIN] + [str(a) for a in args], stdin=feed.stdout, capture_output=True,
                           text=True, timeout=timeout, cwd=cwd)
    finally:
        feed.stdout.close()
        feed.wait()
    return p


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def assert_one_error_line(tc, p, want_code=2, names=()):
    tc.assertEqual(p.returncode, want_code, p.stderr)
    lines = p.stderr.splitlines()
    tc.assertEqual(len(lines), 1, p.stderr)
    tc.assertTrue(lines[0].startswith("spectro: ") and not lines[0].startswith("spectro: warning"), lines[0])
    for n in names:
        tc.assertIn(n, lines[0])
    return lines[0]


class Ranges(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = E.TempDir().__enter__()
        cls.rate = 48000
        x = signal(3.0, cls.rate, 2, 7)
        cls.files = {}
        cls.files["wav16"] = os.path.join(cls.dir, "s16.wav")
        write_pcm16_wav(cls.files["wav16"], x, cls.rate)
        cls.files["float"] = os.path.join(cls.dir, "f32.wav")
        E.write_float_wav(cls.files["float"], x, cls.rate)
        if shutil.which("sox"):
            cls.files["flac"] = os.path.join(cls.dir, "s24.flac")
            subprocess.run(["sox", cls.files["float"], "-b", "24", cls.files["flac"]], check=True)
        cls.whole = {}
        for name, path in cls.files.items():
            cls.whole[name] = cls.dump(path, [], "whole-%s.npy" % name)[0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def dump(cls, path, extra, out):
        out = os.path.join(cls.dir, out)
        p = E.run([path, "-b", "cpu", "-n", N, "--hop", HOP, "-o", out] + list(extra))
        assert p.returncode == 0, p.stderr
        with open(out + ".json") as f:
            meta = json.load(f)
        if out.endswith(".npy"):
            return np.load(out), meta
        with open(out) as f:
            return f.read(), meta

    def test_start_on_a_hop_equals_the_whole_files_rows(self):
        if "flac" not in self.files:
            self.skipTest("sox is needed to make the FLAC file")
        rng = np.random.default_rng(11)
        for name, path in self.files.items():
            whole = self.whole[name]
            for k in [1, 7] + list(rng.integers(2, len(whole) - 1, 2)):
                k = int(k)
                start = k * HOP / self.rate
                with self.subTest(fmt=name, k=k):
                    r, meta = self.dump(path, ["--start", repr(start)], "r.npy")
                    self.assertEqual(r.shape, (len(whole) - k, N // 2 + 1))
                    self.assertTrue(np.array_equal(r.view(np.uint32), whole[k:].view(np.uint32)),
                                    "rows differ from the whole file's")
                    self.assertAlmostEqual(meta["start_s"], start, delta=1e-12)
                    self.assertAlmostEqual(meta["time_first_s"], (k * HOP + N / 2) / self.rate, delta=1e-12)
                    self.assertEqual(meta["decoder"], "libsndfile")

    def test_end_and_duration_bound_the_range(self):
        whole = self.whole["float"]
        k, m = 10, 25  # rows k .. k+m-1: samples [k*hop, (k+m-1)*hop + N)
        start = k * HOP / self.rate
        end_s = (k * HOP + (m - 1) * HOP + N) / self.rate
        for extra in (["--end", repr(end_s)], ["--duration", repr(end_s - start)]):
            with self.subTest(extra=extra):
                r, meta = self.dump(self.files["float"], ["--start", repr(start)] + extra, "e.npy")
                self.assertEqual(len(r), m)
                self.assertTrue(np.array_equal(r, whole[k:k + m]))
                self.assertEqual(meta["frames"], m)
        # the same range as [h:]mm:ss.fff: 1.5 s .. 2.75 s
        a, _ = self.dump(self.files["float"], ["--start", "1.5", "--end", "2.75"], "a.npy")
        b, _ = self.dump(self.files["float"], ["--start", "0:01.5", "--end", "0:00:02.750"], "b.npy")
        self.assertTrue(np.array_equal(a, b))
        self.assertEqual(len(a), (int(1.25 * self.rate) - N) // HOP + 1)

    def test_times_stay_absolute_in_csv_and_peaks(self):
        k = 40
        start = k * HOP / self.rate
        t0 = (k * HOP + N / 2) / self.rate
        csv, _ = self.dump(self.files["wav16"], ["--start", repr(start), "--duration", "0.5"], "c.csv")
        first = csv.splitlines()[1].split(",")[0]
        self.assertAlmostEqual(float(first), t0, delta=1e-6)
        p = E.run([self.files["wav16"], "-b", "cpu", "-n", N, "--hop", HOP, "--peaks", "--start", repr(start),
                   "--duration", "0.2"])
        self.assertEqual(p.returncode, 0, p.stderr)
        times = [float(l.split("\t")[0]) for l in p.stdout.splitlines()]
        self.assertAlmostEqual(times[0], t0, delta=1e-6)
        self.assertAlmostEqual(times[1] - times[0], HOP / self.rate, delta=1e-6)

    def test_past_the_end_and_bad_usage(self):
        path = self.files["wav16"]
        for args, names in [(["--start", "10"], ["--start", "past the end", "s16.wav"]),
                            (["--start", "0:03"], ["--start", "past the end"]),
                            (["--start", "1", "--end", "10"], ["--end", "past the end"]),
                            (["--end", "3", "--duration", "1"], ["--end", "--duration"]),
                            (["--start", "2", "--end", "1"], ["--end"]),
                            (["--start", "1:75"], ["--start"]),
                            (["--start", "abc"], ["--start"])]:
            with self.subTest(args=args), E.TempDir() as d:
                p = E.run([path, "-o", "out.npy"] + args, cwd=d)
                assert_one_error_line(self, p, 2, names)
                self.assertEqual(E.listing(d), set())
        # the microphone has no time range
        p = E.run(["--start", "1", "--peaks"])
        assert_one_error_line(self, p, 2, ["--start", "microphone"])
        # a pipe that ends before the start
        with E.TempDir() as d:
            p = run_piped(["cat", path], ["-", "--start", "5", "-o", "out.npy"], d)
            assert_one_error_line(self, p, 2, ["standard input", "past the end"])
            self.assertEqual(E.listing(d), set())


class Pipes(unittest.TestCase):
    def test_cat_gives_the_files_bytes(self):
        with E.TempDir() as d:
            x = signal(2.0, 44100, 2, 3)
            files = {"s16.wav": [], "f32.wav": []}
            write_pcm16_wav(os.path.join(d, "s16.wav"), x, 44100)
            E.write_float_wav(os.path.join(d, "f32.wav"), x, 44100)
            x.astype("<f4").tofile(os.path.join(d, "f32.raw"))
            files["f32.raw"] = ["--raw-format", "f32le,44100,2"]
            (np.round(x * 32767).astype("<i2")).tofile(os.path.join(d, "s16.raw"))
            files["s16.raw"] = ["--raw-format", "s16le,44100,2"]
            if shutil.which("sox"):
                subprocess.run(["sox", os.path.join(d, "s16.wav"), os.path.join(d, "s16.au")], check=True)
                files["s16.au"] = []
            for name, extra in files.items():
                for channel in ("mix", "all"):
                    with self.subTest(file=name, channel=channel):
                        common = ["-b", "cpu", "-n", 2048, "-c", channel] + extra
                        p = E.run([name, "-o", "file.npy"] + common, cwd=d)
                        self.assertEqual(p.returncode, 0, p.stderr)
                        q = run_piped(["cat", name], ["-", "-o", "pipe.npy"] + common, d)
                        self.assertEqual(q.returncode, 0, q.stderr)
                        self.assertEqual(E.stderr_lines(q), [])
                        self.assertEqual(read_bytes(os.path.join(d, "file.npy")),
                                         read_bytes(os.path.join(d, "pipe.npy")))
                        a = json.load(open(os.path.join(d, "file.npy.json")))
                        b = json.load(open(os.path.join(d, "pipe.npy.json")))
                        self.assertEqual(b["source"], "standard input")
                        self.assertIs(b["truncated"], False)
                        for key in ("frames", "sample_rate", "source_channels", "time_first_s", "decoder"):
                            self.assertEqual(a[key], b[key], key)
            # standard input from a regular file: the file, seekable
            with open(os.path.join(d, "f32.wav"), "rb") as f:
                p = subprocess.run([E.BIN, "-", "-b", "cpu", "-n", "2048", "--start", "0.5", "-o", "redir.npy"],
                                   stdin=f, capture_output=True, text=True, cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            q = E.run(["f32.wav", "-b", "cpu", "-n", 2048, "--start", "0.5", "-o", "file.npy"], cwd=d)
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertEqual(read_bytes(os.path.join(d, "redir.npy")), read_bytes(os.path.join(d, "file.npy")))

    def test_start_on_a_pipe_reads_up_to_it(self):
        with E.TempDir() as d:
            E.write_float_wav(os.path.join(d, "x.wav"), signal(2.0, 48000, 1, 5), 48000)
            p = E.run(["x.wav", "-b", "cpu", "-n", N, "--hop", HOP, "-o", "whole.npy"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            k = 37
            q = run_piped(["cat", "x.wav"], ["-", "-b", "cpu", "-n", N, "--hop", HOP, "--start",
                                             repr(k * HOP / 48000), "-o", "r.npy"], d)
            self.assertEqual(q.returncode, 0, q.stderr)
            whole, r = np.load(os.path.join(d, "whole.npy")), np.load(os.path.join(d, "r.npy"))
            self.assertTrue(np.array_equal(r, whole[k:]))

    def test_fifo_at_real_time(self):
        """A writer here feeds 1 s of a 1 kHz sine (f32le) into a FIFO at real time, in 10 ms
        pieces; spectro follows it: every frame, the tone, and it takes the second."""
        rate, seconds = 48000, 1.0
        with E.TempDir() as d:
            fifo = os.path.join(d, "live.fifo")
            os.mkfifo(fifo)

            def writer():
                t0 = time.monotonic()
                block = rate // 100
                with open(fifo, "wb") as f:
                    for b in range(int(seconds * 100)):
                        t = (np.arange(block) + b * block) / rate
                        f.write((0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype("<f4").tobytes())
                        f.flush()
                        wait = t0 + (b + 1) / 100 - time.monotonic()
                        if wait > 0:
                            time.sleep(wait)
            th = threading.Thread(target=writer)
            th.start()
            t0 = time.monotonic()
            p = E.run([fifo, "--raw-format", "f32le,%d,1" % rate, "-b", "cpu", "--peaks"], timeout=30)
            took = time.monotonic() - t0
            th.join()
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(E.stderr_lines(p), [])
            lines = [l.split("\t") for l in p.stdout.splitlines()]
            self.assertEqual(len(lines), E.frame_count(int(seconds * rate), 4096, 1024))
            for t, f, db in lines:
                self.assertAlmostEqual(float(f), 1000.0, delta=1.0)
                self.assertAlmostEqual(float(db), -6.02, delta=0.3)  # as from a file
            self.assertGreater(took, 0.9 * seconds, "finished before the writer did")
            # (--realtime paces standard input too: e2e_ffmpeg_trust)

    def test_sigterm_with_a_quiet_writer(self):
        """A writer sends 1 s at once (not a whole number of reads) and goes quiet: all of it
        is analysed, and SIGTERM ends the run at once, normally, with the dump written."""
        with E.TempDir() as d:
            fifo = os.path.join(d, "quiet.fifo")
            os.mkfifo(fifo)
            done = threading.Event()

            def writer():
                with open(fifo, "wb") as f:
                    f.write((0.25 * np.ones(48000)).astype("<f4").tobytes())
                    f.flush()
                    done.wait(20)
            th = threading.Thread(target=writer)
            th.start()
            try:
                sp = subprocess.Popen([E.BIN, fifo, "--raw-format", "f32le,48000,1", "-b", "cpu", "-o", "q.npy"],
                                      cwd=d, stderr=subprocess.PIPE, text=True)
                time.sleep(1.5)
                t0 = time.monotonic()
                sp.send_signal(15)
                err = sp.communicate(timeout=10)[1]
                took = time.monotonic() - t0
            finally:
                done.set()
                th.join()
            # a live run ended by a signal keeps its outputs and exits 128 + 15 (docs/design.md)
            self.assertEqual(sp.returncode, 143, err)
            self.assertLess(took, 1.0, "the run waited for the writer")
            with open(os.path.join(d, "q.npy.json")) as f:
                self.assertEqual(json.load(f)["frames"], E.frame_count(48000, 4096, 1024))

    def test_memory_stays_constant(self):
        """Max RSS for 4 s and for 200 s of piped raw samples: the stream is not kept."""
        def rss(seconds):
            head = subprocess.Popen(["head", "-c", str(int(seconds * 48000 * 2)), "/dev/zero"],
                                    stdout=subprocess.PIPE)
            sp = subprocess.Popen([E.BIN, "-", "--raw-format", "s16le,48000,1", "-b", "cpu", "-n", "1024",
                                   "--hop", "1024", "--peaks"], stdin=head.stdout, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
            head.stdout.close()
            _, status, usage = os.wait4(sp.pid, 0)
            sp.returncode = os.waitstatus_to_exitcode(status)
            head.wait()
            self.assertEqual(sp.returncode, 0)
            return usage.ru_maxrss
        small, big = rss(4), rss(200)
        self.assertLess(big - small, 8 * 1024, "max RSS %d KB for 4 s, %d KB for 200 s" % (small, big))


def ffmpeg_in_build():
    p = E.run(["--version"])
    for line in p.stdout.splitlines():
        if line.strip().startswith("ffmpeg:"):
            return line.split(":", 1)[1].strip().startswith("yes")
    return False


def ffmpeg_raw(path, k, cwd):
    """ffmpeg's own decode of the k-th audio stream: (f32le bytes, rate, channels)."""
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:%d" % k, "-show_entries",
                            "stream=sample_rate,channels", "-of", "json", path], capture_output=True, text=True,
                           check=True, cwd=cwd)
    st = json.loads(probe.stdout)["streams"][0]
    return int(st["sample_rate"]), int(st["channels"])


class FFmpeg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.have_tool = shutil.which("ffmpeg") is not None and shutil.which("ffprobe") is not None
        cls.in_build = ffmpeg_in_build()
        cls.dir = E.TempDir().__enter__()
        if not cls.have_tool:
            return
        d = cls.dir
        E.write_float_wav(os.path.join(d, "src.wav"), signal(2.0, 44100, 2, 9), 44100)
        E.write_float_wav(os.path.join(d, "mono.wav"), signal(2.0, 48000, 1, 10), 48000)
        ff = ["ffmpeg", "-v", "error", "-y"]
        cls.made = {}
        for name, args in [("aac.m4a", ["-i", "src.wav", "-c:a", "aac", "-b:a", "128k"]),
                           ("alac.m4a", ["-i", "src.wav", "-c:a", "alac"]),
                           ("opus.mkv", ["-i", "mono.wav", "-c:a", "libopus", "-b:a", "96k"]),
                           ("two.mp4", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=2",
                                        "-i", "src.wav", "-i", "mono.wav", "-map", "0:v", "-map", "1:a",
                                        "-map", "2:a", "-c:v", "mpeg4", "-c:a", "aac", "-shortest"])]:
            p = subprocess.run(ff + args + [name], cwd=d, capture_output=True, text=True)
            cls.made[name] = p.returncode == 0 and os.path.getsize(os.path.join(d, name)) > 0
            if name == "opus.mkv" and not cls.made[name]:  # ffmpeg without libopus: its own encoder
                p = subprocess.run(ff + ["-i", "mono.wav", "-c:a", "opus", "-strict", "-2", name], cwd=d,
                                   capture_output=True, text=True)
                cls.made[name] = p.returncode == 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def need(self, name):
        if not self.have_tool:
            self.skipTest("ffmpeg is needed to make the test files: apt-get install ffmpeg")
        if not self.made.get(name):
            self.skipTest("this ffmpeg cannot make " + name)
        if not self.in_build:
            self.skipTest("built without FFmpeg (the error line is tested instead)")

    def compare_with_ffmpeg(self, name, k=0, extra=()):
        d = self.dir
        rate, ch = ffmpeg_raw(name, k, d)
        args = ["-b", "cpu", "-n", 2048, "-c", "all"] + list(extra)
        p = E.run([name, "-o", "ours.npy"] + args + (["--stream", k] if k else []), cwd=d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(E.stderr_lines(p), [])
        q = run_piped(["ffmpeg", "-v", "error", "-i", name, "-map", "0:a:%d" % k, "-f", "f32le", "-"],
                      ["--raw-format", "f32le,%d,%d" % (rate, ch), "-", "-o", "theirs.npy"] + args, d)
        self.assertEqual(q.returncode, 0, q.stderr)
        ours, theirs = read_bytes(os.path.join(d, "ours.npy")), read_bytes(os.path.join(d, "theirs.npy"))
        self.assertGreater(len(ours), 1000)
        self.assertEqual(ours, theirs, "%s stream %d: spectra differ from ffmpeg's decode" % (name, k))
        meta = json.load(open(os.path.join(d, "ours.npy.json")))
        self.assertEqual(meta["decoder"], "ffmpeg")
        self.assertEqual((meta["sample_rate"], meta["source_channels"]), (rate, ch))
        self.assertEqual(json.load(open(os.path.join(d, "theirs.npy.json")))["decoder"], "libsndfile")
        return meta

    def test_aac_m4a(self):
        self.need("aac.m4a")
        self.compare_with_ffmpeg("aac.m4a")

    def test_alac_m4a(self):
        self.need("alac.m4a")
        self.compare_with_ffmpeg("alac.m4a")

    def test_opus_mkv(self):
        self.need("opus.mkv")
        self.compare_with_ffmpeg("opus.mkv")

    def test_video_with_two_audio_streams(self):
        self.need("two.mp4")
        self.assertEqual(self.compare_with_ffmpeg("two.mp4", 0)["source_channels"], 2)
        self.assertEqual(self.compare_with_ffmpeg("two.mp4", 1)["source_channels"], 1)
        p = E.run(["two.mp4", "--stream", "2", "-o", "x.npy"], cwd=self.dir)
        assert_one_error_line(self, p, 2, ["--stream 2", "two.mp4", "2 audio streams"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x.npy")))

    def test_start_in_ffmpegs_files(self):
        """No seek for FFmpeg's files (-v: "read up to it"): decoding up to the start keeps every
        sample in place, so the dump equals the whole file's rows from the start's hop, bit
        for bit (AAC and ALAC in MP4, Opus in Matroska, a video's soundtrack), near the start
        and past the first second."""
        d = self.dir
        for name, rate in [("aac.m4a", 44100), ("alac.m4a", 44100), ("opus.mkv", 48000), ("two.mp4", 44100)]:
            self.need(name)
            base = [name, "-b", "cpu", "-n", N, "--hop", HOP, "-v"]
            p = E.run(base + ["-o", "w.npy"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            w = np.load(os.path.join(d, "w.npy"))
            for hops in (20, int(1.5 * rate / HOP)):
                q = E.run(base + ["--start", repr(hops * HOP / rate), "-o", "r.npy"], cwd=d)
                self.assertEqual(q.returncode, 0, q.stderr)
                self.assertIn("read up to it", q.stderr, "%s from hop %d" % (name, hops))
                r = np.load(os.path.join(d, "r.npy"))
                self.assertTrue(np.array_equal(r, w[hops:]), "%s from hop %d: not the whole file's rows" % (name, hops))

    def test_without_ffmpeg_one_line(self):
        if self.in_build:
            self.skipTest("built with FFmpeg")
        if not self.have_tool or not self.made.get("aac.m4a"):
            path = os.path.join(self.dir, "fake.m4a")
            with open(path, "wb") as f:
                f.write(b"\x00\x00\x00\x18ftypM4A \x00\x00\x02\x00" + b"\x00" * 64)
        else:
            path = os.path.join(self.dir, "aac.m4a")
        p = E.run([path, "-o", os.path.join(self.dir, "x.npy")])
        assert_one_error_line(self, p, 2, [os.path.basename(path), "no FFmpeg support",
                                           "built without libavformat"])

    def test_version_line(self):
        p = E.run(["--version"])
        line = [l for l in p.stdout.splitlines() if l.strip().startswith("ffmpeg:")]
        self.assertEqual(len(line), 1, p.stdout)
        if self.in_build:
            self.assertIn("libavformat", line[0])
            self.assertIn("libavcodec", line[0])
        else:
            self.assertIn("no", line[0])


if __name__ == "__main__":
    E.main()
