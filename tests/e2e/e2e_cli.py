#!/usr/bin/python3
"""--help, --version, backend selection messages, option values and environment variables
that the parser and app/env.c refuse (the exact line, exit 2, no file left)."""
import os
import re
import subprocess
import unittest

import spectro_e2e as E

OPTIONS = ["-n", "--fft-size", "--hop", "-w", "--window", "-c", "--channel", "-b", "--backend",
           "-o", "--dump", "--peaks", "-q", "--quiet", "-v", "--verbose", "-h", "--help",
           "-V", "--version"]
WORDS = ["hann", "hamming", "blackman", "blackman-harris", "flattop", "rect", "kaiser", "gauss",
         "auto", "cpu", "cuda", "cufft", "mix", "all"]


class Cli(unittest.TestCase):
    def test_help(self):
        for flag in ("-h", "--help"):
            p = E.run([flag])
            self.assertEqual(p.returncode, 0, p.stderr)
            text = p.stdout
            for opt in OPTIONS:
                self.assertRegex(text, r"(^|[\s,\[])" + re.escape(opt) + r"\b",
                                 "%s does not mention %s" % (flag, opt))
            for w in WORDS:
                self.assertIn(w, text, "%s does not mention %s" % (flag, w))
            # the library's help names its fields; the program shows each as its option:
            # no field mark and no option's field spelling ("list_devices") is left
            self.assertNotIn("\x1f", text)
            options = set(re.findall(r"--([a-z][a-z-]*[a-z])", text))
            for o in sorted(o for o in options if "-" in o):
                self.assertNotRegex(text, r"\b%s\b" % o.replace("-", "_"), "%s shows a field, not --%s" % (flag, o))

    def test_version(self):
        for flag in ("-V", "--version"):
            p = E.run([flag])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stdout, r"spectro\S*\s+v?\d+\.\d+\.\d+")

    @unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
    def test_help_and_version_check_the_write(self):
        """--help and --version into a full device: one line naming the reason, exit 1 (the
        text was lost; exit 0 said it had gone out)."""
        for flag in ("--help", "--version"):
            with self.subTest(flag=flag), open("/dev/full", "w") as full:
                p = subprocess.run([E.BIN, flag], stdout=full, stderr=subprocess.PIPE, text=True, timeout=30)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(p.stderr.splitlines(),
                                 ["spectro: writing to standard output failed: No space left on device"])

    def test_quiet_prints_nothing_on_stderr(self):
        with E.TempDir() as d:
            p = E.run([E.asset("two_tone_48k_s16.wav"), "-q", "-o", d + "/o.npy"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr, "")

    def test_gpu_backends_exit_1_without_device(self):
        # With a GPU: success, and the JSON names the backend.  Without: exit 1, one line.
        for b in ("cuda", "cufft"):
            with self.subTest(backend=b), E.TempDir() as d:
                out = d + "/o.npy"
                p = E.run([E.asset("two_tone_48k_s16.wav"), "-b", b, "-o", out])
                if p.returncode == 0:
                    self.assertEqual(E.load_json(self, out + ".json")["backend"], b)
                else:
                    self.assertEqual(p.returncode, 1, p.stderr)
                    lines = p.stderr.splitlines()
                    self.assertEqual(len(lines), 1, repr(p.stderr))
                    self.assertTrue(lines[0].startswith("spectro: --backend %s: " % b), lines[0])
                    self.assertEqual(E.listing(d), set())

    def test_auto_backend(self):
        with E.TempDir() as d:
            out = d + "/o.npy"
            p = E.run([E.asset("two_tone_48k_s16.wav"), "-b", "auto", "-o", out])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(E.load_json(self, out + ".json")["backend"], ("cpu", "cuda"))

    def test_bad_values(self):
        cases = [
            (["--size", "10x"], "--size 10x: expected WxH, e.g. 1920x1080"),
            (["--size", "100x100"], "--size 100x100: width must be 200 .. 16384 and height 150 .. 16384 pixels"),
            (["--size", "800x600x2"], "--size 800x600x2: expected WxH, e.g. 1920x1080"),
            (["--db-range", "0:-10"], "--db-range 0:-10: LO must be below HI"),
            (["--db-range", "-120"], "--db-range -120: expected LO:HI in dB, e.g. -120:0"),
            (["--db-range", "a:b"], "--db-range a:b: expected LO:HI in dB, e.g. -120:0"),
            (["-b", "gpu"], "-b gpu: unknown backend (auto, cpu, cuda, cufft)"),
            (["--scale", "bark"], "--scale bark: unknown frequency scale (use linear, log or mel)"),
            (["-w", "sinc"], "-w sinc: unknown window (hann, hamming, blackman, blackman-harris, "
                             "flattop, rect, kaiser[:beta], gauss[:sigma])"),
            (["-o", "x.txt"], "-o x.txt: unknown output type (use .npy, .csv or - for CSV on stdout)"),
        ]
        for args, line in cases:
            with self.subTest(args=args):
                p = E.run([E.asset("two_tone_48k_s16.wav")] + args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stderr, "spectro: " + line + "\n")

    def test_bad_environment(self):
        # read by app/env.c before any work, whichever backend runs
        cases = [
            ("SPECTRO_CPU_THREADS", "many", "must be a whole number from 1 to 256"),
            ("SPECTRO_CPU_THREADS", "0", "must be a whole number from 1 to 256"),
            ("SPECTRO_CPU_THREADS", "257", "must be a whole number from 1 to 256"),
            ("SPECTRO_CUDA_PATH", "fast", "must be fused, portable or perlevel"),
            ("SPECTRO_CUDA_STREAM", "yes", "must be 0 or 1"),
            ("SPECTRO_CUDA_STREAM", "2", "must be 0 or 1"),
        ]
        for var, value, why in cases:
            with self.subTest(var=var, value=value), E.TempDir() as d:
                env = dict(os.environ)
                env[var] = value
                p = subprocess.run([E.BIN, E.asset("two_tone_48k_s16.wav"), "-b", "cpu", "-o", d + "/o.npy"],
                                   capture_output=True, text=True, timeout=60, env=env,
                                   stdin=subprocess.DEVNULL)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stderr, "spectro: %s=%s: %s\n" % (var, value, why))
                self.assertEqual(E.listing(d), set())

    def test_good_environment(self):
        env = dict(os.environ, SPECTRO_CPU_THREADS="3", SPECTRO_CPU_SIMD="sse2", SPECTRO_CUDA_PATH="perlevel",
                   SPECTRO_CUDA_STREAM="1", SPECTRO_FONT="")
        p = subprocess.run([E.BIN, E.asset("two_tone_48k_s16.wav"), "-q", "--peaks"], capture_output=True,
                           text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertEqual(p.stdout, E.run([E.asset("two_tone_48k_s16.wav"), "-q", "--peaks"]).stdout)


if __name__ == "__main__":
    E.main()
