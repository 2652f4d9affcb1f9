#!/usr/bin/python3
"""mel, MFCC, chroma, constant-Q and reassignment on the GPU against the cpu backend, end
to end (docs/transforms.md "Where it runs"): `--backend cuda --mel 128 --dump` (and --mfcc,
--chroma, --cqt, --reassign) equals `--backend cpu` through the real program, for several
FFT sizes and hops, stereo too.

Exits 77 (ctest: skipped) when this build or machine has no usable GPU.

Why the rows differ at all: both backends apply the same weights (src/xform builds them;
the GPU module gets a copy) to the power spectrum, but the FFTs differ in their rounding
(float32: about 1e-7 of the frame's peak amplitude in every bin) and the sums run in another
order. The tolerances follow from that:
- mel (dB): within 0.01 dB wherever the band is above -100 dBFS and within 60 dB of the
  frame's strongest band (the bound e2e_gpu_agree holds the linear levels to); deeper bands
  carry the rounding of the whole frame, so there their power must agree within 1e-6 of the
  frame's strongest band's power, plus what the host's vector dB conversion may move a
  band's own power (fft_power_db: within 1e-4 dB, 2.3e-5 of it).
- MFCC: the DCT-II is orthonormal, so a coefficient moves by at most the 2-norm of the mel
  row's change: |dc| <= sqrt(B) max|d mel dB| of the same frames (measured on the same
  file), plus 1e-4 for the DCT's own float sums.
- chroma (0..1, a frame's maximum 1): within 1e-4, a hundred times the FFT's rounding
  relative to the frame's peak.
- constant-Q (dB): within three times the cpu backend's own float error, measured in the
  test against a double-precision evaluation of the same definition (test_cqt).
The runs print the largest differences seen. The rows must also not be bit-for-bit the
cpu backend's for cuda (else the host made them: the device was not used), and must be
for cufft (it has no short-time power kernel: the host's threads make its rows).
"""
import os
import sys
import unittest

import numpy as np

import spectro_e2e as E

RATE = 48000
CASES = [(4096, 1024), (2048, None), (1024, 300), (16384, 4096)]


def gpu_available():
    with E.TempDir() as d:
        p = E.run([E.asset("sine_1125hz_48k_f32.wav"), "-q", "-b", "cuda", "-o", d + "/p.npy"])
        return p.returncode == 0


def make_signal(path, channels):
    """Tones, a chirp and noise at -50 dBFS, with half a second of digital silence."""
    rng = np.random.default_rng(29)
    t = np.arange(6 * RATE) / RATE
    x = (0.5 * np.sin(2 * np.pi * 440.0 * t) + 0.1 * np.sin(2 * np.pi * 1234.5 * t)
         + 0.05 * np.sin(2 * np.pi * (200 * t + 900 * t * t)) + 0.003 * rng.standard_normal(t.size))
    x[2 * RATE:2 * RATE + RATE // 2] = 0.0
    if channels == 2:
        y = 0.3 * np.sin(2 * np.pi * 3000.0 * t) + 0.003 * rng.standard_normal(t.size)
        x = np.stack([x, y], axis=1)
    E.write_float_wav(path, x.astype(np.float32), RATE)


def cqt_reference(x, meta):
    """docs/transforms.md's constant-Q in double precision, directly at the full rate: each
    bin's hann window of round(Q rate/f) samples from (N - N_j)//2, times e^(-2 pi i f (t -
    N/2)/rate), scaled by 2/sum(w), dotted with each frame's samples; dB rows. (The program
    reads it octave by octave on decimated signals: its own distance from this is the
    decimators' and the float sums'.)"""
    n, hop, rate, q = meta["fft_size"], meta["hop"], meta["sample_rate"], meta["transform"]["q"]
    kernels = []
    for f in meta["freqs_hz"]:
        ln = int(np.floor(q * rate / f + 0.5))
        start, m = (n - ln) // 2, np.arange(ln)
        w = 0.5 - 0.5 * np.cos(2 * np.pi * m / ln)
        kernels.append((start, w * 2.0 / w.sum() * np.exp(-2j * np.pi * f * ((start + m) - n / 2.0) / rate)))
    rows = np.empty((meta["frames"], len(kernels)))
    for fr in range(rows.shape[0]):
        seg = x[fr * hop:fr * hop + n]
        for j, (start, k) in enumerate(kernels):
            rows[fr, j] = 10 * np.log10(max(abs(np.dot(seg[start:start + k.size], k)) ** 2, 1e-20))
    return rows


class GpuXform(unittest.TestCase):
    worst = {}

    @classmethod
    def setUpClass(cls):
        cls.tmp = E.TempDir()
        cls.dir = cls.tmp.__enter__()
        cls.mono = os.path.join(cls.dir, "mono.wav")
        cls.stereo = os.path.join(cls.dir, "stereo.wav")
        make_signal(cls.mono, 1)
        make_signal(cls.stereo, 2)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.__exit__(None, None, None)
        for k, v in sorted(cls.worst.items()):
            print("largest difference, %s: %.3g" % (k, v))

    def note(self, key, value):
        self.worst[key] = max(self.worst.get(key, 0.0), float(value))

    def rows(self, src, backend, args):
        out = os.path.join(self.dir, "x_%s.npy" % backend)
        p = E.run([src, "-q", "-b", backend, "-o", out] + args, timeout=120)
        self.assertEqual(p.returncode, 0, "%s %s: %s" % (backend, args, p.stderr))
        meta = E.load_json(self, out + ".json")
        self.assertEqual(meta["backend"], backend)
        return np.load(out)

    def both(self, src, args, backend="cuda"):
        c, g = self.rows(src, "cpu", args), self.rows(src, backend, args)
        self.assertEqual(c.shape, g.shape, str(args))
        self.assertFalse(np.isnan(g).any(), "%s: NaN" % args)
        return c.astype(np.float64), g.astype(np.float64)

    def check_mel(self, c, g, what):
        top = c.max(axis=-1, keepdims=True)
        tight = (c > -100.0) & (c > top - 60.0)
        self.assertTrue(tight.any(), what)
        err = np.abs(c - g)[tight].max()
        self.note("mel dB (tight)", err)
        self.assertLessEqual(err, 0.01, "%s: %.4g dB apart" % (what, err))
        pc, pg, ptop = 10 ** (c / 10), 10 ** (g / 10), 10 ** (top / 10)
        rel = (np.abs(pc - pg) / (1e-6 * ptop + 2.3e-5 * np.maximum(pc, pg))).max()
        self.note("mel power / its bound", rel)
        self.assertLessEqual(rel, 1.0, "%s: powers %.3g of their bound apart" % (what, rel))
        return np.abs(c - g).max(axis=-1)

    def test_mel_mfcc(self):
        for n, hop in CASES:
            for src in (self.mono, self.stereo):
                base = ["-n", n] + (["--hop", hop] if hop else []) + (["--channel", "all"] if src == self.stereo else [])
                what = "n=%d hop=%s %s" % (n, hop, os.path.basename(src))
                c, g = self.both(src, base + ["--mel", 128])
                dmel = self.check_mel(c, g, "mel 128 " + what)
                if n == 4096:
                    self.assertFalse(np.array_equal(c, g), what + ": the cpu's rows bit for bit: not made on the GPU")
                c, g = self.both(src, base + ["--mfcc", 20])
                bound = np.sqrt(128) * dmel[..., None] + 1e-4
                err = np.abs(c - g)
                self.note("mfcc / its bound", (err / bound).max())
                self.note("mfcc", err.max())
                self.assertTrue((err <= bound).all(), "mfcc %s: %.4g apart, bound %.4g" % (what, err.max(), bound.max()))

    def test_mel_range(self):
        c, g = self.both(self.mono, ["--mel", 40, "--fmin", 100, "--fmax", 9000])
        self.check_mel(c, g, "mel 40 100..9000 Hz")

    def test_chroma(self):
        for n, hop in CASES:
            args = ["-n", n] + (["--hop", hop] if hop else []) + ["--chroma"]
            c, g = self.both(self.mono, args)
            err = np.abs(c - g).max()
            self.note("chroma", err)
            self.assertLessEqual(err, 1e-4, "chroma n=%d: %.3g apart" % (n, err))
            self.assertTrue((np.abs(g.max(axis=-1) - 1.0) < 1e-6).all(), "chroma n=%d: a frame's maximum is not 1" % n)

    def test_cqt(self):
        """The rows against the cpu backend's, within three times the cpu backend's own
        distance from a double-precision direct evaluation of the same definition (numpy,
        above): both backends run the same decimators and weights (the octave-wise multirate
        method), their sums in another order."""
        x = E.read_audio(self.mono)[0].astype(np.float64).ravel()
        for args, n in ((["--cqt", 12, "--fmax", 3952], 32768), (["--cqt", 24, "--fmin", 200], 8192)):
            what = "cqt %s n=%d" % (args, n)
            out = os.path.join(self.dir, "q.npy")
            p = E.run([self.mono, "-q", "-b", "cpu", "-n", n, "-o", out] + args, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            ref = cqt_reference(x, E.load_json(self, out + ".json"))
            c, g = self.both(self.mono, ["-n", n] + args)
            top = ref.max(axis=-1, keepdims=True)
            tight = (ref > -100.0) & (ref > top - 60.0)
            own = np.abs(c - ref)[tight].max()
            err = np.abs(c - g)[tight].max()
            self.note("cqt dB (tight) / 3 x the cpu's own", err / (3 * own))
            self.note("cqt dB (tight)", err)
            self.assertLessEqual(err, 3 * own, "%s: %.4g dB apart, the cpu's own error %.4g" % (what, err, own))
            amp = lambda v: 10 ** (v / 20)
            own = (np.abs(amp(c) - amp(ref)) / amp(top)).max()
            rel = (np.abs(amp(c) - amp(g)) / amp(top)).max()
            self.note("cqt amplitude / 3 x the cpu's own", rel / (3 * own))
            self.assertLessEqual(rel, 3 * own, "%s: amplitudes %.3g of the strongest apart" % (what, rel))
            self.assertFalse(np.array_equal(c, g), what + ": the cpu's rows bit for bit: not made on the GPU")

    def test_reassign(self):
        """Reassignment's three transforms on the device (n 4096 and 8192; smaller sizes stay
        on the host, bit for bit the cpu's rows). Levels as mel's: within 0.01 dB where a bin
        is above -100 dBFS and within 60 dB of the frame's strongest. The reassigned frequency
        and time divide by |X_h|^2, which magnifies the FFTs' float rounding in weak bins:
        compared where a bin is within 40 dB of the frame's strongest, within 0.05 Hz and
        0.01 ms (the float rounding there is about 1e-3 Hz and 1e-3 ms)."""
        for src, n, hop in ((self.mono, 4096, 1024), (self.stereo, 4096, 1024), (self.mono, 8192, 700)):
            what = "reassign n=%d hop=%d %s" % (n, hop, os.path.basename(src))
            args = ["-n", n, "--hop", hop, "--reassign"] + (["--channel", "all"] if src == self.stereo else [])
            c, g = self.both(src, args)
            self.assertEqual(c.shape[-1], 3, what)
            top = c[..., 2].max(axis=-1, keepdims=True)
            tight = (c[..., 2] > -100.0) & (c[..., 2] > top - 60.0)
            strong = (c[..., 2] > -100.0) & (c[..., 2] > top - 40.0)
            self.assertTrue(strong.any(), what)
            err = np.abs(c[..., 2] - g[..., 2])[tight].max()
            df = np.abs(c[..., 0] - g[..., 0])[strong].max()
            dt = np.abs(c[..., 1] - g[..., 1])[strong].max()
            self.note("reassign dB (tight)", err)
            self.note("reassign Hz (strong)", df)
            self.note("reassign s (strong)", dt)
            self.assertLessEqual(err, 0.01, "%s: %.4g dB apart" % (what, err))
            self.assertLessEqual(df, 0.05, "%s: %.4g Hz apart" % (what, df))
            self.assertLessEqual(dt, 1e-5, "%s: %.4g s apart" % (what, dt))
            self.assertFalse(np.array_equal(c, g), what + ": the cpu's rows bit for bit: not made on the GPU")
        c, g = self.both(self.mono, ["-n", 2048, "--reassign"])
        self.assertTrue(np.array_equal(c, g), "reassign n=2048: the host's threads make its rows, bit for bit")

    def test_cufft_stays_on_host(self):
        c, g = self.both(self.mono, ["--mel", 128], backend="cufft")
        self.assertTrue(np.array_equal(c, g), "cufft: the host's threads make its rows, bit for bit the cpu's")


if __name__ == "__main__":
    if len(sys.argv) >= 3:
        E.BIN, E.ASSETS = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
        if not gpu_available():
            print("no usable GPU (or a build without CUDA): skipped")
            sys.exit(77)
    E.main()
