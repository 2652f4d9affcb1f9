"""Shared helpers for the end-to-end tests of the spectro binary.

Every test script is run as   python3 tests/e2e/<test>.py  SPECTRO_BINARY  ASSETS_DIR
and checks the program against an independent NumPy reference computed here: its own WAV
reader (not libsndfile), float64 FFTs, scipy windows.  Nothing here calls the program's
code; the reference follows the contracts of docs/design.md.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

import numpy as np
import scipy.signal

BIN = None
ASSETS = None

# Levels above this are compared tightly; below it float32 FFT round-off dominates.
FLOOR_DB = -120.0
TOL_DB = 1e-3
# Float32 round-off of a full-scale frame is about 1e-8 (-160 dBFS); this absolute slack
# (-134 dBFS) only matters for bins within ~40 dB of FLOOR_DB, where TOL_DB alone would
# ask float32 for more digits than it has.
ABS_AMP_TOL = 2e-7
WINDOWS = ["hann", "hamming", "blackman", "blackman-harris", "flattop", "rect",
           "kaiser", "gauss"]

# The test hooks (docs/developer.md "Test hooks": SPECTRO_TEST_*, SPECTRO_VIEW_*,
# SPECTRO_AUTO_DEVICE, SPECTRO_READ_CHUNK) are in the binary only when it was configured with
# -DSPECTRO_TEST_HOOKS=ON; ctest passes SPECTRO_TEST_HOOKS=0 to the tests of a build without
# them, and the tests that need them skip there. Run by hand, a test assumes them.
HOOKS = os.environ.get("SPECTRO_TEST_HOOKS", "1") != "0"
needs_hooks = unittest.skipUnless(HOOKS, "needs the test hooks (a build with -DSPECTRO_TEST_HOOKS=ON)")


def parse_args():
    """argv = [script, binary, assets, unittest args...]: sets BIN and ASSETS, returns the
    argv for unittest.main."""
    global BIN, ASSETS
    if len(sys.argv) < 3:
        sys.exit("usage: %s SPECTRO_BINARY ASSETS_DIR" % sys.argv[0])
    BIN = os.path.abspath(sys.argv[1])
    ASSETS = os.path.abspath(sys.argv[2])
    if not os.access(BIN, os.X_OK):
        sys.exit("spectro binary not found or not executable: " + BIN)
    return [sys.argv[0]] + sys.argv[3:]


def main():
    """Entry point of every test script: argv = [script, binary, assets]."""
    unittest.main(argv=parse_args(), verbosity=2)


def asset(name):
    return os.path.join(ASSETS, name)


def run(args, cwd=None, timeout=60, env=None, **kw):
    """Run the binary (stdin empty; env None: this environment; kw: more subprocess.run
    options); returns CompletedProcess with text stdout/stderr."""
    return subprocess.run([BIN] + [str(a) for a in args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL, **kw)


def stderr_lines(proc):
    """stderr lines less informational notes ('spectro: note: using the cpu backend')."""
    return [l for l in proc.stderr.splitlines()
            if l.strip() != "" and not l.startswith("spectro: note:")]


def listing(d):
    """Every path under d (recursively), for checking that nothing was left behind."""
    out = set()
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(root, n), d))
    return out


class TempDir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="spectro-e2e-")
        return self.path

    def __exit__(self, *a):
        shutil.rmtree(self.path, ignore_errors=True)


# ---- audio reading (independent of libsndfile) ------------------------------------------

def read_wav(path):
    """Returns (samples float64 array (frames, channels), rate, truncated).
    Integer PCM normalised as libsndfile does: 8-bit (u-128)/128, 16-bit /32768,
    24-bit /8388608, 32-bit /2^31.  A data chunk longer than the file is cut to the
    whole frames present (truncated = True)."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise ValueError("not a RIFF/WAVE file: " + path)
    pos = 12
    fmt = None
    data = None
    truncated = False
    while pos + 8 <= len(blob):
        cid, size = blob[pos:pos + 4], struct.unpack("<I", blob[pos + 4:pos + 8])[0]
        body = blob[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt = body
        elif cid == b"data":
            data = body
            if len(body) < size:
                truncated = True
            break
        pos += 8 + size + (size & 1)
    tag, ch, rate, _, block, bits = struct.unpack("<HHIIHH", fmt[:16])
    if tag == 0xFFFE:
        tag = struct.unpack("<H", fmt[24:26])[0]
    frames = len(data) // block
    raw = data[:frames * block]
    if tag == 3 and bits == 32:
        x = np.frombuffer(raw, "<f4").astype(np.float64)
    elif tag == 3 and bits == 64:
        x = np.frombuffer(raw, "<f8").copy()
    elif tag == 1 and bits == 8:
        x = (np.frombuffer(raw, np.uint8).astype(np.float64) - 128) / 128
    elif tag == 1 and bits == 16:
        x = np.frombuffer(raw, "<i2") / 32768.0
    elif tag == 1 and bits == 24:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        x = v / 8388608.0
    elif tag == 1 and bits == 32:
        x = np.frombuffer(raw, "<i4") / 2147483648.0
    else:
        raise ValueError("unsupported WAV format tag %d / %d bits" % (tag, bits))
    return x.reshape(frames, ch), rate, truncated


def read_audio(path):
    """WAV through read_wav; anything else decoded by sox to a temporary float WAV."""
    if path.lower().endswith(".wav"):
        return read_wav(path)
    if shutil.which("sox") is None:
        raise RuntimeError("sox is needed to decode %s for the reference: apt-get install sox"
                           % path)
    with TempDir() as d:
        tmp = os.path.join(d, "decoded.wav")
        subprocess.run(["sox", "-D", "-V1", path, "-e", "floating-point", "-b", "32", tmp],
                       check=True)
        x, rate, _ = read_wav(tmp)
        return x, rate, False


def write_float_wav(path, x, rate):
    """Float32 WAV, WAVE_FORMAT_EXTENSIBLE when more than two channels."""
    x = np.asarray(x, dtype="<f4")
    if x.ndim == 1:
        x = x[:, None]
    frames, ch = x.shape
    block = 4 * ch
    if ch > 2:
        fmt = struct.pack("<HHIIHHHHIH", 0xFFFE, ch, rate, rate * block, block, 32, 22, 32,
                          0, 3) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
    else:
        fmt = struct.pack("<HHIIHHH", 3, ch, rate, rate * block, block, 32, 0)
    data = x.tobytes()
    chunks = (b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"fact" +
              struct.pack("<II", 4, frames) + b"data" + struct.pack("<I", len(data)) + data)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks)


# ---- pictures ------------------------------------------------------------------------------

def read_png(path):
    """8-bit RGB/RGBA, non-interlaced PNG -> (h, w, 3) uint8 (what png_write makes)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    out = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        elif f == 1:
            cur = (np.cumsum(line.reshape(w, bpp), axis=0) & 255).reshape(stride)
        else:  # Average, Paeth: sequential along the row
            c, pl = line.tolist(), prev.tolist()
            for i in range(stride):
                a = c[i - bpp] if i >= bpp else 0
                b = pl[i]
                if f == 3:
                    c[i] = (c[i] + ((a + b) >> 1)) & 255
                else:
                    cc = pl[i - bpp] if i >= bpp else 0
                    p = a + b - cc
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                    c[i] = (c[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else cc))) & 255
            cur = np.array(c, np.int32)
        out[y] = cur
        prev = cur
    return out.reshape(h, w, bpp)[:, :, :3]


# ---- reference analysis ------------------------------------------------------------------

def parse_window(spec):
    """CLI window text -> (canonical name, parameter or None)."""
    name, _, p = spec.partition(":")
    if name == "kaiser":
        return name, float(p) if p else 8.6
    if name == "gauss":
        return name, float(p) if p else 0.4
    return name, None


def window(spec, n):
    name, p = parse_window(spec)
    sc = {"hann": "hann", "hamming": "hamming", "blackman": "blackman",
          "blackman-harris": "blackmanharris", "flattop": "flattop", "rect": "boxcar"}
    if name == "kaiser":
        w = ("kaiser", p)
    elif name == "gauss":
        w = ("gaussian", p * n / 2)
    else:
        w = sc[name]
    return scipy.signal.get_window(w, n, fftbins=True)


def frame_count(length, n, hop):
    return 1 if length < n else (length - n) // hop + 1


def spectrum_db(sig, n, hop, win):
    """dB spectra (frames, n/2+1) of one channel, as docs/design.md defines them. Fewer
    samples L than n: one frame, zero-padded, whose window is the L-point one (zeros after L)."""
    sig = np.where(np.isfinite(sig), sig, 0.0)
    length = len(sig)
    w = window(win, n) if isinstance(win, str) else win
    if length < n:
        sig = np.concatenate([sig, np.zeros(n - length)])
        if isinstance(win, str):
            w = np.concatenate([window(win, length), np.zeros(n - length)])
    nf = frame_count(length, n, hop)
    idx = np.arange(n)[None, :] + hop * np.arange(nf)[:, None]
    out = np.empty((nf, n // 2 + 1))
    step = max(1, (1 << 22) // n)  # bound the memory of one rfft batch
    for s in range(0, nf, step):
        X = np.abs(np.fft.rfft(sig[idx[s:s + step]] * w, axis=1))
        a = 2 * X / w.sum()
        a[:, 0] /= 2
        a[:, -1] /= 2
        out[s:s + step] = 20 * np.log10(np.maximum(a, 1e-10))
    return out


def reference(x, n=4096, hop=None, win="hann", channel="mix"):
    """Reference spectra: (frames, bins) for mix or one channel, (C, frames, bins) for all."""
    hop = hop or n // 4
    x = np.where(np.isfinite(x), x, 0.0)
    if channel == "all":
        return np.stack([spectrum_db(x[:, c], n, hop, win) for c in range(x.shape[1])])
    if channel == "mix":
        sig = x.astype(np.float32).mean(axis=1, dtype=np.float64)
    else:
        sig = x[:, int(channel)]
    return spectrum_db(sig, n, hop, win)


def peak_of(db_row, rate, n):
    """The --peaks formula on one spectrum row: (freq_hz, db)."""
    k = int(np.argmax(db_row[1:n // 2])) + 1
    l, c, r = db_row[k - 1], db_row[k], db_row[k + 1]
    den = l - 2 * c + r
    d = 0.5 * (l - r) / den if den != 0 else 0.0
    return (k + d) * rate / n, c - 0.25 * (l - r) * d


# ---- program output -----------------------------------------------------------------------

def load_npy(tc, path):
    """Loads a dump, checking the header is NumPy format 1.0, '<f4', C order."""
    with open(path, "rb") as f:
        head = f.read(10)
        tc.assertEqual(head[:8], b"\x93NUMPY\x01\x00", "npy magic/version 1.0: " + path)
        hlen = struct.unpack("<H", head[8:10])[0]
        header = f.read(hlen).decode("latin1")
        tc.assertEqual((10 + hlen) % 64, 0, "npy header padded to 64 bytes")
    import ast
    h = ast.literal_eval(header)
    tc.assertEqual(h["descr"], "<f4")
    tc.assertFalse(h["fortran_order"])
    a = np.load(path, allow_pickle=False)
    tc.assertEqual(a.shape, tuple(h["shape"]))
    tc.assertEqual(os.path.getsize(path), 10 + hlen + 4 * a.size, "npy has no trailing bytes")
    return a


def load_json(tc, path):
    tc.assertTrue(os.path.isfile(path), "sidecar missing: " + path)
    with open(path) as f:
        return json.load(f)


JSON_KEYS = {"source", "decoder", "start_s", "sample_rate", "source_channels", "channel", "channels", "fft_size",
             "hop", "window", "frames", "bins", "time_first_s", "time_step_s", "bin_hz",
             "backend", "nonfinite_samples", "truncated"}


def check_meta(tc, meta, source, rate, src_ch, length, n=4096, hop=None, win="hann",
               channel="mix", nonfinite=0, truncated=False, backends=("cpu", "cuda")):
    hop = hop or n // 4
    missing = JSON_KEYS - set(meta)
    tc.assertFalse(missing, "JSON keys missing: %s" % sorted(missing))
    nf = frame_count(length, n, hop)
    tc.assertEqual(meta["source"], source)
    tc.assertEqual(meta["start_s"], 0)
    tc.assertEqual(meta["sample_rate"], rate)
    tc.assertEqual(meta["source_channels"], src_ch)
    tc.assertEqual(meta["channel"], channel)
    tc.assertEqual(meta["channels"], src_ch if channel == "all" else 1)
    tc.assertEqual(meta["fft_size"], n)
    tc.assertEqual(meta["hop"], hop)
    name, p = parse_window(win)
    gname, _, gp = str(meta["window"]).partition(":")
    tc.assertEqual(gname, name, "window name in JSON")
    if p is None:
        tc.assertEqual(gp, "", "window %r takes no parameter" % name)
    else:
        tc.assertAlmostEqual(float(gp), p, places=6, msg="window parameter in JSON")
    tc.assertEqual(meta["frames"], nf)
    tc.assertEqual(meta["bins"], n // 2 + 1)
    # a frame's centre; the one zero-padded frame's is that of the samples present
    tc.assertAlmostEqual(meta["time_first_s"], (min(length, n) / 2) / rate, delta=1e-9 * max(1, n / rate))
    tc.assertAlmostEqual(meta["time_step_s"], hop / rate, delta=1e-12 + 1e-9 * hop / rate)
    tc.assertAlmostEqual(meta["bin_hz"], rate / n, delta=1e-9 * rate / n)
    tc.assertIn(meta["backend"], backends)
    tc.assertEqual(meta["nonfinite_samples"], nonfinite)
    tc.assertIs(meta["truncated"], truncated)


def assert_db_close(tc, got, ref, what="", floor=FLOOR_DB, abs_tol=ABS_AMP_TOL):
    """got (program, float32 dB) against ref (float64 reference dB), same shape.
    Above FLOOR_DB: within TOL_DB (amplitude error <= TOL_DB relative + ABS_AMP_TOL);
    at or below it: the program must read at most floor + 20 dB.  Never NaN."""
    tc.assertEqual(got.shape, ref.shape, what + ": shape")
    tc.assertFalse(np.isnan(got).any(), what + ": NaN in output")
    tc.assertTrue(np.isfinite(got).all(), what + ": Inf in output")
    tc.assertGreaterEqual(float(got.min()), -200.0 - 1e-4, what + ": below the -200 dB floor")
    g = got.astype(np.float64)
    hi = ref > floor
    ag, ar = 10 ** (g[hi] / 20), 10 ** (ref[hi] / 20)
    allowed = ar * (10 ** (TOL_DB / 20) - 1) + abs_tol
    bad = np.abs(ag - ar) > allowed
    if bad.any():
        i = np.argwhere(hi)[np.argmax(np.abs(ag - ar) - allowed)]
        tc.fail("%s: %d of %d bins above %g dB differ by more than %g dB; worst at index %s:"
                " got %.6f dB, reference %.6f dB"
                % (what, bad.sum(), hi.sum(), floor, TOL_DB, tuple(i), g[tuple(i)],
                   ref[tuple(i)]))
    lo = ~hi
    if lo.any():
        worst = float(g[lo].max())
        tc.assertLessEqual(worst, floor + 20, what + ": a bin the reference "
                           "puts at or below %g dB reads %.2f dB" % (floor, worst))


def dump(tc, args, out_name="out.npy", cwd=None, expect_warning=False):
    """Runs spectro ARGS -o OUT in a temp dir (or cwd); returns (array, meta, proc)."""
    own = cwd is None
    d = tempfile.mkdtemp(prefix="spectro-e2e-") if own else cwd
    try:
        out = os.path.join(d, out_name)
        p = run(list(args) + ["-o", out], cwd=d)
        tc.assertEqual(p.returncode, 0, "spectro %s: exit %d, stderr: %s"
                       % (" ".join(map(str, args)), p.returncode, p.stderr.strip()))
        lines = stderr_lines(p)
        warns = [l for l in lines if l.startswith("spectro: warning:")]
        if expect_warning:
            tc.assertEqual(len(warns), 1, "expected one warning line, stderr: %r" % p.stderr)
        else:
            tc.assertEqual(warns, [], "unexpected warning")
        if own:
            tc.assertEqual(listing(d), {out_name, out_name + ".json"},
                           "output dir holds exactly OUT and OUT.json")
        if out_name.endswith(".npy"):
            a = load_npy(tc, out)
        else:
            with open(out) as f:
                a = f.read()
        meta = load_json(tc, out + ".json")
        return a, meta, p
    finally:
        if own:
            shutil.rmtree(d, ignore_errors=True)


def level_at(db, k):
    return float(np.asarray(db)[..., k].mean())
