#!/usr/bin/python3
"""Absolute levels in dBFS: full-scale bin-centred sine reads 0 dB with every window,
known tones in 16-bit, 24-bit, 8-bit, FLAC and 96 kHz files read their amplitude."""
import math
import unittest

import numpy as np

import spectro_e2e as E


def db(a):
    return 20 * math.log10(a)


class Levels(unittest.TestCase):
    def tone_level(self, a, k, expected, what, tol=0.01):
        got = a[..., k]
        self.assertLess(float(np.abs(got - expected).max()), tol,
                        "%s: bin %d reads %.4f..%.4f dB, expected %.4f"
                        % (what, k, got.min(), got.max(), expected))
        # The tone is the strongest bin in every frame.
        self.assertTrue((np.argmax(a, axis=-1) == k).all(), what + ": strongest bin")

    def test_full_scale_sine_every_window(self):
        path = E.asset("sine_1125hz_48k_f32.wav")  # bin 96, peak 1.0
        for win in E.WINDOWS + ["kaiser:14", "gauss:0.3"]:
            with self.subTest(window=win):
                a, meta, _ = E.dump(self, [path, "-w", win])
                self.assertEqual(meta["frames"], (24000 - 4096) // 1024 + 1)
                self.tone_level(a, 96, 0.0, win)

    def test_full_scale_sine_other_sizes(self):
        path = E.asset("sine_1125hz_48k_f32.wav")  # 1125 Hz = bin 96*n/4096
        for n in (512, 1024, 8192, 16384):
            with self.subTest(n=n):
                a, _, _ = E.dump(self, [path, "-n", n])
                self.tone_level(a, 96 * n // 4096, 0.0, "n=%d" % n)

    def test_two_tone_16bit_and_flac(self):
        for name in ("two_tone_48k_s16.wav", "two_tone_48k.flac"):
            with self.subTest(asset=name):
                a, _, _ = E.dump(self, [E.asset(name)])
                self.tone_level(a, 64, db(0.5), name)  # 750 Hz at 0.5
                got = a[:, 512]                         # 6000 Hz at 0.25
                self.assertLess(float(np.abs(got - db(0.25)).max()), 0.01, name + ": bin 512")

    def test_two_tone_ogg_is_close(self):
        # Lossy: levels within 0.2 dB only.
        a, _, _ = E.dump(self, [E.asset("two_tone_48k.ogg")])
        self.assertLess(float(np.abs(a[1:-1, 64] - db(0.5)).max()), 0.2)
        self.assertLess(float(np.abs(a[1:-1, 512] - db(0.25)).max()), 0.2)

    def test_24bit(self):
        a, _, _ = E.dump(self, [E.asset("sine_2250hz_48k_s24.wav")])
        self.tone_level(a, 192, db(0.9), "24-bit")

    def test_8bit(self):
        a, meta, _ = E.dump(self, [E.asset("sine_513hz_8k_u8.wav")])
        self.assertEqual(meta["sample_rate"], 8000)
        self.tone_level(a, 263, db(0.9), "8-bit")

    def test_96k(self):
        path = E.asset("two_tone_96k_f32.wav")
        a, meta, _ = E.dump(self, [path])
        self.assertEqual(meta["sample_rate"], 96000)
        self.assertEqual(meta["bin_hz"], 96000 / 4096)
        self.assertEqual(a.shape, ((24000 - 4096) // 1024 + 1, 2049))
        self.tone_level(a, 1024, db(0.5), "24 kHz at 96k")
        # 40 kHz = bin 1706.67: above Nyquist of 48k material, present here.
        self.assertTrue((np.abs(np.argmax(a[:, 1200:], axis=1) + 1200 - 1706.67) <= 1).all())
        x, rate, _ = E.read_audio(path)
        E.assert_db_close(self, a, E.reference(x), "96k")


if __name__ == "__main__":
    E.main()
