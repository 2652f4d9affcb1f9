"""The public C API against the program, byte for byte.

tests/api_tool.c does through libspectro (spectro.h only) what the program's outputs do; here
both run on the assets and their outputs are compared: the spectra of --dump (pushed in
several chunkings and in one call), --peaks lines, --tone JSON, --bands and --average dumps,
with time ranges, channel modes, windows and a synth: spec. Then the library itself: the
header alone compiles as C99 (-pedantic) and as C++, the shared object exports spectro_* and
its version node only, and its SONAME is libspectro.so.<SPECTRO_SOVERSION>.

  python3 e2e_api.py SPECTRO_BINARY ASSETS_DIR
with SPECTRO_API_TOOL, SPECTRO_LIB, SPECTRO_INCLUDE, SPECTRO_CC, SPECTRO_CXX (may be empty)
and SPECTRO_SOVERSION in the environment (tests/CMakeLists.txt sets them).
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import spectro_e2e as e2e

TOOL = os.environ.get("SPECTRO_API_TOOL", "")
LIB = os.environ.get("SPECTRO_LIB", "")

# (asset, program options, api_tool keys): the same analysis said both ways
CASES = [
    ("two_tone_48k_s16.wav", [], []),
    ("sine_1000hz_48k_f32.wav", ["-n", "1024", "--hop", "300", "--window", "blackman-harris"],
     ["n=1024", "hop=300", "window=blackman-harris"]),
    ("stereo_1500l_3000r_48k_s16.wav", ["--channel", "all", "--window", "kaiser:6"],
     ["channel=all", "window=kaiser:6"]),
    ("stereo_1500l_3000r_48k_s16.wav", ["--channel", "1", "-n", "2048"], ["channel=1", "n=2048"]),
    ("eight_channels_48k_s16.wav", ["-n", "512", "--window", "flattop"], ["n=512", "window=flattop"]),
    ("short_3000_samples_48k_f32.wav", [], []),
    ("demo.flac", ["--start", "0.5", "--end", "1.75", "-n", "8192", "--hop", "1000"],
     ["start=0.5", "end=1.75", "n=8192", "hop=1000"]),
    ("sine_513hz_8k_u8.wav", ["-n", "256", "--window", "gauss:0.3"], ["n=256", "window=gauss:0.3"]),
]


# The library reads no environment: auto weighs the job by the real machine's rates there,
# so the program runs here without the rates a GPU run gives it (scripts/gpu.sh's
# SPECTRO_AUTO_RATES, which make the cpu look slow), or the two could pick different backends.
ENV = {k: v for k, v in os.environ.items() if k != "SPECTRO_AUTO_RATES"}


def run(args, **kw):
    return subprocess.run(args, capture_output=True, check=False, env=ENV, **kw)


class Api(unittest.TestCase):
    def setUp(self):
        if not TOOL:
            self.skipTest("SPECTRO_API_TOOL not set")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def program(self, asset, opts):
        r = run([e2e.BIN] + opts + [os.path.join(e2e.ASSETS, asset)])
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r.stdout

    def tool(self, kind, asset, keys, out="-"):
        src = asset if asset.startswith("synth:") else os.path.join(e2e.ASSETS, asset)
        r = run([TOOL, kind, src, out] + keys)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r.stdout

    def tool_raw(self, kind, asset, keys):
        out = self.path("api.raw")
        self.tool(kind, asset, keys, out)
        with open(out, "rb") as f:
            return f.read()

    def test_dump_any_chunking(self):
        for asset, opts, keys in CASES:
            npy = self.path("cli.npy")
            self.program(asset, opts + ["--dump", npy])
            want = np.load(npy)
            for chunk in ("chunk=0", "chunk=1", "chunk=777", "chunk=100000"):
                with self.subTest(asset=asset, opts=opts, chunk=chunk):
                    got = self.tool_raw("dump", asset, keys + [chunk])
                    self.assertEqual(len(got), want.nbytes)
                    self.assertTrue(got == want.tobytes(), "spectra differ from --dump")

    def test_complex_scale(self):
        for asset, opts, keys in CASES[:3]:
            npy = self.path("cli.npy")
            self.program(asset, opts + ["--dump", npy])
            want = np.load(npy).astype(np.float64)
            z = np.frombuffer(self.tool_raw("complex", asset, keys), dtype=np.complex64).reshape(want.shape)
            level = 10 * np.log10(np.maximum(np.abs(z.astype(np.complex128)) ** 2, 1e-20))
            loud = want > -120
            with self.subTest(asset=asset):
                self.assertLess(np.abs(level - want)[loud].max(), 1e-3)

    def test_peaks_lines(self):
        for asset, opts, keys in CASES:
            for extra, more in (([], []), (["--fmin", "900", "--fmax", "5000"], ["fmin=900", "fmax=5000"])):
                with self.subTest(asset=asset, opts=opts + extra):
                    want = self.program(asset, opts + extra + ["--peaks"])
                    self.assertEqual(self.tool("peaks", asset, keys + more), want)

    def test_tone_json(self):
        for asset, opts, keys in CASES:
            if asset.startswith("short") or "8k" in asset:
                continue  # bands that hold no tone: the program's refusal, not compared
            # without window= api_tool takes spectro_tone_window(), as --tone does without --window
            with self.subTest(asset=asset, opts=opts):
                # the program's lines lead with the input's name, which samples in memory lack
                want = re.sub(rb'^\{"input": "[^"]*", ', b"{", self.program(asset, opts + ["--tone"]), flags=re.M)
                self.assertEqual(self.tool("tone", asset, keys), want)

    def test_bands_and_average(self):
        variants = [
            (["--bands", "3"], ["fraction=3"], "bands"),
            (["--bands", "1", "--weighting", "A", "--average", "max"], ["fraction=1", "weighting=A", "mode=1"], "bands"),
            (["--bands", "12", "--weighting", "C", "--fmin", "100", "--fmax", "8000"],
             ["fraction=12", "weighting=C", "fmin=100", "fmax=8000"], "bands"),
            (["--average", "mean"], ["mode=0"], "average"),
            (["--average", "min", "--psd"], ["mode=2", "psd=1"], "average"),
        ]
        for asset, opts, keys in CASES:
            if asset.startswith("short") or "8k" in asset:
                continue
            for vopts, vkeys, kind in variants:
                if "-n" in opts and kind == "bands":
                    continue  # short FFTs resolve few bands: covered with the default N
                npy = self.path("cli.npy")
                with self.subTest(asset=asset, opts=opts + vopts):
                    self.program(asset, opts + vopts + ["--dump", npy])
                    self.assertTrue(self.tool_raw(kind, asset, keys + vkeys) == np.load(npy).tobytes())

    def test_gpu_backends(self):
        # the same on the GPU: the program's --dump and --peaks against the API on cuda and cufft
        # (skipped without a usable device); peaks come from the device's reduction there
        asset, opts, keys = CASES[2]
        for backend in ("cuda", "cufft"):
            npy = self.path("gpu.npy")
            r = run([e2e.BIN, "--backend", backend, "--dump", npy] + opts + [os.path.join(e2e.ASSETS, asset)])
            if r.returncode != 0:
                self.skipTest("no GPU here: " + r.stderr.decode().strip())
            for chunk in ("chunk=0", "chunk=999"):
                with self.subTest(backend=backend, chunk=chunk):
                    got = self.tool_raw("dump", asset, keys + ["backend=" + backend, chunk])
                    self.assertTrue(got == np.load(npy).tobytes(), "spectra differ from --dump")
            for a, o, k in CASES[:2]:
                with self.subTest(backend=backend, asset=a, output="peaks"):
                    want = self.program(a, o + ["--backend", backend, "--peaks"])
                    self.assertEqual(self.tool("peaks", a, k + ["backend=" + backend]), want)

    def test_synth_spec(self):
        spec = "synth:rate=44100,channels=2,sine=3000@0.25,noise=0.01,seed=7,duration=2"
        npy = self.path("cli.npy")
        r = run([e2e.BIN, "--dump", npy, "--channel", "all", spec])
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertTrue(self.tool_raw("dump", spec, ["channel=all", "chunk=5000"]) == np.load(npy).tobytes())

    def test_errors_name_fields(self):
        for keys, field in ((["n=1000"], "fft_size 1000"), (["window=hanx"], "window hanx"),
                            (["channel=5"], "channel 5"), (["backend=gpu"], 'backend "gpu"'),
                            (["end=99"], "end 99 s is past the end")):
            r = run([TOOL, "dump", os.path.join(e2e.ASSETS, "two_tone_48k_s16.wav"), self.path("x")] + keys)
            with self.subTest(keys=keys):
                self.assertEqual(r.returncode, 1)
                err = r.stderr.decode()
                self.assertIn(field, err)
                self.assertNotIn("--", err)


class Library(unittest.TestCase):
    def test_header_alone_c99_and_cxx(self):
        inc = os.environ.get("SPECTRO_INCLUDE", "")
        if not inc:
            self.skipTest("SPECTRO_INCLUDE not set")
        # spectro.h brings in spectro_job.h; either one first gives both
        mains = {"h.c": '#include "spectro.h"\nint main(void) { return spectro_job_create(0, 0) == 0; }\n',
                 "j.c": '#include "spectro_job.h"\nint main(void) { return spectro_version() == 0; }\n'}
        with tempfile.TemporaryDirectory() as d:
            cc = os.environ.get("SPECTRO_CC") or "cc"
            cxx = os.environ.get("SPECTRO_CXX", "")
            for name, text in mains.items():
                src = os.path.join(d, name)
                with open(src, "w") as f:
                    f.write(text)
                r = run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-I", inc, "-c", src,
                         "-o", src + ".o"])
                self.assertEqual(r.returncode, 0, r.stderr.decode())
                if not cxx or cxx.endswith("NOTFOUND"):
                    continue
                r = run([cxx, "-x", "c++", "-std=c++11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-I", inc,
                         "-c", src, "-o", src + ".cc.o"])
                self.assertEqual(r.returncode, 0, r.stderr.decode())
            if not cxx or cxx.endswith("NOTFOUND"):
                self.skipTest("no C++ compiler")

    def test_exports_and_soname(self):
        if not LIB:
            self.skipTest("SPECTRO_LIB not set")
        r = run(["nm", "-D", "--defined-only", LIB])
        if r.returncode != 0:
            self.skipTest("nm failed: " + r.stderr.decode())
        names = [line.split()[-1] for line in r.stdout.decode().splitlines() if line.strip()]
        self.assertTrue(any(n.startswith("spectro_analyzer_create") for n in names), names)
        stray = [n for n in names if not n.startswith("spectro_") and n != "SPECTRO_1"]
        self.assertEqual(stray, [])
        r = run(["objdump", "-p", LIB])
        if r.returncode != 0:
            self.skipTest("objdump failed")
        soname = [l.split()[-1] for l in r.stdout.decode().splitlines() if "SONAME" in l]
        self.assertEqual(soname, ["libspectro.so.%s" % os.environ.get("SPECTRO_SOVERSION", "1")])


if __name__ == "__main__":
    unittest.main(argv=e2e.parse_args())
