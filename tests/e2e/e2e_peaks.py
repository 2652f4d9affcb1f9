#!/usr/bin/python3
"""--peaks: one line per frame; a steady sine's level within 0.02 dB of the truth and its
frequency within 0.01 bin, at any frequency, with every window (docs/design.md "Peaks")."""
import os
import unittest

import numpy as np

import spectro_e2e as E


class Peaks(unittest.TestCase):
    def peaks(self, args):
        p = E.run(list(args) + ["--peaks"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [l.split("\t") for l in p.stdout.splitlines()]
        return rows

    def check(self, name, win, true_hz, n=4096, hop=None, tol_bins=0.01, true_db=0.0, tol_db=0.02):
        path = E.asset(name)
        x, rate, _ = E.read_audio(path)
        hop = hop or n // 4
        args = [path, "-n", n, "--hop", hop] + (["-w", win] if win else [])
        rows = self.peaks(args)
        self.assertEqual(len(rows), E.frame_count(len(x), n, hop), "one line per frame")
        for f, row in enumerate(rows):
            self.assertEqual(len(row), 3, "time<TAB>freq<TAB>db: %r" % row)
            t, hz, level = map(float, row)
            self.assertAlmostEqual(t, (f * hop + n / 2) / rate, delta=1e-6)
            self.assertAlmostEqual(level, true_db, delta=tol_db, msg="frame %d dB" % f)
            self.assertLess(abs(hz - true_hz), tol_bins * rate / n,
                            "frame %d: %.4f Hz for a %.4f Hz tone" % (f, hz, true_hz))

    def test_off_bin_sine_windows(self):
        # 1000 Hz = bin 85.333 at N=4096.
        for win in [None] + E.WINDOWS:
            with self.subTest(window=win):
                self.check("sine_1000hz_48k_f32.wav", win, 1000.0)

    def test_off_bin_sine_other_sizes(self):
        for n in (1024, 2048, 16384):
            with self.subTest(n=n):
                self.check("sine_1000hz_48k_f32.wav", "hann", 1000.0, n=n)

    def test_bin_centred_and_96k_and_8bit(self):
        self.check("sine_1125hz_48k_f32.wav", "hann", 1125.0, tol_bins=0.001)
        self.check("two_tone_96k_f32.wav", "blackman", 24000.0, tol_bins=0.001, true_db=20 * np.log10(0.5))
        self.check("sine_513hz_8k_u8.wav", "hann", 263 * 8000 / 4096, true_db=20 * np.log10(0.9),
                   tol_db=0.05)  # 8-bit rounding
        self.check("sine_2250hz_48k_s24.wav", "kaiser", 2250.0, true_db=20 * np.log10(0.9))

    def test_random_off_bin_sines(self):
        """Sines written here at random frequencies (middle half of the band), phases and
        amplitudes, every window, N 1024 .. 16384."""
        rng = np.random.default_rng(1234)
        rate = 48000
        with E.TempDir() as d:
            for win in E.WINDOWS:
                for n in (1024, 4096, 16384):
                    with self.subTest(window=win, n=n):
                        b = n / 8 + rng.random() * n / 4
                        hz, amp = b * rate / n, 10 ** (-2 * rng.random())
                        t = np.arange(2 * n) / rate
                        x = amp * np.sin(2 * np.pi * hz * t + 2 * np.pi * rng.random())
                        path = os.path.join(d, "s.wav")
                        E.write_float_wav(path, x, rate)
                        self.check(path, win, hz, n=n, hop=n // 2, true_db=20 * np.log10(amp))

    def test_peaks_channel_all(self):
        path = E.asset("stereo_1500l_3000r_48k_s16.wav")
        rows = self.peaks([path, "--channel", "all"])
        nf = (24000 - 4096) // 1024 + 1
        self.assertEqual(len(rows), 2 * nf)
        for row in rows:
            self.assertEqual(len(row), 4, "channel<TAB>time<TAB>freq<TAB>db: %r" % row)
        chans = [int(r[0]) for r in rows]
        self.assertIn(chans, ([0] * nf + [1] * nf, [0, 1] * nf), "channel column")
        for r in rows:
            want = 1500.0 if int(r[0]) == 0 else 3000.0
            self.assertAlmostEqual(float(r[2]), want, delta=0.001 * 48000 / 4096)

    def test_peaks_with_dump_file(self):
        # --peaks on stdout and a dump file in the same run.
        path = E.asset("sine_1000hz_48k_f32.wav")
        with E.TempDir() as d:
            out = d + "/o.npy"
            p = E.run([path, "--peaks", "-o", out])
            self.assertEqual(p.returncode, 0, p.stderr)
            a = E.load_npy(self, out)
            self.assertEqual(len(p.stdout.splitlines()), a.shape[0])


if __name__ == "__main__":
    E.main()
