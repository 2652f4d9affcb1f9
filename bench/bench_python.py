#!/usr/bin/env python3
"""The Python package against its peers, in one process, on the same signal.

    python bench/bench_python.py [--seconds 600] [--rate 48000] [--n 4096] [--hop 1024] [--repeat 5]

A mono noise signal of --seconds at --rate (10 minutes at 48 kHz by default), N 4096, hop
1024: spectro.spectrogram (backend cpu and auto) against
  librosa.amplitude_to_db(np.abs(librosa.stft(y, n_fft=N, hop_length=H, center=False)))
  scipy.signal.stft(y, nperseg=N, noverlap=N-H, boundary=None, padded=False) + 20*log10
and, for the overhead, Analyzer.spectrogram of a 1-s clip against the library's call alone.
Each row gives the best and the median of --repeat runs after one warm-up (on a shared
machine the best is the one least disturbed by the others); the peers that are not
installed are skipped. The ratios are the peer's time over spectro.spectrogram's, best to
best and median to median.
"""
import argparse
import os
import platform
import statistics
import time

import numpy as np

import spectro


def timed(fn, repeat):
    fn()  # warm-up: plans, caches, numba's compilation
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), statistics.median(runs)


def peers(y, sr, n, hop):
    out = {}
    try:
        import librosa
        out["librosa stft + amplitude_to_db"] = lambda: librosa.amplitude_to_db(
            np.abs(librosa.stft(y, n_fft=n, hop_length=hop, center=False)))
    except ImportError:
        print("librosa: not installed, skipped")
    try:
        import scipy.signal

        def scipy_db():
            _, _, z = scipy.signal.stft(y, fs=sr, nperseg=n, noverlap=n - hop, boundary=None, padded=False)
            return 20 * np.log10(np.maximum(np.abs(z), 1e-10))
        out["scipy.signal.stft + dB"] = scipy_db
    except ImportError:
        print("scipy: not installed, skipped")
    return out


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--rate", type=int, default=48000)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--hop", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    y = np.random.default_rng(1).uniform(-1, 1, int(a.seconds * a.rate)).astype(np.float32)
    print("spectro %s, numpy %s; %s, %d CPUs; %.0f s at %d Hz mono, N %d, hop %d; best and median of %d"
          % (spectro.__version__, np.__version__, cpu_name(), os.cpu_count(), a.seconds, a.rate, a.n, a.hop,
             a.repeat))
    an = spectro.Analyzer(sr=a.rate, n_fft=a.n, hop_length=a.hop, backend="cpu")
    rows = [("spectro.spectrogram (cpu)", timed(lambda: spectro.spectrogram(
        y, sr=a.rate, n_fft=a.n, hop_length=a.hop, backend="cpu"), a.repeat)),
            ("spectro.Analyzer.spectrogram (cpu, plan kept)", timed(lambda: an.spectrogram(y), a.repeat))]
    auto = spectro.Analyzer(sr=a.rate, n_fft=a.n, hop_length=a.hop, backend="auto", expected_samples=len(y))
    rows.append(("spectro.Analyzer.spectrogram (auto: %s)" % auto.info()["backend"],
                 timed(lambda: auto.spectrogram(y), a.repeat)))
    base = rows[0][1]
    for name, fn in peers(y, a.rate, a.n, a.hop).items():
        rows.append((name, timed(fn, a.repeat)))
    clip = y[:a.rate]
    rows.append(("Analyzer.spectrogram, one 1-s clip", timed(lambda: an.spectrogram(clip), max(a.repeat, 50))))
    # the library's call alone, through the extension with its buffers made beforehand: the
    # C API's time for the clip plus the call's argument parsing
    plan = an._plan(1)
    out = np.empty((1, plan.frame_count(len(clip)), a.n // 2 + 1), np.float32)
    rows.append(("  the C call alone for that clip", timed(lambda: plan.spectrogram(clip, out), max(a.repeat, 50))))
    width = max(len(r[0]) for r in rows)
    print("%-*s  %11s  %11s" % (width, "", "best", "median"))
    for name, (best, med) in rows:
        ratio = ""
        if not name.startswith(("spectro", " ")) and "clip" not in name:
            ratio = "  %.1fx / %.1fx spectro's time" % (best / base[0], med / base[1])
        print("%-*s  %9.4f s  %9.4f s%s" % (width, name, best, med, ratio))


if __name__ == "__main__":
    main()
