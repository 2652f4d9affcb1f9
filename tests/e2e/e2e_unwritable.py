#!/usr/bin/python3
"""Output files: their modes follow the umask; an output path that cannot be written: exit
1, one line, nothing left behind, found before any work for every kind of output."""
import os
import subprocess
import unittest

import spectro_e2e as E

# ctest sets 0 when the build has no PNG renderer (no libpng/SDL2 at configure time)
HAVE_PNG = os.environ.get("SPECTRO_TEST_RENDER", "1") != "0"


class Modes(unittest.TestCase):
    def test_modes_follow_the_umask(self):
        """Outputs are written under a temporary name and renamed into place; the finished
        files get 0666 less the umask, as files any program creates."""
        png = ["--png", "a.png"] if HAVE_PNG else []
        for mask in (0o022, 0o077, 0o002):
            with E.TempDir() as d:
                p = E.run([E.asset("two_tone_48k_s16.wav"), "-o", "a.npy"] + png, cwd=d,
                          preexec_fn=lambda: os.umask(mask))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(E.listing(d), {"a.npy", "a.npy.json"} | ({"a.png"} if png else set()))
                for name in sorted(E.listing(d)):
                    mode = os.stat(os.path.join(d, name)).st_mode & 0o777
                    self.assertEqual(mode, 0o666 & ~mask, "%s: %o under umask %03o" % (name, mode, mask))


class Unwritable(unittest.TestCase):
    def check(self, out, cwd):
        p = E.run([E.asset("two_tone_48k_s16.wav"), "-o", out], cwd=cwd)
        self.assertEqual(p.returncode, 1, "exit %d, stderr %r" % (p.returncode, p.stderr))
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, repr(p.stderr))
        self.assertTrue(lines[0].startswith("spectro: "), lines[0])
        self.assertIn(os.path.basename(os.path.dirname(out)) or out, lines[0],
                      "error names the output path")

    def test_missing_directory(self):
        with E.TempDir() as d:
            self.check("/nonexistent-dir-spectro-e2e/out.npy", d)
            self.check(os.path.join(d, "missing", "out.csv"), d)
            self.assertEqual(E.listing(d), set())

    def test_output_is_a_directory(self):
        with E.TempDir() as d:
            os.mkdir(os.path.join(d, "x.npy"))
            p = E.run([E.asset("two_tone_48k_s16.wav"), "-o", os.path.join(d, "x.npy")])
            self.assertIn(p.returncode, (1, 2), p.stderr)
            self.assertEqual(len(p.stderr.splitlines()), 1, repr(p.stderr))
            self.assertEqual(E.listing(d), {"x.npy"})

    @unittest.skipUnless(HAVE_PNG, "this build has no PNG renderer")
    def test_png_fails_after_dump(self):
        """--png to a missing directory with a good --dump: the run fails and the dump,
        finished before the picture, is not left behind looking complete."""
        with E.TempDir() as d:
            out = os.path.join(d, "a.npy")
            p = E.run([E.asset("two_tone_48k_s16.wav"), "-o", out, "--png", "/nonexistent-dir-spectro-e2e/x.png"],
                      cwd=d)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(len(p.stderr.splitlines()), 1, repr(p.stderr))
            self.assertEqual(E.listing(d), set())

    @unittest.skipUnless(HAVE_PNG, "this build has no PNG renderer")
    def test_checked_before_the_analysis(self):
        """Every output is checked before any work, whatever its kind: an endless input
        with a picture (written only at the end) into a missing directory ends at once."""
        for args in (["--png", "/nonexistent-dir-spectro-e2e/x.png"],
                     ["--average", "mean", "--png", "/nonexistent-dir-spectro-e2e/x.png"],
                     ["--peaks", "--png", "/nonexistent-dir-spectro-e2e/x.png"]):
            with self.subTest(args=args), E.TempDir() as d:
                try:
                    p = E.run(["synth:duration=inf", "-o", "a.npy"] + args, cwd=d, timeout=20)
                except subprocess.TimeoutExpired:
                    self.fail("%s: still analysing an endless input after 20 s" % args)
                self.assertEqual(p.returncode, 1, p.stderr)
                lines = p.stderr.splitlines()
                self.assertEqual(len(lines), 1, repr(p.stderr))
                self.assertIn("--png /nonexistent-dir-spectro-e2e/x.png", lines[0])
                self.assertEqual(p.stdout, "")
                self.assertEqual(E.listing(d), set())

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_peaks_to_full_device(self):
        """--peaks into a full device: the last buffered lines fail at the end; exit 1."""
        with open("/dev/full", "w") as full:
            p = subprocess.run([E.BIN, E.asset("two_tone_48k_s16.wav"), "--peaks"], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, repr(p.stderr))
        self.assertIn("peaks", p.stderr)

    @unittest.skipIf(os.geteuid() == 0, "root ignores directory permissions")
    def test_read_only_directory(self):
        with E.TempDir() as d:
            ro = os.path.join(d, "ro")
            os.mkdir(ro)
            os.chmod(ro, 0o555)
            try:
                self.check(os.path.join(ro, "out.npy"), d)
                self.assertEqual(E.listing(ro), set())
            finally:
                os.chmod(ro, 0o755)


if __name__ == "__main__":
    E.main()
