#!/usr/bin/env python3
"""The transforms (docs/transforms.md) against librosa, in one process, on the same signal.

    python bench/bench_xform.py [--seconds 600] [--cqt-seconds 60] [--rate 48000] [--n 4096] [--hop 1024]
                                [--repeat 3]

A mono noise signal of --seconds at --rate (10 minutes at 48 kHz by default), N 4096, hop
1024, center=False on both sides, the cpu backend:
  mel 128 + dB     spectro.Analyzer.mel       librosa.feature.melspectrogram + power_to_db
  MFCC 20          spectro.Analyzer.mfcc      librosa.feature.mfcc (128 mel bands)
  chroma           spectro.Analyzer.chroma    librosa.feature.chroma_stft(tuning=0)
  reassigned       spectro.Analyzer.reassigned   librosa.reassigned_spectrogram
and over --cqt-seconds (one minute by default), 84 bins from C1, 12 an octave:
  CQT              spectro.Analyzer.cqt (N 32768: C1's kernel fits)   librosa.cqt (its hop 1024)
Each row gives the best and the median of --repeat runs after one warm-up; the ratio is
librosa's time over spectro's, best to best and median to median. librosa missing: the
spectro rows only.
"""
import argparse
import os
import platform
import statistics
import time

import numpy as np

import spectro

C1 = 32.703195662574829


def timed(fn, repeat):
    fn()  # warm-up: plans, caches, numba's compilation
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), statistics.median(runs)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def jobs(y, yc, sr, n, hop):
    an = spectro.Analyzer(sr=sr, n_fft=n, hop_length=hop, backend="cpu")
    aq = spectro.Analyzer(sr=sr, n_fft=32768, hop_length=hop, backend="cpu")
    fmax84 = C1 * 2 ** (83 / 12)
    ours = {"mel 128 + dB": lambda: an.mel(y), "MFCC 20": lambda: an.mfcc(y, n_mfcc=20),
            "chroma": lambda: an.chroma(y), "reassigned": lambda: an.reassigned(y),
            "CQT 84 (per --cqt-seconds)": lambda: aq.cqt(yc, fmin=C1, fmax=fmax84)}
    try:
        import librosa
    except ImportError:
        print("librosa: not installed, spectro's rows only")
        return ours, {}
    kw = dict(sr=sr, n_fft=n, hop_length=hop, center=False)
    theirs = {
        "mel 128 + dB": lambda: librosa.power_to_db(librosa.feature.melspectrogram(y=y, n_mels=128, **kw)),
        "MFCC 20": lambda: librosa.feature.mfcc(y=y, n_mfcc=20, n_mels=128, **kw),
        "chroma": lambda: librosa.feature.chroma_stft(y=y, tuning=0.0, **kw),
        "reassigned": lambda: librosa.reassigned_spectrogram(y=y, **kw),
        "CQT 84 (per --cqt-seconds)": lambda: librosa.cqt(yc, sr=sr, hop_length=hop, fmin=C1, n_bins=84,
                                                          bins_per_octave=12),
    }
    return ours, theirs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--cqt-seconds", type=float, default=60)
    ap.add_argument("--rate", type=int, default=48000)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--hop", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated row names' prefixes")
    a = ap.parse_args()
    y = (np.random.default_rng(1).uniform(-1, 1, int(a.seconds * a.rate)) * 0.5).astype(np.float32)
    yc = y[:int(a.cqt_seconds * a.rate)]
    print("spectro %s, numpy %s; %s, %d CPUs, load %.1f; %.0f s at %d Hz mono (CQT %.0f s), N %d, hop %d; "
          "best and median of %d" % (spectro.__version__, np.__version__, cpu_name(), os.cpu_count(),
                                     os.getloadavg()[0], a.seconds, a.rate, a.cqt_seconds, a.n, a.hop, a.repeat))
    ours, theirs = jobs(y, yc, a.rate, a.n, a.hop)
    only = [s for s in a.only.split(",") if s]
    print("%-28s  %19s  %19s  %s" % ("", "spectro best/median", "librosa best/median", "librosa / spectro"))
    for name, fn in ours.items():
        if only and not any(name.startswith(o) for o in only):
            continue
        sb, sm = timed(fn, a.repeat)
        line = "%-28s  %8.3f / %8.3f s" % (name, sb, sm)
        if name in theirs:
            lb, lm = timed(theirs[name], a.repeat)
            line += "  %8.3f / %8.3f s  %5.1fx / %5.1fx" % (lb, lm, lb / sb, lm / sm)
        print(line, flush=True)


if __name__ == "__main__":
    main()
