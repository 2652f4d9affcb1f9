#!/usr/bin/python3
"""Files decoded ahead on several threads (SPECTRO_READERS, src/source/source_file_par.c)
against the serial read (SPECTRO_READERS=1): the same dump byte for byte, the same
sidecar, the same stderr (the NaN/Inf count, the truncation warning), for WAV, WAV
extensible, AIFF, AIFF-C, AU, W64, CAF and raw files of 8 to 64-bit PCM, float, double,
u-law and A-law, 1 to 3 channels; --start and --duration across chunk edges; small
chunks (SPECTRO_READ_CHUNK) so that short files span many; a bad value of either
variable: exit 2, one line naming it."""
import os
import shutil
import struct
import subprocess
import unittest

import numpy as np

import spectro_e2e as E

CHUNK = "1000"  # frames a decoder thread decodes at a time, in most runs


def env(readers, chunk=CHUNK):
    e = dict(os.environ)
    e["SPECTRO_READERS"] = str(readers)
    if chunk is None:
        e.pop("SPECTRO_READ_CHUNK", None)
    else:
        e["SPECTRO_READ_CHUNK"] = chunk
    return e


def noise(frames, ch, seed):
    rng = np.random.default_rng(seed)
    return (0.8 * rng.uniform(-1, 1, (frames, ch))).astype("<f4")


def write_pcm_wav(path, x, bits):
    """Integer PCM WAV written here (8-bit unsigned, 16/24/32-bit signed)."""
    frames, ch = x.shape
    if bits == 8:
        data = np.clip(np.round(x * 127 + 128), 0, 255).astype(np.uint8).tobytes()
    elif bits == 24:
        v = np.clip(np.round(x * 8388607), -8388608, 8388607).astype("<i4")
        data = v.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    else:
        dt = {16: "<i2", 32: "<i4"}[bits]
        data = np.round(x * (2 ** (bits - 1) - 1)).astype(dt).tobytes()
    block = ch * bits // 8
    fmt = struct.pack("<HHIIHH", 1, ch, 44100, 44100 * block, block, bits)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<I", len(fmt)) + fmt)
        f.write(b"data" + struct.pack("<I", len(data)) + data)


@E.needs_hooks
class Reader(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = E.TempDir()
        cls.d = cls.tmp.__enter__()
        cls.files = {}
        src = os.path.join(cls.d, "src.wav")
        E.write_float_wav(src, noise(23457, 2, 1), 44100)
        w = os.path.join(cls.d, "pcm%d.wav")
        for i, bits in enumerate((8, 16, 24, 32)):
            write_pcm_wav(w % bits, noise(12345 + 17 * i, 1 + i % 3, 10 + i), bits)
            cls.files["wav s%d" % bits] = (w % bits, [])
        x = noise(9876, 3, 2)
        x[100, 0], x[5000, 2], x[9875, 1] = np.nan, np.inf, -np.inf
        cls.files["wav float nan"] = (os.path.join(cls.d, "nan.wav"), [])
        E.write_float_wav(cls.files["wav float nan"][0], x, 22050)  # 3 channels: extensible
        cls.files["raw f32"] = (os.path.join(cls.d, "x.f32"), ["--raw-format", "f32le,16000,2"])
        noise(11111, 2, 3).tofile(cls.files["raw f32"][0])
        if shutil.which("sox"):
            for name, ext, enc in (("aiff s24", "aiff", ["-e", "signed", "-b", "24"]),
                                   ("aifc float", "aifc", ["-e", "floating-point", "-b", "32"]),
                                   ("au ulaw", "au", ["-e", "u-law"]),
                                   ("au alaw", "au", ["-e", "a-law"]),
                                   ("wav double", "wav", ["-e", "floating-point", "-b", "64"]),
                                   ("w64 s16", "w64", ["-e", "signed", "-b", "16"]),
                                   ("caf s32", "caf", ["-e", "signed", "-b", "32"]),
                                   ("wav u8", "wav", ["-e", "unsigned", "-b", "8"])):
                path = os.path.join(cls.d, name.replace(" ", "_") + "." + ext)
                r = subprocess.run(["sox", "-D", "-V1", src] + enc + [path], capture_output=True)
                if r.returncode == 0:
                    cls.files[name] = (path, [])
        cut = os.path.join(cls.d, "cut.wav")
        write_pcm_wav(cut, noise(30000, 2, 4), 16)
        with open(cut, "r+b") as f:
            f.truncate(os.path.getsize(cut) * 2 // 3 + 1)
        cls.files["wav cut short"] = (cut, [])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.__exit__(None, None, None)

    def dump_both(self, path, args, readers=3, chunk=CHUNK):
        """The dump, its sidecar and stderr with the serial read and with the threads."""
        out = []
        for r in (1, readers):
            npy = os.path.join(self.d, "o%d.npy" % r)
            p = E.run([path, "-c", "all", "-w", "rect", "-n", "256", "--hop", "200", "-o", npy] + args,
                      env=env(r, chunk))
            self.assertEqual(p.returncode, 0, "readers %d: %s" % (r, p.stderr))
            with open(npy, "rb") as f:
                data = f.read()
            meta = E.load_json(self, npy + ".json")
            out.append((data, meta, p.stderr.replace(npy, "OUT")))
        return out

    def check_same(self, path, args, what, readers=3, chunk=CHUNK):
        (a, ma, ea), (b, mb, eb) = self.dump_both(path, args, readers, chunk)
        self.assertTrue(len(a) > 128, what)
        self.assertEqual(a, b, "%s: the dumps differ" % what)
        self.assertEqual(ma, mb, what)
        self.assertEqual(ea, eb, what)
        return ma, ea

    def test_formats(self):
        """Every file made here, whole: the same bytes."""
        self.assertGreaterEqual(len(self.files), 7)
        for name, (path, args) in sorted(self.files.items()):
            with self.subTest(name=name):
                self.check_same(path, args, name)

    def test_nonfinite_counted_the_same(self):
        meta, err = self.check_same(*self.files["wav float nan"], "nan")
        self.assertEqual(meta["nonfinite_samples"], 3)
        self.assertEqual(len([l for l in err.splitlines() if l.startswith("spectro: warning:")]), 1, err)

    def test_truncated_flagged_the_same(self):
        meta, err = self.check_same(*self.files["wav cut short"], "cut")
        self.assertTrue(meta["truncated"], meta)
        self.assertIn("cut.wav", err)
        meta, err = self.check_same(E.asset("truncated_48k_s16.wav"), [], "asset")
        self.assertTrue(meta["truncated"], meta)

    def test_ranges(self):
        """--start/--duration at odd frames, in and across chunks (44.1 kHz: one frame is
        22.7 us), --start on a chunk's edge; --duration stopping inside the file."""
        path, args = self.files["wav s24"]  # 12379 frames
        sec = lambda f: "%.9f" % (f / 44100)
        for start, dur in ((1000, None), (999, 1001), (542, 4410), (7777, 3333), (12000, None), (1, 2000),
                           (8820, 2205), (12378, None)):
            extra = ["--start", sec(start)] + (["--duration", sec(dur)] if dur else [])
            with self.subTest(args=extra):
                meta, _ = self.check_same(path, args + extra, " ".join(extra))
                self.assertFalse(meta["truncated"])

    def test_chunk_sizes(self):
        """One frame a chunk, a prime, the default (2 MB of samples: one chunk for these
        files), more threads than chunks."""
        path, args = self.files["wav s16"]
        for readers, chunk in ((2, "1"), (4, "997"), (2, None), (8, "5000"), (64, "3")):
            with self.subTest(readers=readers, chunk=chunk):
                self.check_same(path, args, "chunk %s" % chunk, readers, chunk)

    def test_peaks_the_same(self):
        """A longer file (several default chunks) through --peaks: the same lines."""
        path = os.path.join(self.d, "long.wav")
        write_pcm_wav(path, noise(44100 * 60, 1, 5), 16)  # 5 default chunks and a part
        outs = []
        for r in (1, 2, 4):
            p = E.run([path, "--peaks", "-n", "1024"], env=env(r, None))
            self.assertEqual(p.returncode, 0, p.stderr)
            outs.append(p.stdout)
        self.assertGreater(len(outs[0].splitlines()), 1000)
        self.assertEqual(outs[0], outs[1])
        self.assertEqual(outs[0], outs[2])

    def test_bad_values(self):
        path = E.asset("two_tone_48k_s16.wav")
        for var, val in (("SPECTRO_READERS", "0"), ("SPECTRO_READERS", "65"), ("SPECTRO_READERS", "two"),
                         ("SPECTRO_READ_CHUNK", "0"), ("SPECTRO_READ_CHUNK", "1k")):
            with self.subTest(var=var, val=val):
                e = env(2)
                e[var] = val
                p = E.run([path, "--peaks"], env=e)
                self.assertEqual(p.returncode, 2, p.stderr)
                lines = E.stderr_lines(p)
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn("%s=%s" % (var, val), lines[0])
                self.assertEqual(p.stdout, "")


if __name__ == "__main__":
    E.main()
