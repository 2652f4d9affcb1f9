#!/usr/bin/python3
"""Draws spectro's icon with spectro itself: a sweep of partials, analysed by the real binary.

    /usr/bin/python3 scripts/make_icon.py [SPECTRO_BINARY]     # default build/src/spectro

writes assets/icons/spectro.svg (a grid of <rect> cells in a rounded square) and
assets/icons/spectro-<size>.png for the sizes below.  The steps:
  1. synthesise a tone and its 2nd and 3rd harmonics sweeping up exponentially over a soft
     noise floor, written as a 16-bit WAV (fixed seed: the same file every run);
  2. run `spectro --dump x.npy` on it (the CPU backend, so a CUDA build draws the same);
  3. pool the dB values into a GRID x GRID picture (time left to right, frequency bottom to
     top, the loudest bin of each cell) and map them through spectro's own viridis table,
     read from src/picture/colormap_tables.h the way colormap_rgb() reads it;
  4. write the SVG and, with zlib and struct only, PNGs sampled from the same geometry.
The outputs are committed; rerun the script after changing it (assets/README.md).
"""
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import wave
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "assets", "icons")
TABLES = os.path.join(ROOT, "src", "picture", "colormap_tables.h")

GRID = 32                     # cells per side
PAD = 2                       # empty border, in cells, around the rounded square
RADIUS = 6                    # corner radius, in cells
SIZES = (16, 32, 48, 64, 128, 256)
SUPERSAMPLE = 8               # samples per pixel side when rasterising

RATE = 8000
FFT = 128                     # 65 bins: bins 1..64 pool into GRID rows of two
HOP = 96
SECONDS = (FFT + HOP * (GRID * 2 - 1)) / RATE   # two frames per column
DB_LO, DB_HI = -90.0, -10.0    # the colour range, as --db-range LO:HI


def viridis():
    """The 256 rows of the viridis table in colormap_tables.h, as a (256, 3) uint8 array."""
    with open(TABLES) as f:
        text = f.read()
    m = re.search(r"/\* viridis \*/\s*\{(.*?)\}\s*,\s*/\*", text, re.S)
    if not m:
        sys.exit("make_icon: no viridis table in " + TABLES)
    rows = re.findall(r"\{\s*(\d+),\s*(\d+),\s*(\d+)\s*\}", m.group(1))
    if len(rows) != 256:
        sys.exit("make_icon: viridis has %d rows, expected 256" % len(rows))
    return np.array(rows, dtype=np.uint8)


def chord_sweep():
    """A tone with its second and third harmonics (an octave and a twelfth: a chord of
    partials) sweeping up exponentially, 100 Hz -> 1.3 kHz, over noise about 70 dB down."""
    n = int(round(SECONDS * RATE))
    t = np.arange(n) / RATE
    f0, f1 = 100.0, 1300.0
    k = math.log(f1 / f0) / SECONDS
    phase = 2 * math.pi * f0 * (np.exp(k * t) - 1) / k   # the integral of f0 e^(k t)
    x = sum(a * np.sin(h * phase) for h, a in ((1, 0.45), (2, 0.25), (3, 0.15)))
    x = x + 0.0003 * np.random.default_rng(20240601).standard_normal(n)
    return np.clip(np.round(x * 32767), -32768, 32767).astype("<i2")


def write_wav(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.tobytes())


def analyse(binary, wav, npy):
    cmd = [binary, "-q", "-b", "cpu", "-w", "blackman-harris", "-n", str(FFT), "--hop", str(HOP), "-o", npy, wav]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("make_icon: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return np.load(npy)


def cells(db):
    """(frames, bins) dB -> (GRID, GRID) colour-map indices, row 0 at the top (high)."""
    frames, bins = db.shape
    if frames < 2 * GRID or bins < 2 * GRID + 1:
        sys.exit("make_icon: the dump has %dx%d values, too few" % (frames, bins))
    d = db[:2 * GRID, 1:2 * GRID + 1]                        # drop DC
    d = d.reshape(GRID, 2, GRID, 2).max(axis=(1, 3))         # [column][row], row 0 low
    t = (d - DB_LO) / (DB_HI - DB_LO)
    # colormap_rgb(): t <= 0 (or NaN) -> 0, t >= 1 -> 255, else round(t * 255)
    idx = np.where(t > 0, np.minimum(np.floor(t * 255 + 0.5), 255), 0).astype(int)
    return idx.T[::-1]                                         # [row][column], high first


def svg(idx, lut):
    """Rounded square, clipped cells; runs of one colour along a row become one rect."""
    side = GRID + 2 * PAD
    hexes = ["#%02x%02x%02x" % tuple(int(v) for v in lut[i]) for i in range(256)]
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" '
           'viewBox="%d %d %d %d">' % (-PAD, -PAD, side, side),
           '<title>spectro</title>',
           '<desc>A tone and its harmonics sweeping up, analysed by spectro and drawn with its viridis colour '
           'map (scripts/make_icon.py)</desc>',
           '<defs><clipPath id="sq"><rect width="%d" height="%d" rx="%d"/></clipPath></defs>'
           % (GRID, GRID, RADIUS),
           # the floor colour: the cells at the floor are not drawn
           '<rect width="%d" height="%d" rx="%d" fill="%s"/>' % (GRID, GRID, RADIUS, hexes[0]),
           '<g clip-path="url(#sq)">']
    for r in range(GRID):
        c = 0
        while c < GRID:
            e = c
            while e + 1 < GRID and idx[r][e + 1] == idx[r][c]:
                e += 1
            if idx[r][c] != 0:
                # a little wider and taller than the cell: the next one covers the overlap,
                # and no background shows through anti-aliased edges between them
                out.append('<rect x="%d" y="%d" width="%g" height="1.05" fill="%s"/>'
                           % (c, r, e - c + 1.05, hexes[idx[r][c]]))
            c = e + 1
    out += ['</g>', '</svg>', '']
    return "\n".join(out)


def raster(idx, lut, size):
    """RGBA pixels of the SVG's geometry: the mean of SUPERSAMPLE^2 samples per pixel."""
    side = GRID + 2 * PAD
    s = (np.arange(size * SUPERSAMPLE) + 0.5) / (size * SUPERSAMPLE) * side - PAD
    y, x = np.meshgrid(s, s, indexing="ij")
    # inside the rounded square: distance to the inner rectangle at most RADIUS
    dx = np.maximum(np.abs(x - GRID / 2) - (GRID / 2 - RADIUS), 0)
    dy = np.maximum(np.abs(y - GRID / 2) - (GRID / 2 - RADIUS), 0)
    inside = (dx * dx + dy * dy <= RADIUS * RADIUS) & (np.abs(x - GRID / 2) <= GRID / 2) \
        & (np.abs(y - GRID / 2) <= GRID / 2)
    ci = np.clip(np.floor(x).astype(int), 0, GRID - 1)
    ri = np.clip(np.floor(y).astype(int), 0, GRID - 1)
    rgb = lut[idx[ri, ci]].astype(np.float64) * inside[..., None]
    a = inside.astype(np.float64)
    shape = (size, SUPERSAMPLE, size, SUPERSAMPLE)
    a = a.reshape(shape).mean(axis=(1, 3))
    rgb = rgb.reshape(shape + (3,)).mean(axis=(1, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        rgb = np.where(a[..., None] > 0, rgb / a[..., None], 0)   # un-premultiply
    px = np.dstack([rgb, a * 255])
    return np.clip(np.floor(px + 0.5), 0, 255).astype(np.uint8)


def png(pixels):
    """8-bit RGBA PNG, filter 0 on every row, zlib level 9: the same bytes every run."""
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[r].tobytes() for r in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "src", "spectro")
    if not os.access(binary, os.X_OK):
        sys.exit("make_icon: no spectro binary at %s (build it, or pass its path)" % binary)
    lut = viridis()
    with tempfile.TemporaryDirectory(prefix="spectro-icon-") as d:
        write_wav(os.path.join(d, "sweep.wav"), chord_sweep())
        db = analyse(binary, os.path.join(d, "sweep.wav"), os.path.join(d, "sweep.npy"))
    idx = cells(db)
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(os.path.join(OUT_DIR, "spectro.svg"), "w") as f:
        f.write(svg(idx, lut))
    for size in SIZES:
        with open(os.path.join(OUT_DIR, "spectro-%d.png" % size), "wb") as f:
            f.write(png(raster(idx, lut, size)))
    print("make_icon: wrote %s/spectro.svg and spectro-{%s}.png"
          % (os.path.relpath(OUT_DIR, ROOT), ",".join(str(s) for s in SIZES)))


if __name__ == "__main__":
    main()
