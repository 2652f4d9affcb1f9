"""Shared helpers of the Python package's tests: the built program (to compare with), the
assets, and the program's dumps of given samples.

The program is $SPECTRO_BIN, else build/spectro of this checkout; tests that compare with
it skip when neither exists (scripts/test.sh builds it first).
"""
import atexit
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

# librosa's jitted code cached by numba in a folder of this process's own: the package's
# shared cache, filled by two test processes at once (ctest -j runs e2e_pitch_ref and
# e2e_xform_librosa side by side), kept entries that crashed a later run with SIGSEGV
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="spectro-numba-")
    atexit.register(shutil.rmtree, os.environ["NUMBA_CACHE_DIR"], True)

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"


def spectro_bin():
    path = os.environ.get("SPECTRO_BIN") or str(ROOT / "build" / "spectro")
    return path if os.access(path, os.X_OK) else None


@pytest.fixture(scope="session")
def cli():
    """Runs the program: cli(args...) -> CompletedProcess (text), failing the test on a
    non-zero exit unless check=False."""
    path = spectro_bin()
    if path is None:
        pytest.skip("the spectro program is not built (set SPECTRO_BIN or build build/spectro)")

    def run(*args, check=True, timeout=120):
        proc = subprocess.run([path, "--quiet"] + [str(a) for a in args], capture_output=True, text=True,
                              timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError("spectro %s: exit %d: %s" % (" ".join(map(str, args)), proc.returncode,
                                                              proc.stderr.strip()))
        return proc
    return run


# NumPy dtype -> the program's --raw-format encoding: what the program reads as PCM
RAW_ENCODINGS = {np.dtype("<f4"): "f32le", np.dtype("<f8"): "f64le", np.dtype("<i2"): "s16le",
                 np.dtype("<i4"): "s32le", np.dtype("u1"): "u8"}


def write_raw(path, y):
    """y (channels, samples) or (samples,) of a dtype the program reads raw: interleaved bytes.
    Returns the --raw-format value's encoding and channel count."""
    y = np.asarray(y)
    y2 = y[None, :] if y.ndim == 1 else y
    enc = RAW_ENCODINGS[y.dtype]
    np.ascontiguousarray(y2.T).tofile(path)
    return enc, y2.shape[0]


@pytest.fixture
def cli_dump(cli, tmp_path):
    """cli_dump(y, sr, *options) -> the program's --dump of samples y (through --raw-format),
    as loaded by np.load, and its JSON sidecar."""
    count = [0]

    def dump(y, sr, *options):
        count[0] += 1
        raw = tmp_path / ("in%d.raw" % count[0])
        out = tmp_path / ("out%d.npy" % count[0])
        enc, ch = write_raw(raw, y)
        cli("--raw-format", "%s,%d,%d" % (enc, sr, ch), *options, "--dump", out, raw)
        with open(str(out) + ".json") as f:
            meta = json.load(f)
        return np.load(out), meta
    return dump


@pytest.fixture
def rng(request):
    """A generator seeded from the test's name: the same data on every run, different per test."""
    seed = sum(map(ord, request.node.name)) * 7919
    return np.random.default_rng(seed)


def asset(name):
    return str(ASSETS / name)
