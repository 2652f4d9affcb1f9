"""--bandwidth (docs/measurements.md "Codec bandwidth"): wideband noise encoded here by
ffmpeg with libmp3lame at 128 and 320 kb/s and its AAC encoder at 96 kb/s reads low-passed
near the cut-offs those encoders make (16.7, 20.2 and 15.9 kHz, measured on this noise,
+-0.4 kHz) and names them; the same noise lossless (WAV, FLAC), pink noise whose highs fall
gradually, read full-band; a steep digital low-pass (an FIR) at 12 kHz reads 12 kHz. With --png the
long-term spectrum is drawn, the cut-off marked by a vertical line where it is (none when
full-band). Exit 77 when ffmpeg or its encoders are missing (the lossless cases run first).
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import scipy.signal

import spectro_e2e as e2e

RATE = 44100
FFMPEG = shutil.which("ffmpeg")
HAVE_PNG = os.environ.get("SPECTRO_TEST_RENDER", "1") != "0"
MARK = (240, 80, 70)  # plot.c's PLOT_COL_MARK
SKIPPED = []


def noise(seconds=6, seed=5):
    rng = np.random.default_rng(seed)
    return np.clip(0.25 * rng.standard_normal((RATE * seconds, 2)), -1, 1)


def bandwidth(tc, path):
    p = e2e.run(["-q", "--bandwidth", path])
    tc.assertEqual(p.returncode, 0, p.stderr)
    r = json.loads(p.stdout)
    tc.assertEqual(r["input"], path)
    return r


def encoders():
    if not FFMPEG:
        return ""
    return subprocess.run([FFMPEG, "-hide_banner", "-encoders"], capture_output=True, text=True).stdout


class Lossless(e2e.unittest.TestCase):
    def test_full_band(self):
        with e2e.TempDir() as d:
            wav = os.path.join(d, "n.wav")
            e2e.write_float_wav(wav, noise(), RATE)
            r = bandwidth(self, wav)
            self.assertEqual(r["verdict"], "full-band")
            self.assertGreater(r["cutoff_hz"], 21000)
            # pink noise: -3 dB an octave, no cliff
            w = np.fft.irfft(np.fft.rfft(noise()[:, 0]) / np.sqrt(np.maximum(np.arange(RATE * 3 + 1), 1)))
            pink = os.path.join(d, "pink.wav")
            e2e.write_float_wav(pink, 0.5 * w / np.max(np.abs(w)), RATE)
            self.assertEqual(bandwidth(self, pink)["verdict"], "full-band")

    def test_digital_low_pass(self):
        # a linear-phase FIR as an encoder's low-pass: 12 kHz, 80 dB down within 300 Hz
        h = scipy.signal.firwin(1023, 12000, fs=RATE, window=("kaiser", 8.0))
        with e2e.TempDir() as d:
            wav = os.path.join(d, "lp.wav")
            e2e.write_float_wav(wav, scipy.signal.lfilter(h, 1.0, noise(), axis=0), RATE)
            r = bandwidth(self, wav)
        self.assertTrue(r["verdict"].startswith("low-passed at"), r)
        self.assertAlmostEqual(r["cutoff_hz"], 12000, delta=500)
        self.assertGreater(r["drop_db"], 40)


def marked_columns(png):
    """The picture's columns that the marker's colour fills for most of the plot's height."""
    img = e2e.read_png(png)
    hit = np.all(img == np.array(MARK, np.uint8), axis=2).sum(axis=0)
    return np.nonzero(hit > 0.6 * img.shape[0])[0], img.shape[1]


class Picture(e2e.unittest.TestCase):
    def test_cutoff_marked(self):
        if not HAVE_PNG:
            self.skipTest("built without the renderer")
        h = scipy.signal.firwin(1023, 12000, fs=RATE, window=("kaiser", 8.0))
        with e2e.TempDir() as d:
            lp, full = os.path.join(d, "lp.wav"), os.path.join(d, "n.wav")
            e2e.write_float_wav(lp, scipy.signal.lfilter(h, 1.0, noise(), axis=0), RATE)
            e2e.write_float_wav(full, noise(), RATE)
            for path, low in ((lp, True), (full, False)):
                png = os.path.join(d, "bw.png")
                p = e2e.run(["-q", "--bandwidth", "--png", png, path])
                self.assertEqual(p.returncode, 0, p.stderr)
                r = json.loads(p.stdout)  # the line as without --png
                self.assertEqual(r["verdict"].startswith("low-passed"), low, r)
                cols, width = marked_columns(png)
                if low:  # the line where 12 kHz falls on the linear axis (0 .. 22.05 kHz)
                    self.assertGreater(len(cols), 0, "no cut-off line")
                    self.assertAlmostEqual(cols.mean() / width, 12000 / 22050, delta=0.06)
                else:
                    self.assertEqual(len(cols), 0, "a cut-off line on a full-band file")
                os.remove(png)
            for extra in (["--png", "-"], ["--average", "mean", "--png", os.path.join(d, "x.png")]):
                p = e2e.run(["--bandwidth"] + extra + [lp])
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(len(e2e.stderr_lines(p)), 1, p.stderr)
                self.assertFalse(os.path.exists(os.path.join(d, "x.png")))


class Codecs(e2e.unittest.TestCase):
    CASES = [("libmp3lame", "128k", "mp3", 16700, "MP3 128"), ("libmp3lame", "320k", "mp3", 20200, "MP3 320"),
             ("aac", "96k", "m4a", 15900, "AAC 96")]

    def test_encoded_noise(self):
        have = encoders()
        with e2e.TempDir() as d:
            wav = os.path.join(d, "n.wav")
            e2e.write_float_wav(wav, noise(), RATE)
            flac = os.path.join(d, "n.flac")
            if FFMPEG and subprocess.run([FFMPEG, "-v", "error", "-y", "-i", wav, "-sample_fmt", "s16", flac]).returncode == 0:
                self.assertEqual(bandwidth(self, flac)["verdict"], "full-band")
            for codec, rate, ext, cut, name in self.CASES:
                if " %s " % codec not in have:
                    SKIPPED.append("ffmpeg's %s encoder" % codec)
                    continue
                out = os.path.join(d, "n%s.%s" % (rate, ext))
                p = subprocess.run([FFMPEG, "-v", "error", "-y", "-i", wav, "-c:a", codec, "-b:a", rate, out],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                r = bandwidth(self, out)
                self.assertAlmostEqual(r["cutoff_hz"], cut, delta=400, msg=(codec, rate, r))
                self.assertEqual(r["verdict"], "low-passed at %.1f kHz" % (r["cutoff_hz"] / 1000))
                self.assertIn(name, r["encoders"] or "")
                self.assertGreater(r["drop_db"], 40)


if __name__ == "__main__":
    argv = e2e.parse_args()
    res = e2e.unittest.main(argv=argv, verbosity=2, exit=False).result
    if not res.wasSuccessful():
        sys.exit(1)
    if not FFMPEG or SKIPPED:
        print("skipped: " + (", ".join(SKIPPED) if SKIPPED else "no ffmpeg"))
        sys.exit(77)
