#!/usr/bin/python3
"""Damaged input that is still analysed: NaN/Inf samples, a truncated WAV."""
import os
import struct
import unittest
import wave

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

    def test_double_beyond_float(self):
        """A 64-bit float WAV's finite 1e300 is out of range, not NaN/Inf: clamped to float's
        largest, as a float file's huge samples stay finite, so its frames are loud, not
        silence, and every level is finite."""
        rate = 48000
        x = 0.5 * np.sin(2 * np.pi * 1000.0 * np.arange(rate) / rate)
        x[20000:20010] = 1e300
        x[30000] = -1e300
        data = x.astype("<f8").tobytes()
        fmt = struct.pack("<HHIIHHH", 3, 1, rate, rate * 8, 8, 64, 0)
        chunks = (b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"fact" + struct.pack("<II", 4, rate) +
                  b"data" + struct.pack("<I", len(data)) + data)
        with E.TempDir() as d:
            path = os.path.join(d, "huge_f64.wav")
            with open(path, "wb") as f:
                f.write(b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks)
            a, meta, p = E.dump(self, [path], expect_warning=True)
            warn = E.stderr_lines(p)
            self.assertEqual(len(warn), 1, p.stderr)
            self.assertIn("11 samples out of range", warn[0])
            self.assertNotIn("NaN", warn[0])
            self.assertEqual(meta["nonfinite_samples"], 0)
            self.assertTrue(np.isfinite(a).all())
            t = meta["time_first_s"] + meta["time_step_s"] * np.arange(a.shape[0])
            hit = np.abs(t - 20005 / rate) < 2048 / rate  # frames that hold the huge run
            self.assertTrue(hit.any())
            self.assertTrue((a[hit].max(axis=1) > 600).all(), a[hit].max(axis=1))

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

    def test_duration_is_not_truncation(self):
        """--duration stops reading early on purpose: no 'truncated' warning or flag. The
        file is longer than what the reader reads ahead (32 MB of samples), so the reading
        really stops before the end."""
        rate, secs = 48000, 200
        with E.TempDir() as d:
            path = os.path.join(d, "long.wav")
            t = np.arange(rate * secs) / rate
            pcm = (0.5 * 32767 * np.sin(2 * np.pi * 1000.0 * t)).astype("<i2")
            with wave.open(path, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(rate)
                w.writeframes(pcm.tobytes())
            a, meta, p = E.dump(self, [path, "--duration", "1"], cwd=d)
            self.assertFalse(meta["truncated"], meta)
            self.assertEqual(a.shape[0], E.frame_count(rate, 4096, 1024))

if __name__ == "__main__":
    E.main()
