#!/usr/bin/env python3
"""The torch peers of bench_gpu_xform (issue 29's GPU targets), on the same GPU, in the same
call: one hour of 48 kHz audio on the device (a torch tensor), N 4096, hop 1024, hann.

  mel 128 + dB   torchaudio.transforms.MelSpectrogram(power 2, slaney scale and norm,
                 center=False) + AmplitudeToDB(stype="power")
  MFCC 20        torchaudio.transforms.MFCC(n_mfcc 20, the same mel settings)
  CQT 84         (--cqt) a straightforward torch CQT: spectral kernels (Brown-Puckette: each
                 bin's hann-windowed complex exponential, its FFT) applied as one dense
                 complex matmul to the rfft of each frame of N 32768 (C1's kernel at 48 kHz
                 needs it), hop 1024, 7 octaves x 12 bins from C1; nnAudio is not installed
                 there, so this is the nnAudio-style CQT written in torch, in batches of
                 frames that fit the device

Times: torch.cuda.synchronize() around each call, the median of --repeat warm runs, ms.
Without torchaudio the mel and MFCC peers are torch.stft + a matmul with the same
filter bank (said in the output).

    python3 bench/bench_gpu_xform_torch.py [--repeat 15] [--cqt]
"""
import argparse
import math
import statistics
import time

import numpy as np
import torch

RATE, N, HOP = 48000, 4096, 1024


def timed(fn, repeat):
    fn()
    fn()
    ms = []
    for _ in range(repeat):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms), min(ms)


def slaney_mel(bands, n, rate):
    """librosa.filters.mel(htk=False, norm='slaney'): bands x (n/2+1)."""
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0

    def hz2mel(f):
        return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-9) / min_log_hz) / logstep, f / f_sp)

    def mel2hz(m):
        return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)

    edges = mel2hz(np.linspace(hz2mel(np.array(0.0)), hz2mel(np.array(rate / 2)), bands + 2))
    f = np.arange(n // 2 + 1) * rate / n
    w = np.zeros((bands, f.size))
    for b in range(bands):
        lo = (f - edges[b]) / (edges[b + 1] - edges[b])
        hi = (edges[b + 2] - f) / (edges[b + 2] - edges[b + 1])
        w[b] = np.maximum(0, np.minimum(lo, hi)) * 2.0 / (edges[b + 2] - edges[b])
    return w


def cqt_kernels(n, rate, fmin, bins, bpo):
    """Spectral kernels (bins x (n/2+1) complex): docs/transforms.md's definition."""
    q = 1.0 / (2 ** (1.0 / bpo) - 1)
    k = np.zeros((bins, n // 2 + 1), dtype=np.complex64)
    for j in range(bins):
        f = fmin * 2 ** (j / bpo)
        nj = int(round(q * rate / f))
        w = np.hanning(nj + 2)[1:-1] if nj > 2 else np.ones(nj)
        t = np.arange(nj) - nj // 2
        tk = np.zeros(n, dtype=np.complex128)
        start = n // 2 - nj // 2
        tk[start:start + nj] = w * np.exp(2j * np.pi * f * t / rate) * 2.0 / w.sum()
        spec = np.fft.fft(tk)[: n // 2 + 1]
        spec[np.abs(spec) < 0.0054 * np.abs(spec).max()] = 0
        k[j] = np.conj(spec) / n
    return k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--cqt", action="store_true")
    a = ap.parse_args()
    dev = torch.device("cuda")
    print("torch %s on %s" % (torch.__version__, torch.cuda.get_device_name(0)))
    y = (torch.rand(3600 * RATE, device=dev) - 0.5)
    try:
        import torchaudio
        mel = torchaudio.transforms.MelSpectrogram(sample_rate=RATE, n_fft=N, hop_length=HOP, n_mels=128,
                                                   center=False, power=2.0, norm="slaney",
                                                   mel_scale="slaney").to(dev)
        todb = torchaudio.transforms.AmplitudeToDB(stype="power").to(dev)
        mfcc = torchaudio.transforms.MFCC(sample_rate=RATE, n_mfcc=20,
                                          melkwargs=dict(n_fft=N, hop_length=HOP, n_mels=128, center=False,
                                                         norm="slaney", mel_scale="slaney")).to(dev)
        peer = "torchaudio %s" % torchaudio.__version__
        mel_db = lambda: todb(mel(y))
        mfcc_fn = lambda: mfcc(y)
    except ImportError:
        fb = torch.tensor(slaney_mel(128, N, RATE), dtype=torch.float32, device=dev)
        win = torch.hann_window(N, device=dev)
        k = torch.arange(20, device=dev, dtype=torch.float32)[:, None]
        b = torch.arange(128, device=dev, dtype=torch.float32)[None, :]
        dct = torch.cos(math.pi * k * (2 * b + 1) / 256) * torch.where(k == 0, math.sqrt(1 / 128), math.sqrt(2 / 128))

        def mel_db():
            s = torch.stft(y, N, HOP, window=win, center=False, return_complex=True).abs() ** 2
            return 10 * torch.log10(torch.clamp(fb @ s, min=1e-10))

        mel_db_fn = mel_db
        peer = "torch.stft + matmul (torchaudio not installed)"
        mel_db = mel_db_fn
        mfcc_fn = lambda: dct @ mel_db_fn()
    med, best = timed(mel_db, a.repeat)
    print("peer %-44s mel 128 + dB  %8.3f ms (min %.3f)" % (peer, med, best))
    med, best = timed(mfcc_fn, a.repeat)
    print("peer %-44s MFCC 20       %8.3f ms (min %.3f)" % (peer, med, best))
    if a.cqt:
        n, fmin, bpo, bins = 32768, 32.703195662574829, 12, 84
        ker = torch.tensor(cqt_kernels(n, RATE, fmin, bins, bpo), device=dev).T.contiguous()
        frames = (y.numel() - n) // HOP + 1
        batch = 4096

        def cqt():
            out = torch.empty((frames, bins), device=dev)
            for f0 in range(0, frames, batch):
                cnt = min(batch, frames - f0)
                fr = y[f0 * HOP: (f0 + cnt - 1) * HOP + n].unfold(0, n, HOP)
                c = torch.fft.rfft(fr) @ ker
                out[f0:f0 + cnt] = 20 * torch.log10(torch.clamp(c.abs(), min=1e-10))
            return out

        med, best = timed(cqt, max(3, a.repeat // 5))
        print("peer %-44s CQT 84       %8.3f ms (min %.3f)" % ("torch rfft + dense kernel matmul", med, best))


if __name__ == "__main__":
    main()
