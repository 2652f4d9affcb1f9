"""--loudness against two independent meters on real-ish material: pyloudnorm (BS.1770-4
integrated loudness, run by the Python of build/pyenv, the venv scripts/test.sh makes) and
ffmpeg's ebur128 filter (integrated, loudness range, true peak). The material: stereo noise
bursts and tones at levels that change, with silences, at 44.1 and 48 kHz.

Integrated loudness must agree within 0.15 LU with both (ffmpeg prints one decimal); the
loudness range within 0.5 LU of ffmpeg's and the true peak within 0.5 dB (ffmpeg
oversamples to 192 kHz with its own filter). Exit 77 (skipped) when pyloudnorm or ffmpeg
is missing, after checking against whichever is there.

    python3 e2e_loudness_ref.py SPECTRO_BINARY ASSETS_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

import spectro_e2e as e2e

FFMPEG = shutil.which("ffmpeg")
MISSING = []


def pyenv_python():
    """build/pyenv's Python when it has pyloudnorm, else None."""
    py = os.path.join(os.path.dirname(e2e.BIN), "pyenv", "bin", "python")
    if os.access(py, os.X_OK) and subprocess.run([py, "-c", "import pyloudnorm"],
                                                 capture_output=True).returncode == 0:
        return py
    return None


PYLN = r"""
import sys, struct, numpy as np, pyloudnorm as pyln
blob = open(sys.argv[1], 'rb').read()
ch, rate = struct.unpack('<HI', blob[22:28])
data = blob[blob.index(b'data') + 8:]
x = np.frombuffer(data, '<f4').astype(np.float64).reshape(-1, ch)
print(pyln.Meter(rate).integrated_loudness(x))
"""


def material(seed, rate, seconds=24):
    """Stereo: pink-ish noise bursts and tones at levels from -45 to -12 dBFS, silences."""
    rng = np.random.default_rng(seed)
    out, t = [], 0
    while t < seconds * rate:
        n = int(rng.uniform(0.3, 2.5) * rate)
        kind = rng.integers(0, 3)
        level = 10 ** (rng.uniform(-45, -12) / 20.0)
        if kind == 0:
            w = rng.standard_normal((n, 2))
            w = np.cumsum(w, axis=0) * 0.05 + w  # tilted towards the lows
            w -= w.mean(axis=0)
            seg = level * w / np.max(np.abs(w))
        elif kind == 1:
            f = rng.uniform(60, 12000)
            tt = (np.arange(n) + t) / rate
            seg = level * np.stack([np.sin(2 * np.pi * f * tt), 0.5 * np.sin(2 * np.pi * f * tt + 1)], 1)
        else:
            seg = np.zeros((n, 2))
        out.append(seg)
        t += n
    return np.concatenate(out)


def ffmpeg_summary(path):
    p = subprocess.run([FFMPEG, "-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true",
                        "-f", "null", "-"], capture_output=True, text=True, timeout=120)
    summary = p.stderr[p.stderr.rindex("Summary:"):]
    i = float(re.search(r"I:\s+(-?[\d.]+) LUFS", summary).group(1))
    lra = float(re.search(r"LRA:\s+(-?[\d.]+) LU", summary).group(1))
    tp = float(re.search(r"Peak:\s+(-?[\d.]+) dBFS", summary).group(1))
    return i, lra, tp


class References(e2e.unittest.TestCase):
    def setUp(self):
        self.py = pyenv_python()

    def test_against_pyloudnorm_and_ffmpeg(self):
        compared = 0
        with e2e.TempDir() as d:
            for seed, rate in ((1, 44100), (2, 48000), (3, 48000)):
                path = os.path.join(d, "m%d.wav" % seed)
                e2e.write_float_wav(path, material(seed, rate), rate)
                p = e2e.run(["--loudness", path])
                self.assertEqual(p.returncode, 0, p.stderr)
                r = json.loads(p.stdout)
                if self.py:
                    q = subprocess.run([self.py, "-c", PYLN, path], capture_output=True, text=True, timeout=120)
                    self.assertEqual(q.returncode, 0, q.stderr)
                    self.assertAlmostEqual(r["integrated_lufs"], float(q.stdout), delta=0.15,
                                           msg="pyloudnorm, seed %d" % seed)
                    compared += 1
                if FFMPEG:
                    i, lra, tp = ffmpeg_summary(path)
                    self.assertAlmostEqual(r["integrated_lufs"], i, delta=0.15, msg="ffmpeg, seed %d" % seed)
                    self.assertAlmostEqual(r["loudness_range_lu"], lra, delta=0.5, msg="ffmpeg LRA, seed %d" % seed)
                    self.assertAlmostEqual(r["true_peak_dbtp"], tp, delta=0.5, msg="ffmpeg peak, seed %d" % seed)
                    compared += 1
        if not self.py:
            MISSING.append("pyloudnorm (build/pyenv/bin/pip install pyloudnorm)")
        if not FFMPEG:
            MISSING.append("ffmpeg")


if __name__ == "__main__":
    argv = e2e.parse_args()
    res = e2e.unittest.main(argv=argv, verbosity=2, exit=False).result
    if not res.wasSuccessful():
        sys.exit(1)
    if MISSING:
        print("skipped: missing " + ", ".join(MISSING))
        sys.exit(77)
