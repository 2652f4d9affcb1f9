#!/usr/bin/python3
"""A file shorter than N gives one zero-padded frame, windowed over the samples present and
timed at their centre; silence reads -200 dB everywhere."""
import json
import os
import subprocess
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
                self.assertAlmostEqual(meta["time_first_s"], 3000 / 2 / rate, delta=1e-9)
                E.assert_db_close(self, a, E.reference(x, n, None, win), "short n=%d" % n)
        # n = 2048 < 3000: ordinary framing, no padding.
        a, meta, _ = E.dump(self, [path, "-n", 2048, "--hop", 100])
        self.assertEqual(a.shape, ((3000 - 2048) // 100 + 1, 1025))
        E.assert_db_close(self, a, E.reference(x, 2048, 100), "short n=2048")

    def short_sine(self, d, secs, rate=48000, f=1000.0):
        path = os.path.join(d, "sine_%gs.wav" % secs)
        t = np.arange(int(round(secs * rate))) / rate
        E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * f * t), rate)
        return path

    def test_short_sine_levels_and_time(self):
        """A 0.05 s sine (2400 samples < N = 4096, off the bins): --peaks reads its level,
        not the cut window's (-9.66 dB), at the samples' centre; --tone finds it clean; a note
        says it once (none with -q)."""
        with E.TempDir() as d:
            path = self.short_sine(d, 0.05)
            for win in ("hann", "blackman-harris", "flattop", "rect"):
                with self.subTest(window=win):
                    p = E.run([path, "--peaks", "-w", win])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    rows = [l.split("\t") for l in p.stdout.splitlines()]
                    self.assertEqual(len(rows), 1, p.stdout)
                    t, f, db = map(float, rows[0])
                    self.assertAlmostEqual(t, 0.025, places=6)
                    self.assertAlmostEqual(db, -6.0206, delta=0.05)
                    self.assertAlmostEqual(f, 1000.0, delta=0.05 * 48000 / 4096)
                    notes = [l for l in p.stderr.splitlines() if "fewer than --fft-size 4096" in l]
                    self.assertEqual(len(notes), 1, p.stderr)
                    self.assertTrue(notes[0].startswith("spectro: note: " + path + ": 2400 samples"), notes[0])
            self.assertEqual(E.run([path, "--peaks", "-q"]).stderr, "")
            p = E.run([path, "--tone", "-q"])
            self.assertEqual(p.returncode, 0, p.stderr)
            tone = json.loads(p.stdout)
            self.assertAlmostEqual(tone["fundamental_dbfs"], -6.0206, delta=0.05)
            self.assertLess(tone["thd_db"], -100.0, tone)
            # the dump's sidecar: the frame's time is the samples' centre
            a, meta, _ = E.dump(self, [path])
            self.assertEqual(a.shape, (1, 2049))
            self.assertAlmostEqual(meta["time_first_s"], 0.025, delta=1e-9)

    def test_frame_inside_the_input(self):
        """-n 2^22 on a 10 s file: one frame, at 5 s (not 43.69 s, past the end); also after
        --start, where the time counts from the input's start."""
        with E.TempDir() as d:
            path = self.short_sine(d, 10.0)
            p = E.run([path, "-q", "-n", 1 << 22, "--peaks"])
            self.assertEqual(p.returncode, 0, p.stderr)
            rows = [l.split("\t") for l in p.stdout.splitlines()]
            self.assertEqual(len(rows), 1, p.stdout)
            self.assertAlmostEqual(float(rows[0][0]), 5.0, places=6)
            self.assertAlmostEqual(float(rows[0][2]), -6.0206, delta=0.05)
            p = E.run([path, "-q", "-n", 1 << 22, "--peaks", "--start", "4", "--duration", "2"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertAlmostEqual(float(p.stdout.split("\t")[0]), 5.0, places=6)

    def test_short_pipe_is_noted(self):
        """A pipe has no length ahead: the frame keeps the N-point window, and the
        note says its levels read low and which -n fits."""
        with E.TempDir() as d:
            path = self.short_sine(d, 0.05)
            with open(path, "rb") as f:
                data = f.read()
            p = subprocess.run([E.BIN, "--peaks", "-"], input=data, capture_output=True, timeout=60)
            p.stderr = p.stderr.decode()
            self.assertEqual(p.returncode, 0, p.stderr)
            notes = [l for l in p.stderr.splitlines() if "fewer than --fft-size 4096" in l]
            self.assertEqual(len(notes), 1, p.stderr)
            self.assertIn("read low", notes[0])
            self.assertIn("--fft-size 2048", notes[0])

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
