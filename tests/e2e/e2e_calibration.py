"""--calibration, --spl-offset and --calibrate (docs/measurements.md "Calibration and SPL").

A calibration file's response, interpolated on log frequency and held beyond its ends, is
subtracted from every level: the dump's spectra against the uncalibrated dump less the
response computed here at each bin; --peaks and --tone at their frequencies; --bands
through its calibrated spectra. --spl-offset adds a constant (the sidecar then says dB
SPL); --calibrate LEVEL@FREQ prints the offset that makes a calibrator's tone read LEVEL.
Bad files name their line, exit 2, write nothing; non-finite offsets exit 2.
"""
import json
import os

import numpy as np

import spectro_e2e as e2e

RATE = 48000

CAL = """"Sens Factor =-1.5dB, SERNO: 7000000"
* a comment
; another
100\t0.0\t0
1000,4.0,10
10000 10.0
"""


def response_db(hz):
    """The file above at hz: log-frequency interpolation, held beyond the ends, + Sens Factor."""
    f = np.array([100.0, 1000.0, 10000.0])
    d = np.array([0.0, 4.0, 10.0])
    hz = np.clip(np.asarray(hz, dtype=np.float64), f[0], f[-1])
    return np.interp(np.log(hz), np.log(f), d) - 1.5


def sine(d, freq, db=-20.0, seconds=1.0):
    t = np.arange(int(RATE * seconds)) / RATE
    path = os.path.join(d, "s%g.wav" % freq)
    e2e.write_float_wav(path, 10 ** (db / 20) * np.sin(2 * np.pi * freq * t), RATE)
    return path


class Calibration(e2e.unittest.TestCase):
    def test_dump_less_the_response_at_every_bin(self):
        with e2e.TempDir() as d:
            cal = os.path.join(d, "mic.txt")
            with open(cal, "w") as f:
                f.write(CAL)
            wav = sine(d, 3000.0)
            for args, off in (([], 0.0), (["--spl-offset", "94"], 94.0)):
                raw, got = os.path.join(d, "raw.npy"), os.path.join(d, "cal.npy")
                self.assertEqual(e2e.run(["-q", "-b", "cpu", "--dump", raw, wav]).returncode, 0)
                p = e2e.run(["-q", "-b", "cpu", "--dump", got, "--calibration", cal, wav] + args)
                self.assertEqual(p.returncode, 0, p.stderr)
                a, b = np.load(raw), np.load(got)
                hz = np.arange(a.shape[1]) * RATE / 4096.0
                np.testing.assert_allclose(b, a - response_db(hz)[None, :] + off, atol=2e-3)
                meta = e2e.load_json(self, got + ".json")
                self.assertEqual(meta.get("level_unit"), "dB SPL" if off else None)

    def test_peaks_and_tone_at_their_frequency(self):
        with e2e.TempDir() as d:
            cal = os.path.join(d, "mic.txt")
            with open(cal, "w") as f:
                f.write(CAL)
            for freq in (50.0, 1000.0, 2000.0, 15000.0):  # below, on, between, beyond the rows
                wav = sine(d, freq)
                p = e2e.run(["-q", "--peaks", "--calibration", cal, "--spl-offset", "10", wav])
                self.assertEqual(p.returncode, 0, p.stderr)
                levels = [float(l.split("\t")[2]) for l in p.stdout.splitlines()]
                want = -20.0 - response_db(freq) + 10.0
                self.assertTrue(all(abs(v - want) <= 0.02 for v in levels), (freq, levels[:3], want))
                t = json.loads(e2e.run(["-q", "--tone", "--calibration", cal, wav]).stdout)
                self.assertAlmostEqual(t["fundamental_dbfs"], -20.0 - response_db(freq), delta=0.05)

    def test_calibrate(self):
        with e2e.TempDir() as d:
            wav = sine(d, 1000.0, db=-26.0)
            r = json.loads(e2e.run(["-q", "--calibrate", "94@1000", wav]).stdout)
            self.assertAlmostEqual(r["spl_offset_db"], 120.0, delta=0.01)
            self.assertAlmostEqual(r["measured_db"], -26.0, delta=0.01)
            # the offset it prints makes the tone read the calibrator's level
            t = json.loads(e2e.run(["-q", "--tone", "--spl-offset", "%.4f" % r["spl_offset_db"], wav]).stdout)
            self.assertAlmostEqual(t["fundamental_dbfs"], 94.0, delta=0.01)


class BadInput(e2e.unittest.TestCase):
    def expect_refused(self, args, d, *words):
        before = e2e.listing(d)
        p = e2e.run(args)
        self.assertEqual(p.returncode, 2, p.stderr)
        lines = e2e.stderr_lines(p)
        self.assertEqual(len(lines), 1, p.stderr)
        for w in words:
            self.assertIn(w, lines[0])
        self.assertEqual(p.stdout, "")
        self.assertEqual(e2e.listing(d), before)

    def test_malformed_files_name_their_line(self):
        with e2e.TempDir() as d:
            wav = sine(d, 1000.0)
            out = os.path.join(d, "o.npy")
            for text, line in (("* x\n100 0\n200 zz\n", ":3:"), ("100 0\n50 1\n", ":2:"),
                               ("\"Sens Factor = dB\"\n100 0\n", ":1:"), ("* only comments\n", ":1:"),
                               ("100 0 0 7\n", ":1:"), ("-5 0\n", ":1:"), ("100 nan\n", ":1:")):
                cal = os.path.join(d, "bad.txt")
                with open(cal, "w") as f:
                    f.write(text)
                self.expect_refused(["--dump", out, "--calibration", cal, wav], d, "bad.txt" + line)

    def test_non_finite_offsets(self):
        with e2e.TempDir() as d:
            wav = sine(d, 1000.0)
            for v in ("nan", "inf", "-inf", "1e400", "2000"):
                self.expect_refused(["--peaks", "--spl-offset", v, wav], d, "--spl-offset")
            for v in ("nan@1000", "94@inf", "94", "94@0", "@1000"):
                self.expect_refused(["--calibrate", v, wav], d, "--calibrate")
            self.expect_refused(["--calibrate", "94@1000", "--tone", wav], d, "--calibrate")


if __name__ == "__main__":
    e2e.main()
