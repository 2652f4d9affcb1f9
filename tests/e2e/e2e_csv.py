#!/usr/bin/python3
"""CSV dumps: file with sidecar, '-' on stdout without one, --channel all layout."""
import os
import unittest

import numpy as np

import spectro_e2e as E


def parse_csv(tc, text, rate, n, channels=None):
    lines = text.splitlines()
    head = lines[0].split(",")
    cols = 1 if channels is None else 2
    want = ["time_s"] if channels is None else ["channel", "time_s"]
    tc.assertEqual(head[:cols], want, "CSV header starts %s" % ",".join(want))
    hz = np.array([float(v) for v in head[cols:]])
    tc.assertEqual(len(hz), n // 2 + 1, "one column per bin")
    np.testing.assert_allclose(hz, np.arange(n // 2 + 1) * rate / n, rtol=1e-6,
                               atol=0.01 * rate / n, err_msg="bin frequencies")
    rows = np.array([[float(v) for v in l.split(",")] for l in lines[1:]])
    tc.assertEqual(rows.shape[1], cols + n // 2 + 1, "row width")
    return rows


class Csv(unittest.TestCase):
    def check_values(self, got, npy):
        self.assertFalse(np.isnan(got).any())
        np.testing.assert_allclose(got, npy, rtol=1e-5, atol=1e-3,
                                   err_msg="CSV values against the .npy dump")

    def test_csv_file_and_stdout(self):
        path = E.asset("two_tone_48k_s16.wav")
        x, rate, _ = E.read_audio(path)
        npy, _, _ = E.dump(self, [path])
        text, meta, _ = E.dump(self, [path], out_name="out.csv")
        E.check_meta(self, meta, path, rate, 1, 24000)
        rows = parse_csv(self, text, rate, 4096)
        self.assertEqual(len(rows), meta["frames"])
        times = (np.arange(meta["frames"]) * 1024 + 2048) / rate
        np.testing.assert_allclose(rows[:, 0], times, rtol=1e-6, atol=1e-6)
        self.check_values(rows[:, 1:], npy)
        with E.TempDir() as d:
            p = E.run([path, "--dump", "-"], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(E.listing(d), set(), "--dump - writes no file")
            self.assertEqual(p.stdout, text, "stdout CSV equals the CSV file")

    def test_csv_channel_all(self):
        path = E.asset("stereo_1500l_3000r_48k_s16.wav")
        npy, _, _ = E.dump(self, [path, "-c", "all"])
        text, meta, _ = E.dump(self, [path, "-c", "all"], out_name="out.csv")
        self.assertEqual(meta["channel"], "all")
        rows = parse_csv(self, text, 48000, 4096, channels=2)
        nf = npy.shape[1]
        self.assertEqual(len(rows), 2 * nf)
        self.assertEqual(list(rows[:, 0]), [0] * nf + [1] * nf, "channel-major order")
        self.check_values(rows[:, 2:].reshape(2, nf, -1), npy)

    def test_csv_small_n_other_window(self):
        path = E.asset("chirp_100_20k_48k_s16.wav")
        x, rate, _ = E.read_audio(path)
        p = E.run([path, "-n", 64, "--hop", 48, "-w", "kaiser:6", "-o", "-"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = parse_csv(self, p.stdout, rate, 64)
        ref = E.reference(x, 64, 48, "kaiser:6")
        self.assertEqual(rows.shape[0], ref.shape[0])
        # Printed text carries at least 1e-4 dB of the float32 values.
        E.assert_db_close(self, rows[:, 1:], ref, "CSV -n 64", abs_tol=E.ABS_AMP_TOL + 1e-5 * 10 ** (ref[ref > E.FLOOR_DB] / 20))


if __name__ == "__main__":
    E.main()
