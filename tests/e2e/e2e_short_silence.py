#!/usr/bin/python3
"""A file shorter than N gives one zero-padded frame; silence reads -200 dB everywhere."""
import unittest

import numpy as np

import spectro_e2e as E


class ShortAndSilence(unittest.TestCase):
    def test_short_file_one_padded_frame(self):
        path = E.asset("short_3000_samples_48k_f32.wav")
        x, rate, _ = E.read_audio(path)
        self.assertEqual(len(x), 3000)
        for n, win in ((4096, "hann"), (8192, "rect"), (1 << 16, "blackman")):
            with self.subTest(n=n):
                a, meta, _ = E.dump(self, [path, "-n", n, "-w", win])
                E.check_meta(self, meta, path, rate, 1, 3000, n=n, win=win)
                self.assertEqual(a.shape, (1, n // 2 + 1))
                self.assertEqual(meta["frames"], 1)
                self.assertAlmostEqual(meta["time_first_s"], n / 2 / rate, delta=1e-9)
                E.assert_db_close(self, a, E.reference(x, n, None, win), "short n=%d" % n)
        # n = 2048 < 3000: ordinary framing, no padding.
        a, meta, _ = E.dump(self, [path, "-n", 2048, "--hop", 100])
        self.assertEqual(a.shape, ((3000 - 2048) // 100 + 1, 1025))
        E.assert_db_close(self, a, E.reference(x, 2048, 100), "short n=2048")

    def test_exactly_n_samples(self):
        path = E.asset("short_3000_samples_48k_f32.wav")
        x, rate, _ = E.read_audio(path)
        # n = 2048, hop 952: 3000 = 2048 + 952 -> exactly two frames.
        a, _, _ = E.dump(self, [path, "-n", 2048, "--hop", 952])
        self.assertEqual(a.shape[0], 2)
        a, _, _ = E.dump(self, [path, "-n", 2048, "--hop", 953])
        self.assertEqual(a.shape[0], 1)

    def test_silence(self):
        path = E.asset("silence_48k_s16.wav")
        for win in ("hann", "rect", "kaiser"):
            a, meta, _ = E.dump(self, [path, "-w", win])
            self.assertEqual(a.shape, ((12000 - 4096) // 1024 + 1, 2049))
            self.assertTrue((a == np.float32(-200.0)).all(), "silence must read exactly -200 dB")

    def test_silence_csv_has_no_nan(self):
        path = E.asset("silence_48k_s16.wav")
        p = E.run([path, "--dump", "-"])
        self.assertEqual(p.returncode, 0, p.stderr)
        body = p.stdout.lower()
        self.assertNotIn("nan", body)
        self.assertNotIn("inf", body)


if __name__ == "__main__":
    E.main()
