#!/usr/bin/python3
"""--help, --version, backend selection messages."""
import re
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

    def test_version(self):
        for flag in ("-V", "--version"):
            p = E.run([flag])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stdout, r"spectro\S*\s+v?\d+\.\d+\.\d+")

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


if __name__ == "__main__":
    E.main()
