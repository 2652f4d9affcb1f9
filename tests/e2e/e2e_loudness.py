"""--loudness against the EBU test signals (docs/measurements.md "Loudness").

EBU Tech 3341 (loudness metering, "EBU mode") cases 1-6 and EBU Tech 3342 (loudness range)
cases 1-4 are made here from the standards' descriptions: 1 kHz sines, the level of each
channel in dBFS (peak), the segments' lengths. Their expected readings are the standards':
-23.0 / -33.0 / -23.0 / -23.0 / -23.0 / -23.0 LUFS +- 0.1, LRA 10 / 5 / 20 / 15 LU (the
standard allows +- 1; checked to +- 0.5). Then the true peak of a sine whose samples miss
its crest (+0.2 / -0.4 dB, Tech 3341's tolerance), other sample rates (the K-weighting is
made for each), the 100 ms series of --dump, the live lines, and the bad input: shorter
than one 400 ms block.
"""
import json
import os
import subprocess

import numpy as np

import spectro_e2e as e2e

RATE = 48000


def sine_segments(segs, rate=RATE, channels=2, freq=1000.0, gains=None):
    """Consecutive 1 kHz sine segments [(dBFS peak, seconds)], phase-continuous, the same on
    every channel (gains: per-channel dB offsets)."""
    parts, t0 = [], 0
    for db, dur in segs:
        n = int(round(dur * rate))
        t = (np.arange(n) + t0) / rate
        t0 += n
        parts.append(10 ** (db / 20.0) * np.sin(2 * np.pi * freq * t))
    x = np.concatenate(parts)
    g = gains if gains is not None else [0.0] * channels
    return np.stack([x * 10 ** (gi / 20.0) for gi in g], axis=1)


def loudness(tc, d, name, x, rate=RATE, args=()):
    path = os.path.join(d, name)
    e2e.write_float_wav(path, x, rate)
    p = e2e.run(["--loudness", path] + list(args))
    tc.assertEqual(p.returncode, 0, p.stderr)
    lines = p.stdout.splitlines()
    tc.assertEqual(len(lines), 1, p.stdout)
    r = json.loads(lines[0])
    tc.assertEqual(r["input"], path)
    return r


class Tech3341(e2e.unittest.TestCase):
    CASES = [  # (case, segments, expected integrated LUFS)
        (1, [(-23, 20)], -23.0),
        (2, [(-33, 20)], -33.0),
        (3, [(-36, 10), (-23, 60), (-36, 10)], -23.0),
        (4, [(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)], -23.0),
        (5, [(-26, 20), (-20, 20.1), (-26, 20)], -23.0),
    ]

    def test_cases_1_to_5(self):
        with e2e.TempDir() as d:
            for case, segs, want in self.CASES:
                r = loudness(self, d, "case%d.wav" % case, sine_segments(segs))
                self.assertAlmostEqual(r["integrated_lufs"], want, delta=0.1, msg="case %d" % case)
                if case in (1, 2):  # a steady tone: momentary and short-term read the same
                    self.assertAlmostEqual(r["momentary_max_lufs"], want, delta=0.1)
                    self.assertAlmostEqual(r["short_term_max_lufs"], want, delta=0.1)
                    self.assertAlmostEqual(r["sample_peak_dbfs"], want, delta=0.01)

    def test_case_6_surround_weights(self):
        # 5.0: L, R -28 dBFS, C -24 dBFS, Ls, Rs -30 dBFS: the surrounds weigh 1.41
        x = sine_segments([(0, 20)], channels=5, gains=[-28, -28, -24, -30, -30])
        with e2e.TempDir() as d:
            r = loudness(self, d, "case6.wav", x)
        self.assertAlmostEqual(r["integrated_lufs"], -23.0, delta=0.1)

    def test_lfe_excluded_in_5_1(self):
        # 5.1 in the WAV order L R C LFE Ls Rs: a loud LFE changes nothing
        quiet = sine_segments([(0, 5)], channels=6, gains=[-28, -28, -24, -200, -30, -30])
        loud = sine_segments([(0, 5)], channels=6, gains=[-28, -28, -24, -6, -30, -30])
        with e2e.TempDir() as d:
            a = loudness(self, d, "q.wav", quiet)
            b = loudness(self, d, "l.wav", loud)
        self.assertAlmostEqual(a["integrated_lufs"], -23.0, delta=0.1)
        self.assertAlmostEqual(a["integrated_lufs"], b["integrated_lufs"], delta=1e-3)

    def test_other_rates(self):
        # the K-weighting is made for each rate: case 1 reads -23.0 at all of them
        with e2e.TempDir() as d:
            for rate in (22050, 44100, 96000):
                r = loudness(self, d, "r%d.wav" % rate, sine_segments([(-23, 6)], rate=rate), rate=rate)
                self.assertAlmostEqual(r["integrated_lufs"], -23.0, delta=0.1, msg="%d Hz" % rate)

    def test_true_peak_between_samples(self):
        # fs/4 at 45 degrees: every sample at A/sqrt(2), the crest A between them
        n = np.arange(RATE * 2)
        a = 10 ** (-6 / 20.0)
        x = a * np.sin(np.pi / 2 * n + np.pi / 4)
        with e2e.TempDir() as d:
            r = loudness(self, d, "tp.wav", np.stack([x, x], axis=1))
        self.assertAlmostEqual(r["sample_peak_dbfs"], -6 - 3.0103, delta=0.01)
        self.assertGreaterEqual(r["true_peak_dbtp"], -6.4)
        self.assertLessEqual(r["true_peak_dbtp"], -5.8)


# BS.1770-4 Annex 2's interpolation filter, phase by phase (as printed in the standard)
ANNEX2 = np.array([
    [0.0017089843750, 0.0109863281250, -0.0196533203125, 0.0332031250000, -0.0594482421875, 0.1373291015625,
     0.9721679687500, -0.1022949218750, 0.0476074218750, -0.0266113281250, 0.0148925781250, -0.0083007812500],
    [-0.0291748046875, 0.0292968750000, -0.0517578125000, 0.0891113281250, -0.1665039062500, 0.4650878906250,
     0.7797851562500, -0.2003173828125, 0.1015625000000, -0.0582275390625, 0.0330810546875, -0.0189208984375],
    [-0.0189208984375, 0.0330810546875, -0.0582275390625, 0.1015625000000, -0.2003173828125, 0.7797851562500,
     0.4650878906250, -0.1665039062500, 0.0891113281250, -0.0517578125000, 0.0292968750000, -0.0291748046875],
    [-0.0083007812500, 0.0148925781250, -0.0266113281250, 0.0476074218750, -0.1022949218750, 0.9721679687500,
     0.1373291015625, -0.0594482421875, 0.0332031250000, -0.0196533203125, 0.0109863281250, 0.0017089843750]])


def true_peak_ref(x):
    """Every channel through the four phases (np.convolve, zero history), the largest
    magnitude of the interpolated points or of the samples, in dB."""
    peak = np.max(np.abs(x))
    for c in range(x.shape[1]):
        for p in range(4):
            peak = max(peak, np.max(np.abs(np.convolve(x[:, c].astype(np.float32).astype(np.float64), ANNEX2[p]))))
    return 20 * np.log10(peak)


class TruePeak(e2e.unittest.TestCase):
    def test_against_the_annex_filter(self):
        # noise whose loudest stretch comes late, then a short fs/4 burst whose samples
        # stay below the noise's peak while its crest (1.41 times them) is above it: the
        # meter skips stretches that cannot beat its peak so far, which must not skip that
        rng = np.random.default_rng(7)
        n = RATE * 3
        x = 0.05 * rng.standard_normal((n, 2))
        x[RATE:RATE + 4800] *= 5
        at = 2 * RATE + 1234
        burst = np.max(np.abs(x)) * 1.2 * np.sin(np.pi / 2 * np.arange(64) + np.pi / 4)
        x[at:at + 64, 1] = burst
        with e2e.TempDir() as d:
            r = loudness(self, d, "tp.wav", x)
        self.assertAlmostEqual(r["true_peak_dbtp"], true_peak_ref(x), delta=1e-3)
        self.assertAlmostEqual(r["sample_peak_dbfs"], 20 * np.log10(np.max(np.abs(x.astype(np.float32)))),
                               delta=1e-3)


class Tech3342(e2e.unittest.TestCase):
    CASES = [
        (1, [(-20, 20), (-30, 20)], 10.0),
        (2, [(-20, 20), (-15, 20)], 5.0),
        (3, [(-40, 20), (-20, 20)], 20.0),
        (4, [(-50, 20), (-35, 20), (-20, 20), (-35, 20), (-50, 20)], 15.0),
    ]

    def test_cases_1_to_4(self):
        # mono (the standard's are stereo, the same on both): a range is a difference of levels
        with e2e.TempDir() as d:
            for case, segs, want in self.CASES:
                r = loudness(self, d, "lra%d.wav" % case, sine_segments(segs, channels=1))
                self.assertAlmostEqual(r["loudness_range_lu"], want, delta=0.5, msg="case %d" % case)

    def test_short_input_has_no_range(self):
        with e2e.TempDir() as d:
            r = loudness(self, d, "short.wav", sine_segments([(-23, 2)]))
        self.assertIsNone(r["loudness_range_lu"])
        self.assertIsNone(r["short_term_max_lufs"])
        self.assertAlmostEqual(r["integrated_lufs"], -23.0, delta=0.1)


class Outputs(e2e.unittest.TestCase):
    def test_dump_series(self):
        x = sine_segments([(-30, 4), (-20, 4)])
        with e2e.TempDir() as d:
            wav = os.path.join(d, "s.wav")
            e2e.write_float_wav(wav, x, RATE)
            for ext in ("npy", "csv"):
                out = os.path.join(d, "s." + ext)
                p = e2e.run(["--loudness", wav, "--dump", out])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(len(p.stdout.splitlines()), 1)  # the JSON line still comes
                meta = e2e.load_json(self, out + ".json")
                self.assertEqual(meta["series"], "loudness")
                self.assertEqual(meta["columns"], ["momentary_lufs", "short_term_lufs"])
                self.assertAlmostEqual(meta["time_step_s"], 0.1)
                if ext == "npy":
                    s = np.load(out)
                else:
                    with open(out) as f:
                        self.assertEqual(f.readline().strip(), "time_s,momentary_lufs,short_term_lufs")
                    s = np.genfromtxt(out, delimiter=",", skip_header=1)[:, 1:]
                self.assertEqual(s.shape, (80, 2))  # 8 s in 100 ms steps
                self.assertTrue(np.all(np.isnan(s[:3, 0])) and np.all(np.isnan(s[:29, 1])))
                # momentary: the 400 ms blocks within each level
                np.testing.assert_allclose(s[3:40, 0], -30.0, atol=0.1)
                np.testing.assert_allclose(s[43:, 0], -20.0, atol=0.1)
                # short-term: the 3 s block wholly in the second part
                np.testing.assert_allclose(s[69:, 1], -20.0, atol=0.1)
                self.assertTrue(np.all(s[30:39, 1] < -29.9) and np.all(s[30:39, 1] > -30.1))

    def test_dump_stdout_refused(self):
        with e2e.TempDir() as d:
            wav = os.path.join(d, "s.wav")
            e2e.write_float_wav(wav, sine_segments([(-20, 1)]), RATE)
            p = e2e.run(["--loudness", wav, "--dump", "-"])
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "")
        self.assertEqual(len(e2e.stderr_lines(p)), 1, p.stderr)

    def test_live_pipe_lines(self):
        # a pipe is live: a line a second (time_s, momentary, short-term), then the whole run's
        x = sine_segments([(-23, 4.5)]).astype("<f4")
        p = subprocess.run([e2e.BIN, "--loudness", "--raw-format", "f32le,48000,2", "-"],
                           input=x.tobytes(), capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [json.loads(l) for l in p.stdout.decode().splitlines()]
        self.assertEqual([l.get("time_s") for l in lines[:-1]], [1, 2, 3, 4])
        for l in lines[:-1]:
            self.assertAlmostEqual(l["momentary_lufs"], -23.0, delta=0.1)
        self.assertIsNone(lines[0]["short_term_lufs"])
        self.assertAlmostEqual(lines[3]["short_term_lufs"], -23.0, delta=0.1)
        self.assertAlmostEqual(lines[-1]["integrated_lufs"], -23.0, delta=0.1)

    def test_batch_lines_name_inputs(self):
        with e2e.TempDir() as d:
            paths = []
            for i, db in enumerate((-20, -30)):
                paths.append(os.path.join(d, "b%d.wav" % i))
                e2e.write_float_wav(paths[-1], sine_segments([(db, 1)]), RATE)
            p = e2e.run(["--loudness"] + paths)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = [json.loads(l) for l in p.stdout.splitlines()]
        self.assertEqual([g["input"] for g in got], paths)
        self.assertAlmostEqual(got[0]["integrated_lufs"] - got[1]["integrated_lufs"], 10.0, delta=0.05)


ASOUND = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "alsa", "asound.conf")


class Microphone(e2e.unittest.TestCase):
    @e2e.unittest.skipUnless(os.environ.get("SPECTRO_TEST_MIC"), "no ALSA test device (SPECTRO_TEST_MIC unset)")
    def test_microphone_lines(self):
        """The microphone through ALSA's file plugin (tests/alsa/asound.conf, as e2e_measure):
        a 0.5 sine at 1 kHz, mono, reads 20 log10(0.5) - 3.01 = -9.03 LUFS; a line a second,
        then the run's line. The plugin has no clock, so the device outruns any reader and
        drops what the ring cannot hold (counted); the meter takes what reached the ring."""
        with e2e.TempDir() as d:
            raw = os.path.join(d, "sine.raw")
            t = np.arange(RATE * 60) / RATE
            with open(raw, "wb") as f:
                f.write((0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype("<f4").tobytes())
            env = dict(os.environ, ALSA_CONFIG_PATH=ASOUND, SPECTRO_TEST_SINE=raw,
                       JACK_DEFAULT_SERVER="spectro-test-no-server")
            p = e2e.run(["--duration", "3.5", "--loudness", "--rate", RATE, "-q"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [json.loads(l) for l in p.stdout.splitlines()]
        live, last = lines[:-1], lines[-1]
        self.assertTrue(1 <= len(live) <= 3, lines)
        self.assertEqual([l["time_s"] for l in live], list(range(1, len(live) + 1)))
        for l in live:
            self.assertAlmostEqual(l["momentary_lufs"], -9.03, delta=0.1)
        self.assertAlmostEqual(last["integrated_lufs"], -9.03, delta=0.1)
        self.assertAlmostEqual(last["sample_peak_dbfs"], -6.02, delta=0.05)


class BadInput(e2e.unittest.TestCase):
    def test_shorter_than_a_block(self):
        with e2e.TempDir() as d:
            wav = os.path.join(d, "short.wav")
            e2e.write_float_wav(wav, sine_segments([(-20, 0.35)]), RATE)
            out = os.path.join(d, "series.npy")
            before = e2e.listing(d)
            p = e2e.run(["--loudness", wav, "--dump", out])
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stdout, "")
            lines = e2e.stderr_lines(p)
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn("0.4 s", lines[0])
            self.assertEqual(e2e.listing(d), before)

    def test_not_with_average(self):
        with e2e.TempDir() as d:
            wav = os.path.join(d, "s.wav")
            e2e.write_float_wav(wav, sine_segments([(-20, 1)]), RATE)
            p = e2e.run(["--loudness", wav, "--average", "mean", "--dump", os.path.join(d, "x.npy")])
            self.assertEqual(p.returncode, 2)
            self.assertEqual(len(e2e.stderr_lines(p)), 1, p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "x.npy")))


if __name__ == "__main__":
    e2e.main()
