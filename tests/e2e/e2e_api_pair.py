"""Pairs through the public C API against the program.

spectro_source_config's reference and pair (spectro.h, API version 6) open two files as one
source of two channels, as the program's --reference and --compare do (source_open_pair).
tests/api_tool.c reads such a pair through spectro_source and the analyzer; here its numbers
are compared with the program's on the same files:

  - an aligned pair (pair=align, --reference): the transfer function's table equals
    `spectro --transfer 0:1 --reference REF MEAS --dump`'s, and its delay plus the pair's
    alignment the sidecar's delay_s;
  - a compared pair (pair=compare, --compare A B): the averaged spectra of its two channels
    equal rows A and B of `spectro --compare A B --average mean --dump`;
  - errors name the field (pair, resample) and a pipe is refused.

Both sides run the cpu backend: equality is of one backend's numbers (a GPU run's
SPECTRO_AUTO_RATES would send the program's auto to cuda, and the library reads no
environment).

  python3 e2e_api_pair.py SPECTRO_BINARY ASSETS_DIR   (SPECTRO_API_TOOL in the environment)
"""
import json
import os
import subprocess
import unittest

import numpy as np
import scipy.signal

import spectro_e2e as E

TOOL = os.environ.get("SPECTRO_API_TOOL", "")
RATE = 48000
N = 2048
HOP = 512


def tool(args):
    return subprocess.run([TOOL] + [str(a) for a in args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def noise(n, seed):
    return (np.random.default_rng(seed).standard_normal(n) * 0.2).astype(np.float32)


class Pair(unittest.TestCase):
    def setUp(self):
        if not TOOL:
            self.skipTest("SPECTRO_API_TOOL not set")

    def test_aligned_transfer(self):
        """pair=align: the program's --reference --transfer dump, from the API's pair."""
        lead, delay = 3000, 7
        x = noise(4 * RATE, 1)
        b, a = scipy.signal.butter(2, 3000, fs=RATE)
        y = scipy.signal.lfilter(b, a, np.concatenate([np.zeros(delay, np.float32), x]))[: len(x)]
        with E.TempDir() as d:
            ref, meas = os.path.join(d, "ref.wav"), os.path.join(d, "meas.wav")
            E.write_float_wav(ref, x, RATE)
            m = np.concatenate([np.zeros(lead, np.float32), y.astype(np.float32)])
            E.write_float_wav(meas, np.stack([0.1 * m, m], axis=1), RATE)  # MEAS is channel 1
            out = os.path.join(d, "tf.npy")
            p = E.run(["--transfer", "0:1", "--reference", ref, "-n", N, "--hop", HOP, "--backend", "cpu", "--dump", out, "-q",
                       meas])
            self.assertEqual(p.returncode, 0, p.stderr)
            prog = np.load(out)
            with open(out + ".json") as f:
                meta = json.load(f)
            raw = os.path.join(d, "api.bin")
            q = tool(["transfer", meas, raw, "n=%d" % N, "hop=%d" % HOP, "channel=all", "reference=" + ref,
                      "pair=align", "refch=0", "inch=1", "chunk=0", "backend=cpu"])
            self.assertEqual(q.returncode, 0, q.stderr)
            data = np.fromfile(raw, np.uint8)
            table = data[: -16].view(np.float32).reshape(-1, 4)
            api_delay, aligned = data[-16:].view(np.float64)
            self.assertEqual(table.shape, prog.shape)
            self.assertTrue(np.array_equal(table, prog), np.abs(table - prog).max())
            # the input's first samples skipped: the lead and (within the alignment's whole
            # samples and the filter's own delay) the delay; the transfer function has the rest
            self.assertLess(abs(aligned - (lead + delay)), 3, aligned)
            self.assertAlmostEqual(api_delay + aligned / RATE, meta["delay_s"], places=9)
            self.assertLess(abs(api_delay * RATE + aligned - (lead + delay)), 1.0, api_delay * RATE)

    def test_compared_averages(self):
        """pair=compare: rows A and B of --compare A B --average mean --dump."""
        with E.TempDir() as d:
            pa, pb = os.path.join(d, "a.wav"), os.path.join(d, "b.wav")
            xa, xb = noise(2 * RATE, 2), noise(2 * RATE, 3)
            E.write_float_wav(pa, xa, RATE)
            E.write_float_wav(pb, np.stack([xb, 0.5 * xb + 0.3 * xa], axis=1), RATE)
            out = os.path.join(d, "cmp.npy")
            p = E.run(["--compare", pa, pb, "-n", N, "--average", "mean", "--backend", "cpu", "--dump", out, "-q"])
            self.assertEqual(p.returncode, 0, p.stderr)
            prog = np.load(out)
            raw = os.path.join(d, "api.bin")
            q = tool(["average", pb, raw, "n=%d" % N, "channel=all", "mode=0", "reference=" + pa,
                      "pair=compare", "chunk=0", "backend=cpu"])
            self.assertEqual(q.returncode, 0, q.stderr)
            api = np.fromfile(raw, np.float32).reshape(2, -1)
            self.assertTrue(np.array_equal(api, prog[:2]), np.abs(api - prog[:2]).max())
            # the pair's channel 0 is A's own spectrum: not B's
            self.assertFalse(np.array_equal(api[0], api[1]))

    def test_refused(self):
        with E.TempDir() as d:
            pa = os.path.join(d, "a.wav")
            E.write_float_wav(pa, noise(RATE, 4), RATE)
            for keys, what in ((["pair=compare", "resample=1", "reference=" + pa], None),
                               (["pair=9", "reference=" + pa], "pair 9"),
                               (["resample=1", "reference=" + pa], "resample"),
                               (["refch=-3", "reference=" + pa], "reference_channel -3"),
                               (["reference=" + pa, "refch=4"], "channel")):
                q = tool(["dump", pa, os.path.join(d, "o.bin"), "channel=all"] + keys)
                if what is None:  # one rate: resample has nothing to do
                    self.assertEqual(q.returncode, 0, q.stderr)
                    continue
                self.assertEqual(q.returncode, 1, keys)
                self.assertIn(what, q.stderr)
                self.assertNotIn("--", q.stderr)


if __name__ == "__main__":
    E.main()
