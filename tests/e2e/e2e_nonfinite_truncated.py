#!/usr/bin/python3
"""Damaged input that is still analysed: NaN/Inf samples, a truncated WAV."""
import unittest

import numpy as np

import spectro_e2e as E


class Damaged(unittest.TestCase):
    def test_nonfinite_samples(self):
        path = E.asset("nonfinite_48k_f32.wav")
        x, rate, _ = E.read_audio(path)
        self.assertEqual(int((~np.isfinite(x)).sum()), 7)
        for extra in ([], ["-c", "all"], ["-w", "rect", "-n", "1024"]):
            with self.subTest(args=extra):
                a, meta, p = E.dump(self, [path] + extra, expect_warning=True)
                self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
                self.assertEqual(meta["nonfinite_samples"], 7)
                self.assertFalse(np.isnan(a).any())
                n = 1024 if extra[-1:] == ["1024"] else 4096
                win = "rect" if "rect" in extra else "hann"
                ch = "all" if "all" in extra else "mix"
                E.assert_db_close(self, a, E.reference(x, n, None, win, ch), "nonfinite")
        # --peaks also works and prints finite numbers.
        p = E.run([path, "--peaks"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(E.stderr_lines(p)), 1)
        self.assertTrue(E.stderr_lines(p)[0].startswith("spectro: warning:"))
        vals = np.array([[float(v) for v in l.split("\t")] for l in p.stdout.splitlines()])
        self.assertTrue(np.isfinite(vals).all())

    def test_truncated(self):
        path = E.asset("truncated_48k_s16.wav")
        x, rate, trunc = E.read_audio(path)
        self.assertTrue(trunc)
        self.assertEqual(len(x), 20000)  # header says 48000
        a, meta, p = E.dump(self, [path], expect_warning=True)
        self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
        self.assertIn("truncated_48k_s16.wav", p.stderr, "warning names the file")
        E.check_meta(self, meta, path, rate, 1, 20000, truncated=True)
        self.assertEqual(a.shape, ((20000 - 4096) // 1024 + 1, 2049))
        E.assert_db_close(self, a, E.reference(x), "truncated")


if __name__ == "__main__":
    E.main()
