#!/usr/bin/python3
"""--channel K|all|mix on stereo, 8-channel and (generated) 1024-channel files."""
import math
import os
import unittest

import numpy as np

import spectro_e2e as E

DB_HALF = 20 * math.log10(0.5)


class Channels(unittest.TestCase):
    def test_stereo(self):
        path = E.asset("stereo_1500l_3000r_48k_s16.wav")  # L: bin 128 at 0.5; R: bin 256 at 0.25
        x, rate, _ = E.read_audio(path)
        nf = (24000 - 4096) // 1024 + 1
        for ch, tone, quiet, level in (("0", 128, 256, DB_HALF), ("1", 256, 128, DB_HALF - 6.0206)):
            with self.subTest(channel=ch):
                a, meta, _ = E.dump(self, [path, "--channel", ch])
                E.check_meta(self, meta, path, rate, 2, 24000, channel=int(ch))
                self.assertEqual(a.shape, (nf, 2049))
                self.assertLess(float(np.abs(a[:, tone] - level).max()), 0.01)
                self.assertLess(float(a[:, quiet].max()), -100, "other channel leaks in")
                E.assert_db_close(self, a, E.reference(x, channel=int(ch)), "channel " + ch)
        a, meta, _ = E.dump(self, [path, "-c", "all"])
        E.check_meta(self, meta, path, rate, 2, 24000, channel="all")
        self.assertEqual(a.shape, (2, nf, 2049))
        E.assert_db_close(self, a, E.reference(x, channel="all"), "channel all")
        for spec in ([], ["--channel", "mix"]):
            a, meta, _ = E.dump(self, [path] + spec)
            E.check_meta(self, meta, path, rate, 2, 24000, channel="mix")
            self.assertLess(float(np.abs(a[:, 128] - (DB_HALF - 6.0206)).max()), 0.01)
            self.assertLess(float(np.abs(a[:, 256] - (DB_HALF - 12.0412)).max()), 0.01)
            E.assert_db_close(self, a, E.reference(x), "mix")

    def test_mono_channel_all_keeps_the_channel_axis(self):
        path = E.asset("sine_1125hz_48k_f32.wav")
        x, rate, _ = E.read_audio(path)
        a, meta, _ = E.dump(self, [path, "--channel", "all"])
        E.check_meta(self, meta, path, rate, 1, 24000, channel="all")
        self.assertEqual(a.shape, (1, (24000 - 4096) // 1024 + 1, 2049),
                         "--channel all dumps (channels, frames, bins) even for one channel")
        E.assert_db_close(self, a, E.reference(x, channel="all"), "mono all")
        text, _, _ = E.dump(self, [path, "--channel", "all"], out_name="out.csv")
        self.assertTrue(text.startswith("channel,time_s,"),
                        "--channel all CSV header starts channel,time_s: %r" % text[:30])
        a, meta, _ = E.dump(self, [path, "--channel", "0"])
        self.assertEqual(meta["channel"], 0)
        E.assert_db_close(self, a, E.reference(x), "mono channel 0")

    def test_eight_channels(self):
        path = E.asset("eight_channels_48k_s16.wav")  # channel c: bin 32(c+1) at 0.5
        x, rate, _ = E.read_audio(path)
        a, meta, _ = E.dump(self, [path, "--channel", "all"])
        E.check_meta(self, meta, path, rate, 8, 12000, channel="all")
        self.assertEqual(a.shape, (8, (12000 - 4096) // 1024 + 1, 2049))
        for c in range(8):
            self.assertTrue((np.argmax(a[c], axis=1) == 32 * (c + 1)).all(), "channel %d" % c)
            self.assertLess(float(np.abs(a[c, :, 32 * (c + 1)] - DB_HALF).max()), 0.01)
        E.assert_db_close(self, a, E.reference(x, channel="all"), "8ch all")
        a, _, _ = E.dump(self, [path, "--channel", "7"])
        E.assert_db_close(self, a, E.reference(x, channel=7), "8ch channel 7")
        self.assertTrue((np.argmax(a, axis=1) == 256).all())
        a, _, _ = E.dump(self, [path])
        E.assert_db_close(self, a, E.reference(x), "8ch mix")
        for c in range(8):  # each tone at 0.5/8 in the mean
            self.assertLess(float(np.abs(a[:, 32 * (c + 1)] - (DB_HALF - 18.0618)).max()), 0.01)

    def test_1024_channels(self):
        n, rate, chans = 4096, 48000, 1024
        t = np.arange(n) / rate
        # channel c: bin c+1 at 0.5 (cosine, so channel mixes do not cancel)
        x = 0.5 * np.cos(2 * np.pi * np.outer(t, (np.arange(chans) + 1) * rate / n))
        with E.TempDir() as d:
            path = os.path.join(d, "ch1024.wav")
            E.write_float_wav(path, x, rate)
            xr, _, _ = E.read_wav(path)
            a, meta, _ = E.dump(self, [path, "-c", "all"])
            E.check_meta(self, meta, path, rate, chans, n, channel="all")
            self.assertEqual(a.shape, (chans, 1, n // 2 + 1))
            self.assertTrue((np.argmax(a[:, 0, :], axis=1) == np.arange(chans) + 1).all())
            self.assertLess(float(np.abs(a[np.arange(chans), 0, np.arange(chans) + 1]
                                         - DB_HALF).max()), 0.01)
            E.assert_db_close(self, a, E.reference(xr, channel="all"), "1024ch all")
            a, _, _ = E.dump(self, [path, "-c", "1023"])
            E.assert_db_close(self, a, E.reference(xr, channel=1023), "1024ch channel 1023")
            a, _, _ = E.dump(self, [path])
            E.assert_db_close(self, a, E.reference(xr), "1024ch mix")

    def test_frames_across_the_rings_wrap(self):
        # 3 channels through the 8M-sample ring (2^23 floats) between the reader and the
        # analysis: a frame of three samples straddles the wrap at frame 2796202, where the
        # analysis, which reads the ring in place, takes that one frame through its buffer.
        # A sample lost, doubled or shifted there changes every later noise spectrum.
        rate, frames = 8000, 3000000
        x = np.random.default_rng(3).uniform(-0.5, 0.5, (frames, 3)).astype(np.float32)
        with E.TempDir() as d:
            multi, mono = os.path.join(d, "three.wav"), os.path.join(d, "one.wav")
            args = ["-n", "1024", "--hop", "1024"]
            E.write_float_wav(multi, x, rate)
            for c in (0, 2):
                E.write_float_wav(mono, x[:, c:c + 1], rate)
                a, _, _ = E.dump(self, [multi, "--channel", str(c)] + args)
                b, _, _ = E.dump(self, [mono] + args)
                self.assertEqual(a.shape, (frames // 1024, 513))
                self.assertTrue(np.array_equal(a, b), "channel %d of 3 against the same samples alone" % c)


if __name__ == "__main__":
    E.main()
