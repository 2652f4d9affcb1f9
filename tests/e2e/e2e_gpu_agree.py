#!/usr/bin/python3
"""GPU backends against the CPU backend, end to end: `--dump` with --backend cuda (and
cufft) equals --backend cpu on every audio asset, for several FFT sizes and hops; so does
`--peaks` (computed on the device: same bins, levels within 0.01 dB).

Exits 77 (ctest: skipped) when this build or machine has no usable GPU.

Where both agree to float32 precision: within 0.01 dB wherever the level is above
-100 dBFS and within 60 dB of the frame's peak; deeper bins carry the rounding error of the
whole frame (float32: ~1e-7 of the peak amplitude), so there the amplitudes must agree
within 1e-5 of the frame's peak amplitude.
"""
import json
import os
import re
import sys
import unittest

import numpy as np

import spectro_e2e as E

CASES = [(4096, None), (1024, 256), (256, 300), (65536, 8192)]


def gpu_available():
    with E.TempDir() as d:
        p = E.run([E.asset("sine_1125hz_48k_f32.wav"), "-q", "-b", "cuda", "-o", d + "/p.npy"])
        return p.returncode == 0


def audio_assets():
    bad = {"empty.wav", "not_audio.wav"}
    return sorted(f for f in os.listdir(E.ASSETS)
                  if f.endswith((".wav", ".flac", ".ogg")) and f not in bad)


class GpuAgree(unittest.TestCase):
    def compare(self, cpu, gpu, what):
        self.assertEqual(cpu.shape, gpu.shape, what)
        self.assertFalse(np.isnan(gpu).any(), what + ": NaN in GPU output")
        peak = cpu.max(axis=-1, keepdims=True)
        tight = (cpu > -100.0) & (cpu > peak - 60.0)
        if tight.any():
            err = np.abs(cpu[tight] - gpu[tight]).max()
            self.assertLessEqual(err, 0.01, "%s: %.4f dB apart where tight" % (what, err))
        amp_c, amp_g = 10 ** (cpu / 20.0), 10 ** (gpu / 20.0)
        amp_peak = 10 ** (peak / 20.0)
        rel = (np.abs(amp_c - amp_g) / np.maximum(amp_peak, 1e-10)).max()
        self.assertLessEqual(rel, 1e-5, "%s: amplitudes apart by %.2e of the peak" % (what, rel))

    def test_every_asset(self):
        compared = 0
        for backend in ("cuda", "cufft"):
            for name in audio_assets():
                for n, hop in CASES:
                    args = [E.asset(name), "-q", "-n", n] + (["--hop", hop] if hop else [])
                    with E.TempDir() as d:
                        pc = E.run(args + ["-b", "cpu", "-o", d + "/c.npy"], timeout=120)
                        pg = E.run(args + ["-b", backend, "-o", d + "/g.npy"], timeout=120)
                        what = "%s %s n=%d hop=%s" % (backend, name, n, hop)
                        self.assertEqual(pc.returncode, 0, "%s (cpu): %s" % (what, pc.stderr))
                        self.assertEqual(pg.returncode, 0, "%s: %s" % (what, pg.stderr))
                        meta = E.load_json(self, d + "/g.npy.json")
                        self.assertEqual(meta["backend"], backend)
                        self.compare(np.load(d + "/c.npy"), np.load(d + "/g.npy"), what)
                        compared += 1
        self.assertGreater(compared, 20)

    def test_png(self):
        """--png on the GPU: with more frames than the picture has columns (here 3 ... 40 a
        column), the spectra are reduced to the picture's columns on the device (only those
        rows cross the bus, `-v` says so). The picture is byte for byte the one drawn from the
        same backend's spectra on the host (a run that also dumps them, where the pipeline
        hands the picture every spectrum), and nearly the cpu backend's (float rounding
        between the backends may move a level across one of the colour map's 256 steps)."""
        rate = 48000
        t = np.arange(60 * rate) / rate
        rng = np.random.default_rng(3)
        mono = 0.4 * np.sin(2 * np.pi * (100 * t + 150 * t * t)) + 0.01 * rng.standard_normal(t.size)
        quad = np.stack([np.roll(mono[:20 * rate], 999 * c) * (0.5 + 0.1 * c) for c in range(4)], axis=1)
        with E.TempDir() as d:
            E.write_float_wav(d + "/mono.wav", mono.astype(np.float32), rate)
            E.write_float_wav(d + "/quad.wav", quad.astype(np.float32), rate)
            for backend in ("cuda", "cufft"):
                for name, args in [("mono.wav", ["-n", 16384, "--hop", 64]),
                                   ("mono.wav", ["--hop", 100, "--scale", "log", "--window", "blackman"]),
                                   ("quad.wav", ["--channel", "all", "-n", 1024, "--hop", 16])]:
                    base = [d + "/" + name, "-q", "-v"] + args
                    what = "%s %s %s" % (backend, name, args)
                    pd = E.run(base + ["-b", backend, "--png", d + "/d.png"], timeout=120)
                    ph = E.run(base + ["-b", backend, "--png", d + "/h.png", "--dump", d + "/h.npy"], timeout=120)
                    pc = E.run(base + ["-b", "cpu", "--png", d + "/c.png"], timeout=120)
                    for p in (pd, ph, pc):
                        self.assertEqual(p.returncode, 0, what + ": " + p.stderr)
                    self.assertIn("computed beside the FFT (%s)" % backend, pd.stderr, what)
                    self.assertNotIn("computed beside the FFT", ph.stderr, what)
                    self.assertNotIn("computed beside the FFT", pc.stderr, what)
                    with open(d + "/d.png", "rb") as f1, open(d + "/h.png", "rb") as f2:
                        self.assertTrue(f1.read() == f2.read(), what + ": device maxima != host maxima")
                    a, b = E.read_png(d + "/c.png"), E.read_png(d + "/d.png")
                    self.assertEqual(a.shape, b.shape, what)
                    same = (a == b).all(axis=2)[40:].mean()  # below the title, which names the backend
                    self.assertGreater(same, 0.995, "%s: %.4f of the pixels as the cpu backend's" % (what, same))

    def test_huge_samples(self):
        """Finite samples near the top of float's range (1e36, 3e38) overflow a float FFT
        (X = inf, then NaN): those frames are computed by the CPU backend, so every backend
        writes finite levels equal to the cpu backend's, and the frames around them are
        untouched (dump and --peaks)."""
        rate = 48000
        t = np.arange(rate) / rate
        x = (0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype(np.float32)
        x[20000:20400] *= np.float32(2e36)   # a burst of 1e36
        x[40000] = np.float32(3e38)          # one sample near FLT_MAX
        for backend in ("cuda", "cufft"):
            for n, hop in [(4096, 1024), (1024, 100), (65536, 4096)]:
                with E.TempDir() as d:
                    E.write_float_wav(d + "/big.wav", x, rate)
                    args = [d + "/big.wav", "-q", "-n", n, "--hop", hop]
                    pc = E.run(args + ["-b", "cpu", "-o", d + "/c.npy"])
                    pg = E.run(args + ["-b", backend, "-o", d + "/g.npy"])
                    self.assertEqual(pc.returncode, 0, pc.stderr)
                    self.assertEqual(pg.returncode, 0, pg.stderr)
                    cpu, gpu = np.load(d + "/c.npy"), np.load(d + "/g.npy")
                    what = "%s n=%d hop=%d" % (backend, n, hop)
                    self.assertTrue(np.isfinite(gpu).all(), what + ": non-finite levels")
                    self.assertGreater(gpu.max(), 600.0, what + ": the burst reads %.1f dBFS" % gpu.max())
                    self.compare(cpu, gpu, what)
                    qc = E.run(args + ["-b", "cpu", "--peaks"])
                    qg = E.run(args + ["-b", backend, "--peaks"])
                    self.assertEqual(qg.returncode, 0, qg.stderr)
                    self.assertNotIn("nan", qg.stdout, what)
                    self.assertNotIn("inf", qg.stdout, what)
                    a, b = np.array(peak_rows(qc.stdout)), np.array(peak_rows(qg.stdout))
                    self.assertEqual(a.shape, b.shape, what)
                    self.assertTrue((np.abs(a[:, 1] - b[:, 1]) < 0.01 * rate / n).all(), what + ": peak bins")
                    self.assertLess(np.abs(a[:, 2] - b[:, 2]).max(), 0.02, what + ": peak levels")


PEAK_CASES = [["-n", 4096], ["-n", 1024, "--hop", 256], ["-n", 16384, "--hop", 64],
              ["-n", 2048, "--fmin", 300, "--fmax", 3000], ["-n", 4096, "--channel", "all"]]


def peak_rows(text):
    """--peaks output -> rows of floats (time, freq, dB; the channel first with --channel all)."""
    return [[float(v) for v in line.split("\t")] for line in text.splitlines()]


class GpuPeaksAgree(unittest.TestCase):
    """--peaks on the GPU (the reduction on the device, only the records copied back) against
    --backend cpu: the same frames, the same peak bins (refined frequency within 0.01 bin) and
    levels within 0.01 dB (printed to 0.01: 0.015 apart at most). Where float rounding
    breaks a near tie (two bins within 0.01 dB) the other bin may win: counted, and few (5 %). The
    same run with --dump (the spectra come back too) prints the same bytes."""
    BACKENDS = ("cuda", "cufft")

    def compare(self, cpu, gpu, bin_hz, what):
        rc, rg = peak_rows(cpu), peak_rows(gpu)
        self.assertEqual(len(rc), len(rg), what)
        self.assertGreater(len(rc), 0, what)
        near = 0
        for a, b in zip(rc, rg):
            self.assertEqual(a[:-2], b[:-2], what + ": frame times / channels differ")
            if a[-1] < -140.0 and b[-1] < -140.0:
                continue  # a range with no signal: both "peaks" are float32 rounding noise
            ddb = abs(a[-1] - b[-1])
            # far below full scale (a range that holds only leakage) float's rounding in
            # either FFT shows: 0.1 dB under -100 dBFS
            tol = 0.015 if a[-1] > -100.0 else 0.1
            if abs(a[-2] - b[-2]) <= 0.01 * bin_hz + 0.0015:
                self.assertLessEqual(ddb, tol, "%s: %s vs %s" % (what, a, b))
            else:
                self.assertLessEqual(ddb, tol + 0.01, "%s: other peak %s vs %s" % (what, a, b))
                near += 1
        # a chirp swept past many bin boundaries at a small hop (16384 / 64) puts the peak
        # between two bins within float rounding in a few percent of its frames
        self.assertLessEqual(near, max(2, len(rc) // 20), what + ": %d near ties" % near)
        return near

    def test_peaks(self):
        compared = near = 0
        for backend in self.BACKENDS:
            for name in audio_assets():
                for case in PEAK_CASES:
                    args = [E.asset(name), "-q", "--peaks"] + case
                    pc = E.run(args + ["-b", "cpu", "-v"], timeout=120)
                    pg = E.run(args + ["-b", backend], timeout=120)
                    what = "%s %s %s" % (backend, name, " ".join(map(str, case)))
                    self.assertEqual(pc.returncode, 0, what + ": " + pc.stderr)
                    self.assertEqual(pg.returncode, 0, what + ": " + pg.stderr)
                    rate = int(re.search(r"(\d+) Hz", pc.stderr).group(1))
                    near += self.compare(pc.stdout, pg.stdout, rate / case[1], what)
                    compared += 1
                    if case is PEAK_CASES[0]:
                        with E.TempDir() as d:
                            pd = E.run(args + ["-b", backend, "--dump", d + "/g.npy"], timeout=120)
                            self.assertEqual(pd.returncode, 0, pd.stderr)
                            self.assertEqual(pd.stdout, pg.stdout, what + ": with --dump")
        print("peaks: %d runs compared, %d near ties" % (compared, near))
        self.assertGreater(compared, 20)



def window_shot(d, name, args, env_extra):
    """The file window on SDL's offscreen driver: the picture it writes once its analysis is
    over (SPECTRO_VIEW_SHOT; it then closes), its SPECTRO_VIEW_STATS and stderr."""
    shot, stats = os.path.join(d, name + ".png"), os.path.join(d, name + ".json")
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy", SPECTRO_VIEW_SHOT=shot,
               SPECTRO_VIEW_STATS=stats)
    env.pop("SPECTRO_TEST_MAXIMA", None)
    env.update(env_extra)
    p = E.run(["-v", "--size", "960x600"] + args, timeout=300, env=env)
    if p.returncode != 0 or not os.path.exists(shot):
        raise AssertionError("%s: exit %d, no picture: %s" % (name, p.returncode, p.stderr))
    with open(stats) as f:
        st = json.load(f)
    return E.read_png(shot), st, p.stderr


@E.needs_hooks
class GpuWindowAgree(unittest.TestCase):
    """The file window with a GPU backend: where its store keeps more than one frame an entry
    (here N 32768 with a hop of 16, or 16384 / 8 with --channel all) the column maxima are
    computed on the device (-v and SPECTRO_VIEW_STATS say so) and only they cross the bus.
    The picture is byte for byte the one with the reduction off (SPECTRO_TEST_MAXIMA=off: every
    spectrum to the host, as before), and nearly the cpu backend's: 99.5 % of the plot's
    pixels equal, the tolerance --png's test allows for float rounding between backends."""

    def test_window(self):
        import e2e_window as EW  # its picture helpers (no X server needed here)
        rate = 48000
        with E.TempDir() as d:
            E.write_float_wav(d + "/mono.wav", EW.busy_signal(6.0).astype(np.float32), rate)
            E.write_float_wav(d + "/two.wav", EW.busy_signal(3.5, channels=2).astype(np.float32), rate)
            cases = [("mono.wav", ["-n", 32768, "--hop", 16]),
                     ("two.wav", ["-n", 16384, "--hop", 8, "--channel", "all", "--scale", "log"])]
            for backend in ("cuda", "cufft"):
                for name, args in cases:
                    base = [d + "/" + name] + args
                    what = "%s %s %s" % (backend, name, args)
                    dev, sd, ed = window_shot(d, "dev", base + ["-b", backend], {})
                    off, so, eo = window_shot(d, "off", base + ["-b", backend], {"SPECTRO_TEST_MAXIMA": "off"})
                    cpu, sc, ec = window_shot(d, "cpu", base + ["-b", "cpu"], {})
                    fpc = sd["store"]["frames_per_entry"]
                    self.assertGreater(fpc, 1, what)
                    self.assertEqual(sd["store"]["maxima_span"], fpc, what + ": the device's maxima not used")
                    self.assertIn("picture: the maxima of every %d frames computed beside the FFT (%s)" %
                                  (fpc, backend), ed, what)
                    self.assertEqual(so["store"]["maxima_span"], 0, what)
                    self.assertEqual(sc["store"]["maxima_span"], 0, what)
                    self.assertNotIn("picture: the maxima", eo + ec, what)
                    self.assertEqual(dev.shape, off.shape, what)
                    self.assertTrue((dev == off).all(), "%s: %d pixels apart from the reduction off" %
                                    (what, (dev != off).any(axis=2).sum()))
                    x, y, w, h = EW.find_plot(cpu)
                    self.assertEqual((x, y, w, h), EW.find_plot(dev), what)
                    same = (cpu[y:y + h, x:x + w] == dev[y:y + h, x:x + w]).all(axis=2).mean()
                    self.assertGreater(same, 0.995, "%s: %.4f of the plot's pixels as the cpu backend's" % (what, same))


if __name__ == "__main__":
    if len(sys.argv) >= 3:
        E.BIN, E.ASSETS = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
        if not gpu_available():
            print("no usable GPU (or a build without CUDA): skipped")
            sys.exit(77)
    E.main()
