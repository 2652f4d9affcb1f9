#!/usr/bin/env python3
"""Many files on the cpu backend: several analysis sessions run at once (as many as the cores,
at most 16; `-v` says how many), and nothing a user sees changes. Each file's outputs equal the
same file's single run byte for byte (dumps and their sidecars, pictures) over inputs of many
lengths, rates, channel counts and formats; the messages come in the list's order, one line a
bad file, none lost to another session's input opening (libsndfile's MP3 decoder is opened with
standard error muted: a batch's reports used to vanish when a session opened a file while
another thread printed); the count line; -v's lines per file in the list's order; --shard
over K = 0..N-1 covers every file once; outputs to standard output (--peaks) keep one session;
the progress bar on a terminal (a pty) advances as the files are analysed, on several sessions
or one.

    e2e_batch_parallel.py path/to/spectro path/to/assets
"""
import os
import pty
import re
import select
import shutil
import time
import unittest

import numpy as np

import spectro_e2e as E


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def make_inputs(d, count):
    """count inputs of different lengths (a few frames to a few seconds), rates, channel
    counts and formats (float and 16-bit WAV, FLAC and Ogg copies of the assets)."""
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    rng = np.random.default_rng(7)
    paths = []
    for i in range(count):
        kind = i % 6
        p = os.path.join(d, "in", "f%02d" % i)
        if kind == 4:
            p += ".flac"
            shutil.copy(E.asset("two_tone_48k.flac"), p)
        elif kind == 5:
            p += ".ogg"
            shutil.copy(E.asset("two_tone_48k.ogg"), p)
        else:
            rate = (48000, 44100, 96000, 8000)[kind]
            channels = 1 + i % 3
            n = int(rate * (0.01 + 3.0 * rng.random()))
            t = np.arange(n) / rate
            x = np.stack([0.3 * np.sin(2 * np.pi * (200 + 37 * i + 500 * c) * t) for c in range(channels)], axis=1)
            x += 0.01 * rng.standard_normal(x.shape)
            p += ".wav"
            E.write_float_wav(p, x if channels > 1 else x[:, 0], rate)
        paths.append(p)
    return paths


def at_a_time(stderr):
    m = re.search(r"spectro: \d+ files, .* \((\d+) at a time\)", stderr)
    return int(m.group(1)) if m else None


class BatchParallel(unittest.TestCase):
    def test_outputs_equal_single_runs(self):
        with E.TempDir() as d:
            inputs = make_inputs(d, 24)
            os.mkdir(os.path.join(d, "batch"))
            args = ["-b", "cpu", "--channel", "all", "-n", "1024", "--hop", "256"]
            p = E.run(inputs + args + ["-v", "--dump", os.path.join(d, "batch/")], timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            if os.cpu_count() and os.cpu_count() > 1:
                self.assertGreater(at_a_time(p.stderr), 1, p.stderr)
            # -v's line of each file, in the list's order
            named = [l.split(": ")[1] for l in p.stderr.splitlines()
                     if l.startswith("spectro: ") and l.split(": ")[1] in inputs]
            self.assertEqual(named, inputs, p.stderr)
            for f in inputs:
                single = os.path.join(d, "single.npy")
                q = E.run([f] + args + ["--dump", single], timeout=120)
                self.assertEqual(q.returncode, 0, q.stderr)
                got = os.path.join(d, "batch", stem(f) + ".npy")
                self.assertEqual(read(got), read(single), f)
                self.assertEqual(read(got + ".json"), read(single + ".json"), f)

    def test_bad_files_reported_in_order(self):
        """Bad files at many places among good ones, several times over: one line each, in
        the list's order, none lost; the count line; exit 1; the good ones complete."""
        with E.TempDir() as d:
            good = make_inputs(d, 30)
            inputs, bad = [], []
            for i, g in enumerate(good):
                inputs.append(g)
                if i % 3 == 1:  # not audio, missing, empty in turn, each its own name
                    b = os.path.join(d, "bad%02d.wav" % i)
                    if len(bad) % 3 == 0:
                        shutil.copy(E.asset("not_audio.wav"), b)
                    elif len(bad) % 3 == 2:
                        open(b, "wb").close()
                    inputs.append(b)
                    bad.append(b)
            for attempt in range(3):
                out = os.path.join(d, "o%d" % attempt)
                os.mkdir(out)
                p = E.run(inputs + ["-b", "cpu", "--dump", out + "/"], timeout=300)
                self.assertEqual(p.returncode, 1, p.stderr)
                lines = E.stderr_lines(p)
                self.assertEqual(len(lines), len(bad) + 1, p.stderr)
                for line, path in zip(lines, bad):
                    self.assertTrue(line.startswith("spectro: ") and path in line, (line, path))
                self.assertEqual(lines[-1], "spectro: %d of %d files failed" % (len(bad), len(inputs)))
                self.assertEqual(E.listing(out), {stem(g) + s for g in good for s in (".npy", ".npy.json")})

    def test_shard_covers_every_file_once(self):
        with E.TempDir() as d:
            inputs = make_inputs(d, 17)
            lst = os.path.join(d, "list")
            with open(lst, "w") as f:
                f.write("".join(p + "\n" for p in inputs))
            seen = []
            for k in range(3):
                out = os.path.join(d, "s%d" % k)
                os.mkdir(out)
                p = E.run(["-b", "cpu", "--files-from", lst, "--shard", "%d/3" % k, "--dump", out + "/"], timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr)
                seen += [n[:-4] for n in os.listdir(out) if n.endswith(".npy")]
            self.assertEqual(sorted(seen), sorted(stem(p) for p in inputs))

    @E.needs_hooks
    def test_auto_weighs_the_whole_share(self):
        """--backend auto over many files weighs them as one job (SPECTRO_AUTO_DEVICE=1
        pretends a GPU; SPECTRO_AUTO_RATES steers the estimates): the cpu, on several sessions
        at once, when it is faster; the GPU's one session when the cpu is slow (here without
        a usable GPU each file then falls back to the cpu, with the note once)."""
        with E.TempDir() as d:
            inputs = make_inputs(d, 12)
            base = {k: v for k, v in os.environ.items() if not k.startswith("SPECTRO_AUTO_")}
            cases = [({"SPECTRO_AUTO_DEVICE": "1"}, "cpu"),
                     ({"SPECTRO_AUTO_DEVICE": "1", "SPECTRO_AUTO_RATES": "cpu_core:1"}, "cuda")]
            for extra, want in cases:
                out = os.path.join(d, "o" + want)
                os.mkdir(out)
                p = E.run(inputs + ["-v", "--dump", out + "/"], env=dict(base, **extra), timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr)
                m = re.search(r"^spectro: backend for the 12 files: auto chose (cpu|cuda): .*$", p.stderr, re.M)
                self.assertTrue(m, p.stderr)
                self.assertEqual(m.group(1), want, p.stderr)
                if want == "cuda":
                    self.assertEqual(at_a_time(p.stderr), 1, p.stderr)
                elif os.cpu_count() and os.cpu_count() > 1:
                    self.assertGreater(at_a_time(p.stderr), 1, p.stderr)
                self.assertEqual(len(os.listdir(out)), 24)

    @unittest.skipIf((os.cpu_count() or 1) < 2, "the cpu's sessions share the host work on 2 cores or more")
    @E.needs_hooks
    def test_auto_weighs_the_host_work(self):
        """A GPU batch runs one session, which decodes and writes every file alone, while the
        cpu's sessions share that work (issue 27 item 26: auto chose cuda for 1000 small files
        and was 4x slower). With the FFT far faster on the GPU, slow host work (host:H bytes a
        second) makes the cpu the choice; without it the GPU stays the choice."""
        with E.TempDir() as d:
            inputs = make_inputs(d, 12)
            base = {k: v for k, v in os.environ.items() if not k.startswith("SPECTRO_AUTO_")}
            fast_gpu = "cpu_core:1e8,gpu_start:1e-6,gpu:1e15"
            for rates, want in ((fast_gpu, "cuda"), (fast_gpu + ",host:1e6", "cpu")):
                out = os.path.join(d, "o" + want)
                os.mkdir(out)
                env = dict(base, SPECTRO_AUTO_DEVICE="1", SPECTRO_AUTO_RATES=rates)
                p = E.run(inputs + ["-v", "--dump", out + "/"], env=env, timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr)
                m = re.search(r"^spectro: backend for the 12 files: auto chose (cpu|cuda): .*"
                              r"both with ~([0-9.]+) (s|ms) of decoding and writing$", p.stderr, re.M)
                self.assertTrue(m, p.stderr)
                self.assertEqual(m.group(1), want, p.stderr)

    def test_stdout_output_keeps_one_session(self):
        """--peaks over several files writes to standard output: the files run in order in one
        session, their lines together and in the list's order."""
        with E.TempDir() as d:
            inputs = make_inputs(d, 8)
            p = E.run(inputs + ["-b", "cpu", "-v", "--peaks"], timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(at_a_time(p.stderr), 1, p.stderr)
            order = []
            for line in p.stdout.splitlines():
                name = line.split("\t")[0]
                if not order or order[-1] != name:
                    order.append(name)
            self.assertEqual(order, inputs)


def on_a_terminal(args, env, null_stdout=False, timeout=120):
    """Runs the binary with standard error (and standard output, unless null_stdout) on a
    pseudo-terminal; returns (exit status, everything it wrote there)."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            if null_stdout:
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.execve(E.BIN, [E.BIN] + [str(a) for a in args], env)
        finally:
            os._exit(127)
    out, deadline = b"", time.time() + timeout
    while time.time() < deadline:
        if not select.select([fd], [], [], 1.0)[0]:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


BAR = re.compile(r"^\[[#.]{30}\] (\d+)/(\d+) files +([0-9.]+) s of audio")


class Progress(unittest.TestCase):
    @E.needs_hooks
    def test_bar_advances_across_files(self):
        """Three 60-s files (three reads from the ring each), each run pausing 1.5 s at 30 s
        (SPECTRO_TEST_STALL): the bar shows audio analysed before any file has ended, grows,
        counts files, never goes back, and is cleared at the end; on several sessions (-o
        pattern, cpu) and on one (--peaks to standard output)."""
        with E.TempDir() as d:
            rate = 48000
            t = np.arange(60 * rate) / rate
            inputs = []
            for i in range(3):
                inputs.append(os.path.join(d, "p%d.wav" % i))
                E.write_float_wav(inputs[-1], 0.5 * np.sin(2 * np.pi * (500 + 100 * i) * t), rate)
            env = dict(os.environ, SPECTRO_TEST_STALL="30:1.5", TERM="xterm")
            for args, null_stdout in ((["-b", "cpu", "--average", "mean", "-o", os.path.join(d, "{stem}.csv")], False),
                                      (["-b", "cpu", "--peaks"], True)):
                with self.subTest(args=args[1:]):
                    code, out = on_a_terminal(inputs + args, env, null_stdout)
                    self.assertEqual(code, 0, out)
                    states = [(int(m.group(1)), float(m.group(3))) for m in
                              (BAR.match(part) for part in out.split("\r")) if m]
                    self.assertTrue(states, out)
                    self.assertTrue(any(done == 0 and audio > 1.0 for done, audio in states),
                                    "no audio counted before the first file ended: %r" % states[:20])
                    self.assertGreaterEqual(max(done for done, _ in states), 1, states)
                    self.assertGreater(max(audio for _, audio in states), 100.0, states)
                    self.assertEqual(states, sorted(states), "the bar went back")
                    self.assertTrue(out.endswith("\r\x1b[K"), repr(out[-200:]))


if __name__ == "__main__":
    E.main()
