#!/usr/bin/python3
"""--backend auto end to end: the --verbose line with its choice and both estimates, with
rates and a device injected through SPECTRO_AUTO_RATES / SPECTRO_AUTO_DEVICE (app/env.c);
the fallback note when the chosen GPU cannot start; live runs; no CUDA driver loaded when
the cpu is chosen (LD_DEBUG=libs shows every library the loader opens, dlopen too); bad
values refused with one line."""
import os
import re
import subprocess
import sys
import unittest
import wave

import numpy as np

import spectro_e2e as E

WAV = "two_tone_48k_s16.wav"
CHOICE = re.compile(r"^spectro: backend: auto chose (cpu|cuda): (.*)$", re.M)
NOTE = "spectro: note: using the cpu backend: "


def env_of(**kw):
    """This environment less the variables that steer auto, plus kw."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SPECTRO_AUTO_") and k != "SPECTRO_CPU_THREADS"}
    env.update(kw)
    return env


def run(args, **kw):
    return E.run(args, env=env_of(**kw))


def choice(test, p):
    test.assertEqual(p.returncode, 0, p.stderr)
    m = CHOICE.findall(p.stderr)
    test.assertEqual(len(m), 1, p.stderr)
    return m[0]


def wav_frames(name, n=4096, hop=1024):
    """Frames of a mono analysis of an asset (docs/design.md "Frames": floor((L-N)/hop) + 1)."""
    with wave.open(E.asset(name)) as w:
        length = w.getnframes()
    return 1 if length < n else (length - n) // hop + 1


def gpu_runs():
    """Whether --backend cuda runs here (a CUDA build on a machine with a usable GPU)."""
    with E.TempDir() as d:
        return E.run([E.asset(WAV), "-q", "-b", "cuda", "-o", d + "/o.npy"], env=env_of()).returncode == 0


# A child's peak resident memory counts its parent's at the fork (the kernel keeps the
# larger), and this process holds NumPy and SciPy: the binary is started from a bare Python.
SPAWN = """import os, sys
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def peak_rss_mb(args, **kw):
    """Runs the binary; (return code, its peak resident memory in MB)."""
    p = subprocess.run([sys.executable, "-S", "-c", SPAWN, E.BIN] + [str(a) for a in args], env=env_of(**kw),
                       stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    rc, kb = p.stdout.split()
    return int(rc), int(kb) / 1024.0


# rates that make the GPU win any job
GPU_WINS = "cpu_core:1000,gpu_start:0.001,gpu:1e12"


def write_tone(path, minutes):
    """A 48 kHz mono 16-bit WAV of a steady tone, written a minute at a time."""
    with wave.open(path, "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(48000)
        minute = (np.sin(np.arange(60 * 48000) * 0.05) * 8000).astype("<i2").tobytes()
        whole, part = int(minutes), minutes - int(minutes)
        for _ in range(whole):
            w.writeframes(minute)
        w.writeframes(minute[:int(part * 60 * 48000) * 2])


@E.needs_hooks
class Auto(unittest.TestCase):
    def test_read_ahead_while_a_gpu_starts(self):
        # auto choosing a GPU reads the file ahead into a ring of up to what the run analyses
        # (here 10 minutes: 28.8 M samples, a 128 MB ring), every sample into a page of its
        # own; the cpu backend's ring is 32 MB, and so is the GPU's for a minute of the file
        # (--duration), however far the reader gets. Where the GPU cannot start the run goes
        # on on the cpu, through the same ring.
        rates = GPU_WINS
        with E.TempDir() as d:
            path = d + "/ten.wav"
            write_tone(path, 10)
            job = [path, "-q", "--peaks", "-n", "4096"]
            rc, gpu = peak_rss_mb(job + ["--hop", "65536"], SPECTRO_AUTO_DEVICE="1", SPECTRO_AUTO_RATES=rates)
            self.assertEqual(rc, 0)
            rc, cpu = peak_rss_mb(job + ["--hop", "65536", "-b", "cpu"])
            self.assertEqual(rc, 0)
            rc, minute = peak_rss_mb(job + ["--hop", "64", "--duration", "60"], SPECTRO_AUTO_DEVICE="1",
                                     SPECTRO_AUTO_RATES=rates)
            self.assertEqual(rc, 0)
            self.assertGreater(gpu - cpu, 60, "GPU %.0f MB, cpu %.0f MB: no bigger read-ahead" % (gpu, cpu))
            self.assertGreater(gpu - minute, 100, "whole file %.0f MB, a minute %.0f MB" % (gpu, minute))

    def test_reductions_take_bigger_calls(self):
        # a GPU run whose outputs all take the device's reductions (--png's column maxima,
        # --peaks' records) makes bigger calls once it makes many; one with an output that
        # takes the spectra (--tone here), or a short one, keeps the usual size (-v: batch=)
        with E.TempDir() as d:
            path = d + "/long.wav"
            write_tone(path, 100 / 60)

            def batch(*args):
                p = run([path, "-v", "-n", "4096", "--hop", "64"] + list(args), SPECTRO_AUTO_DEVICE="1",
                        SPECTRO_AUTO_RATES=GPU_WINS)
                self.assertEqual(p.returncode, 0, p.stderr)
                m = re.search(r" batch=(\d+);", p.stderr)
                self.assertIsNotNone(m, p.stderr)
                return int(m.group(1))
            reduced = batch("--png", d + "/o.png", "--peaks")
            spectra = batch("--png", d + "/o.png", "--tone")
            self.assertGreater(reduced, spectra)
            self.assertEqual(batch("--png", d + "/o.png", "--duration", "5"), spectra)
            self.assertEqual(batch("--png", d + "/o.png", "--start", "95"), spectra)  # 5 s left

    def test_short_file_cpu_with_estimates(self):
        # a device pretended, the measured rates: a 2-second file is the cpu's, no note
        with E.TempDir() as d:
            out = d + "/o.npy"
            p = run([E.asset(WAV), "-v", "-o", out], SPECTRO_AUTO_DEVICE="1", SPECTRO_CPU_THREADS="2")
            kind, rest = choice(self, p)
            self.assertEqual(kind, "cpu")
            self.assertRegex(rest, r"^cpu ~[0-9.]+ m?s \(2 threads\), cuda ~0\.3[0-9] s \(0\.35 s start\)$")
            self.assertNotIn(NOTE, p.stderr)
            self.assertEqual(E.load_json(self, out + ".json")["backend"], "cpu")
            self.assertIn("backend=cpu", p.stderr)

    def test_estimates_follow_injected_rates(self):
        # cpu: frames x N log2 N / (cpu_core x threads); cuda: start + frames x N log2 N / gpu
        units = wav_frames(WAV) * 4096 * 12
        rates = "cpu_core:%r,gpu_start:0.5,gpu:%r" % (units / 2 / 0.4, units / 0.25)
        with E.TempDir() as d:
            p = run([E.asset(WAV), "-v", "-o", d + "/o.npy"], SPECTRO_AUTO_DEVICE="1", SPECTRO_CPU_THREADS="2",
                    SPECTRO_AUTO_RATES=rates)
            self.assertEqual(choice(self, p), ("cpu", "cpu ~0.40 s (2 threads), cuda ~0.75 s (0.50 s start)"))
            # one thread: the cpu takes twice as long, and loses
            p = run([E.asset(WAV), "-v", "-o", d + "/o.npy"], SPECTRO_AUTO_DEVICE="1", SPECTRO_CPU_THREADS="1",
                    SPECTRO_AUTO_RATES=rates)
            self.assertEqual(choice(self, p), ("cuda", "cpu ~0.80 s (1 thread), cuda ~0.75 s (0.50 s start)"))

    def test_cuda_chosen_falls_back_or_runs(self):
        # rates that make the GPU win: auto chooses cuda; where it cannot start (no GPU in this
        # build, or none here) the run goes on on the cpu with the note, and the output is
        # the cpu backend's
        rates = GPU_WINS
        with E.TempDir() as d:
            out, ref = d + "/o.npy", d + "/r.npy"
            p = run([E.asset(WAV), "-v", "-o", out], SPECTRO_AUTO_DEVICE="1", SPECTRO_AUTO_RATES=rates)
            kind, rest = choice(self, p)
            self.assertEqual(kind, "cuda", p.stderr)
            self.assertRegex(rest, r"^cpu ~[0-9.]+ s \(\d+ threads?\), cuda ~[0-9.]+ m?s \(0\.00 s start\)$")
            used = E.load_json(self, out + ".json")["backend"]
            if used == "cuda":
                self.assertNotIn(NOTE, p.stderr)
            else:
                self.assertEqual(used, "cpu")
                notes = [l for l in p.stderr.splitlines() if l.startswith(NOTE)]
                self.assertEqual(len(notes), 1, p.stderr)
                q = run([E.asset(WAV), "-q", "-b", "cpu", "-o", ref])
                self.assertEqual(q.returncode, 0, q.stderr)
                self.assertTrue(np.array_equal(np.load(out), np.load(ref)))
            # -q keeps the choice to itself
            p = run([E.asset(WAV), "-q", "-o", out], SPECTRO_AUTO_DEVICE="1", SPECTRO_AUTO_RATES=rates)
            self.assertEqual((p.returncode, p.stderr), (0, ""))

    def test_no_device(self):
        with E.TempDir() as d:
            p = run([E.asset(WAV), "-v", "-o", d + "/o.npy"], SPECTRO_AUTO_DEVICE="0",
                    SPECTRO_AUTO_RATES="cpu_core:1")
            kind, rest = choice(self, p)
            self.assertEqual(kind, "cpu")
            self.assertRegex(rest, r"^cpu ~[0-9.]+ s \(\d+ threads?\), cuda: no GPU device \(the tuning says none\)$")
            self.assertIn(NOTE + "no GPU device (the tuning says none)\n", p.stderr)

    def test_this_machine(self):
        # no pretence: a short file goes to the cpu here whatever the machine has; without a
        # device (node or build) the note says why, as it always did
        with E.TempDir() as d:
            p = run([E.asset(WAV), "-v", "-o", d + "/o.npy"])
            kind, rest = choice(self, p)
            self.assertEqual(kind, "cpu")
            if ", cuda: " in rest:
                why = rest.split(", cuda: ", 1)[1]
                self.assertIn(NOTE + why + "\n", p.stderr)
            else:
                self.assertNotIn(NOTE, p.stderr)

    def test_plain_run_says_nothing(self):
        # a machine or a build without a GPU is the usual case: a run that went well prints
        # nothing on stderr, one file or several; -v still says why the cpu ran
        wavs = [E.asset(WAV), E.asset("sine_1000hz_48k_f32.wav")]
        with E.TempDir() as d:
            for dev in ({"SPECTRO_AUTO_DEVICE": "0"}, {}):  # pretended none, then this machine
                for args in ([wavs[0], "-o", d + "/o.npy"], wavs + ["--peaks"], wavs + ["-o", d + "/{stem}.npy"]):
                    with self.subTest(dev=dev, args=args[-2:]):
                        p = run(args, **dev)
                        self.assertEqual((p.returncode, p.stderr), (0, ""))
            p = run([wavs[0], "-v", "-o", d + "/o.npy"], SPECTRO_AUTO_DEVICE="0")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(NOTE + "no GPU device (the tuning says none)\n", p.stderr)
            # a GPU that is there and chosen but does not start is news: the note stays
            p = run([wavs[0], "-o", d + "/g.npy"], SPECTRO_AUTO_DEVICE="1", SPECTRO_AUTO_RATES=GPU_WINS)
            self.assertEqual(p.returncode, 0, p.stderr)
            if E.load_json(self, d + "/g.npy.json")["backend"] == "cpu":
                self.assertEqual([l for l in p.stderr.splitlines() if l.startswith(NOTE)], p.stderr.splitlines())
                self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
            else:
                self.assertEqual(p.stderr, "")

    def test_named_backend_weighs_nothing(self):
        with E.TempDir() as d:
            p = run([E.asset(WAV), "-v", "-b", "cpu", "-o", d + "/o.npy"], SPECTRO_AUTO_DEVICE="1")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(CHOICE.findall(p.stderr), [])
            self.assertNotIn(NOTE, p.stderr)
            # an explicit cuda goes to the GPU whatever auto's pretence says: it runs, or it
            # fails with CUDA's own reason (never the pretence's)
            p = run([E.asset(WAV), "-v", "-b", "cuda", "-o", d + "/c.npy"], SPECTRO_AUTO_DEVICE="0")
            if p.returncode == 0:
                self.assertEqual(E.load_json(self, d + "/c.npy.json")["backend"], "cuda")
            else:
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertTrue(p.stderr.startswith("spectro: --backend cuda: "), p.stderr)
                self.assertNotIn("tuning says none", p.stderr)

    def test_live(self):
        # --realtime is a live run: the load decides, not the length
        base = [E.asset(WAV), "-v", "--realtime", "--duration", "0.3", "--peaks"]
        p = run(base, SPECTRO_AUTO_DEVICE="1")
        kind, rest = choice(self, p)
        self.assertEqual(kind, "cpu")
        m = re.match(r"live: cpu busy ([0-9.e+-]+)% of (\d+) threads? \(cuda above 50%\), cuda ([0-9.e+-]+)%$", rest)
        self.assertIsNotNone(m, rest)
        self.assertLess(float(m.group(1)), 50)
        # a cpu that could not keep up: cuda (here: runs, or falls back with the note)
        p = run(base, SPECTRO_AUTO_DEVICE="1", SPECTRO_AUTO_RATES="cpu_core:1e5")
        kind, rest = choice(self, p)
        self.assertEqual(kind, "cuda", p.stderr)
        self.assertTrue(rest.startswith("live: cpu busy "), rest)

    def test_cpu_choice_loads_no_cuda(self):
        # the loader lists each library it opens (dlopen too) under LD_DEBUG=libs; when auto
        # chooses the cpu, the CUDA driver (libcuda) is never opened
        with E.TempDir() as d:
            p = run([E.asset(WAV), "-v", "-o", d + "/o.npy"], LD_DEBUG="libs")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("auto chose cpu", p.stderr)
            self.assertIn("libsndfile", p.stderr)  # the loader does report what it opens
            self.assertNotIn("libcuda.so", p.stderr)
            if not gpu_runs():
                return
            # where the GPU runs, the same check sees the driver when cuda is used
            p = run([E.asset(WAV), "-v", "-b", "cuda", "-o", d + "/c.npy"], LD_DEBUG="libs")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("libcuda.so", p.stderr)

    def test_bad_environment(self):
        cases = [
            ("SPECTRO_AUTO_RATES", "cpu:3", "must be cpu_core:X,gpu_start:Y,gpu:Z,host:H (any of them; positive numbers)"),
            ("SPECTRO_AUTO_RATES", "gpu:-1", "must be cpu_core:X,gpu_start:Y,gpu:Z,host:H (any of them; positive numbers)"),
            ("SPECTRO_AUTO_RATES", "gpu:1,", "must be cpu_core:X,gpu_start:Y,gpu:Z,host:H (any of them; positive numbers)"),
            ("SPECTRO_AUTO_RATES", "gpu_start:0.3x", "must be cpu_core:X,gpu_start:Y,gpu:Z,host:H (any of them; positive numbers)"),
            ("SPECTRO_AUTO_DEVICE", "yes", "must be 0 or 1"),
        ]
        for var, value, why in cases:
            with self.subTest(var=var, value=value), E.TempDir() as d:
                p = run([E.asset(WAV), "-o", d + "/o.npy"], **{var: value})
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stderr, "spectro: %s=%s: %s\n" % (var, value, why))
                self.assertEqual(E.listing(d), set())


if __name__ == "__main__":
    E.main()
