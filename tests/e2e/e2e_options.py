#!/usr/bin/python3
"""Non-default --fft-size, --hop and --window against the reference, with the JSON; --fmin/--fmax
(narrower than a bin; above Nyquist: clipped for every output, noted under -v)."""
import json
import os
import unittest

import numpy as np

import spectro_e2e as E


class Options(unittest.TestCase):
    def check(self, name, n, hop, win, extra=()):
        path = E.asset(name)
        x, rate, _ = E.read_audio(path)
        args = [path, "-n", n] + (["--hop", hop] if hop else []) + (["-w", win] if win else [])
        a, meta, _ = E.dump(self, args + list(extra))
        E.check_meta(self, meta, path, rate, x.shape[1], x.shape[0], n=n, hop=hop,
                     win=win or "hann")
        E.assert_db_close(self, a, E.reference(x, n, hop, win or "hann"),
                          "%s %s" % (name, " ".join(map(str, args[1:]))))

    def test_every_window_on_chirp(self):
        for win in E.WINDOWS + ["kaiser:3.5", "gauss:0.25"]:
            with self.subTest(window=win):
                self.check("chirp_100_20k_48k_s16.wav", 512, None, win)

    def test_long_options_and_short_options_agree(self):
        path = E.asset("two_tone_48k_s16.wav")
        a1, m1, _ = E.dump(self, [path, "-n", "2048", "-w", "blackman"])
        a2, m2, _ = E.dump(self, [path, "--fft-size", "2048", "--window", "blackman"])
        self.assertEqual(m1, m2)
        self.assertTrue((a1 == a2).all())

    def test_sizes_and_hops(self):
        cases = [
            ("chirp_100_20k_48k_s16.wav", 16, 1, "rect"),        # smallest N, hop 1
            ("chirp_100_20k_48k_s16.wav", 1024, 333, "kaiser:5"),  # hop not dividing N
            ("two_tone_48k_s16.wav", 8192, 8192, "flattop"),      # hop == N
            ("two_tone_48k_s16.wav", 256, 1000, "hamming"),       # hop > N: gaps
            ("demo.flac", 65536, None, "blackman-harris"),
            ("sine_1000hz_48k_f32.wav", 2048, 7, "gauss"),        # small odd hop
        ]
        for name, n, hop, win in cases:
            with self.subTest(asset=name, n=n, hop=hop, window=win):
                self.check(name, n, hop, win)

    def test_fft_size_bigger_than_file(self):
        # 24000 samples < 2^20: one zero-padded frame of a million points.
        self.check("two_tone_48k_s16.wav", 1 << 20, None, None)
        self.check("sine_513hz_8k_u8.wav", 1 << 22, None, "blackman")  # the largest N

    def test_numbers_as_people_write_them(self):
        """Numbers in the sidecar and in messages read as people write them ("kaiser:20", not
        "kaiser:2e+01"; "19950 Hz", not "1.995e+04 Hz"); a range with no real top says only
        its bottom; -n 16 --tone blames -n, which was given, not --fmin/--fmax, which were not."""
        path = E.asset("two_tone_48k_s16.wav")
        _, meta, _ = E.dump(self, [path, "-n", "1024", "-w", "kaiser:20"])
        self.assertEqual(meta["window"], "kaiser:20")
        with E.TempDir() as d:
            for args, want in ((["--hop", "0", "--peaks"], "--hop 0: must be at least 1"),
                               (["-n", "0", "--peaks"], "-n 0: must be a power of two from 16 to 4194304"),
                               (["--bands", "3", "-n", "16", "--dump", "b.csv"], "resolves the 19950 Hz band"),
                               (["-n", "16", "--tone"], "--fft-size 16: too small for a tone analysis"),
                               (["-n", "16", "-w", "kaiser:20", "--dump", "x.csv", "-v"], None)):
                p = E.run(args + [path], cwd=d)
                if want is None:  # the status line under -v
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertIn("kaiser:20", p.stderr)
                    self.assertNotIn("e+01", p.stderr)
                    continue
                self.assertEqual(p.returncode, 2, (args, p.stderr))
                lines = E.stderr_lines(p)
                self.assertEqual(len(lines), 1, (args, p.stderr))
                self.assertIn(want, lines[0], args)
                for wrong in ("e+0", "1099511627776", "--fmin"):
                    self.assertNotIn(wrong, lines[0], args)

    def test_explicit_cpu_backend(self):
        path = E.asset("two_tone_48k_s16.wav")
        _, meta, _ = E.dump(self, [path, "-b", "cpu"])
        self.assertEqual(meta["backend"], "cpu")

    def test_picture_zoom_narrower_than_a_bin(self):
        """--fmin/--fmax narrower than one bin: the picture interpolates and is drawn; only
        --peaks, which searches whole bins, refuses it (the check once ran for pictures too)."""
        path = E.asset("sine_513hz_8k_u8.wav")
        with E.TempDir() as d:
            png = os.path.join(d, "z.png")
            p = E.run([path, "-q", "-n", "16", "--fmin", "3800", "--fmax", "3900", "--png", png])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(os.path.getsize(png) > 0)
            p = E.run([path, "-q", "-n", "16", "--fmin", "3800", "--fmax", "3900", "--peaks"])
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("--fmin", p.stderr)

    def test_fmax_above_nyquist_is_clipped(self):
        """--fmax above an input's Nyquist frequency: one rule for every output (clipped to
        Nyquist), noted only under -v, per file in a batch. 6 kHz is above the 8 kHz file's
        Nyquist (4 kHz) and below the 48 kHz file's."""
        lo, hi = E.asset("sine_513hz_8k_u8.wav"), E.asset("two_tone_48k_s16.wav")
        note = "--fmax 6000 Hz is above the Nyquist frequency: clipped to 4000 Hz"
        with E.TempDir() as d:
            p = E.run([lo, hi, "--fmax", "6000", "--png", os.path.join(d, "{stem}.png"), "-q"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr, "")
            self.assertEqual(E.listing(d), {"sine_513hz_8k_u8.png", "two_tone_48k_s16.png"})
            p = E.run([lo, hi, "--fmax", "6000", "--png", os.path.join(d, "{stem}.png"), "-v"])
            self.assertEqual(p.returncode, 0, p.stderr)
            notes = [l for l in p.stderr.splitlines() if "Nyquist" in l]
            self.assertEqual(notes, ["spectro: %s: %s" % (lo, note)], p.stderr)
        # the peaks searched up to Nyquist, as without --fmax; the tone's band ends there
        plain = E.run([lo, "--peaks", "-q"])
        for extra in (["--peaks"], ["--tone"]):
            with self.subTest(output=extra[0]):
                p = E.run([lo, "--fmax", "6000"] + extra)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual([l for l in E.stderr_lines(p) if "Nyquist" in l], [])
                p = E.run([lo, "--fmax", "6000", "-v"] + extra)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("spectro: %s: %s" % (lo, note), p.stderr.splitlines())
                if extra == ["--peaks"]:
                    self.assertEqual(p.stdout, plain.stdout)
                else:
                    self.assertEqual(json.loads(p.stdout)["band_hz"], [20, 4000])

    @E.needs_hooks
    def test_picture_from_column_maxima(self):
        """A picture with more frames than columns fed column maxima (a GPU computes them
        beside its FFT; the test hook SPECTRO_TEST_MAXIMA=host makes them on the host here)
        is byte for byte the one fed every spectrum. The maxima are drawn on the picture's
        own thread from the framer's two buffers in turn: many blocks (a batch is 255
        frames on the cpu backend), groups split across blocks, several channels."""
        rate = 48000
        t = np.arange(40 * rate) / rate
        x = 0.4 * np.sin(2 * np.pi * (100 * t + 250 * t * t))
        x += 0.01 * np.random.default_rng(5).standard_normal(t.size)
        st = np.stack([x, np.roll(x, 4321) * 0.5], axis=1).astype(np.float32)
        with E.TempDir() as d:
            path = os.path.join(d, "sweep.wav")
            E.write_float_wav(path, st, rate)
            for args in (["-n", "2048", "--hop", "37"], ["-n", "1024", "--hop", "16", "--channel", "all"]):
                pics = []
                for env in ({}, {"SPECTRO_TEST_MAXIMA": "host"}):
                    png = os.path.join(d, "m%d.png" % len(pics))
                    p = E.run([path, "-v", "-b", "cpu", "--png", png] + args, env=dict(os.environ, **env))
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual("picture: the maxima" in p.stderr, bool(env), p.stderr)
                    with open(png, "rb") as f:
                        pics.append(f.read())
                self.assertTrue(pics[0] == pics[1], "%s: the picture from maxima differs" % args)


if __name__ == "__main__":
    E.main()
