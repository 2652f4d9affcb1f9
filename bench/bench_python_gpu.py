#!/usr/bin/env python3
"""The Python package with CUDA arrays against torch.stft + dB, on the same GPU, in one run.

    PYTHONPATH=build-gpu/python python3 bench/bench_python_gpu.py [--files 1000] [--repeat 20]
        [--spectro-bin build-gpu/spectro] [--api-bin build-gpu/bench/bench_api_clip]

torch tensors on the device, 48 kHz mono, N 4096, hop 1024, periodic Hann (issue 28's GPU
targets, each row against torch in the same run):
  hour   1 h in one call: spectro.Analyzer(backend="cuda").spectrogram(y) against
         20*log10(max(|torch.stft(y, center=False)| * 2/sum(w), 1e-10));
  clip   one 1-s clip a call, each call waited for (torch.cuda.synchronize()), and queued
         (1000 calls, one wait); beside it the C API's time for the same clip and settings
         (bench_api_clip, --api-bin, run here: its synchronous entry, and the asynchronous
         one waited for and queued), the ratio Python / C, and each part of the Python
         call alone (the array check, the output's allocation, the stream's handle, the
         extension's call with the launch);
  clips  1000 x 10-s clips in one call: a (1000, 480000) tensor with channel="all";
  files  FILES 10-s 16-bit WAV files, spectro.load + Analyzer(backend="cuda").spectrogram on
         each (NumPy in and out: the samples cross to the GPU and the spectra back), one
         thread, a thread pool sharing one analyzer, and a pool with an analyzer a thread
         (each its own plan and stream, so copies and kernels overlap), against the program's cpu batch over the same files
         (`spectro -b cpu --files-from LIST --dump DIR/`).
Each GPU row is the best and the median of --repeat runs after a warm-up, in ms (µs for a
clip); spectro's output is checked against the CPU backend's (within 0.01 dB) on the way.
"""
import argparse
import concurrent.futures
import os
import statistics
import subprocess
import tempfile
import threading
import time
import wave

import numpy as np
import torch

import spectro

SR, N, HOP = 48000, 4096, 1024


def timed(fn, repeat):
    fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        runs.append(time.perf_counter() - t0)
    return min(runs), statistics.median(runs)


def torch_db(y, w, scale):
    z = torch.stft(y, N, HOP, window=w, center=False, return_complex=True)
    return 20.0 * torch.log10(torch.clamp(z.abs() * scale, min=1e-10))


def row(name, ours, theirs, unit=1e3, suffix="ms"):
    print("%-34s spectro %8.3f / %8.3f %s   torch %8.3f / %8.3f %s   torch/spectro %5.1fx / %5.1fx"
          % (name, ours[0] * unit, ours[1] * unit, suffix, theirs[0] * unit, theirs[1] * unit, suffix,
             theirs[0] / ours[0], theirs[1] / ours[1]))


def write_files(d, count):
    t = np.arange(10 * SR) / SR
    noise = 0.01 * np.random.default_rng(1).standard_normal(t.size)
    paths = []
    for i in range(count):
        x = np.clip(0.4 * np.sin(2 * np.pi * (200 + 7 * i) * t) + noise, -1, 1)
        p = os.path.join(d, "f%05d.wav" % i)
        with wave.open(p, "wb") as f:
            f.setnchannels(1)
            f.setsampwidth(2)
            f.setframerate(SR)
            f.writeframes((x * 32767).astype("<i2").tobytes())
        paths.append(p)
    return paths


def files_rows(args):
    with tempfile.TemporaryDirectory() as d:
        paths = write_files(d, args.files)
        an = spectro.Analyzer(sr=SR, n_fft=N, hop_length=HOP, backend="cuda")

        def one(p):
            y, sr = spectro.load(p)
            return an.spectrogram(y[0])

        def serial():
            for p in paths:
                one(p)

        pool = concurrent.futures.ThreadPoolExecutor(os.cpu_count())

        def pooled():
            list(pool.map(one, paths))

        mine = threading.local()  # an analyzer a thread: its own plan and CUDA stream

        def one_own(p):
            a = getattr(mine, "an", None)
            if a is None:
                a = mine.an = spectro.Analyzer(sr=SR, n_fft=N, hop_length=HOP, backend="cuda")
            y, sr = spectro.load(p)
            return a.spectrogram(y[0])

        def pooled_own():
            list(pool.map(one_own, paths))

        best = {}
        for name, fn in (("serial", serial), ("threads", pooled), ("threads, an analyzer each", pooled_own)):
            fn()
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn()
                runs.append(time.perf_counter() - t0)
            best[name] = min(runs)
        pool.shutdown()
        lst = os.path.join(d, "list")
        with open(lst, "w") as f:
            f.write("\n".join(paths) + "\n")
        cli = []
        for _ in range(3):
            out = tempfile.mkdtemp(dir=d)
            t0 = time.perf_counter()
            subprocess.run([args.spectro_bin, "-q", "-b", "cpu", "--files-from", lst, "--dump", out + "/"],
                           check=True)
            cli.append(time.perf_counter() - t0)
        c = min(cli)
        for name in best:
            print("%d files, Analyzer(cuda) load+spectrogram, %s: %7.3f s (%5.0f files/s); CLI cpu batch %.3f s "
                  "(%5.0f files/s): %.2fx the CLI's rate" % (args.files, name, best[name], args.files / best[name],
                                                            c, args.files / c, c / best[name]))


def per_call(fn, k, repeat=7, wait_each=False):
    """Best and median seconds a call of fn over rounds of k calls: each call waited for
    (torch.cuda.synchronize()) with wait_each, else one wait a round (calls queued)."""
    def rnd():
        for _ in range(k):
            fn()
            if wait_each:
                torch.cuda.synchronize()
    best, med = timed(rnd, repeat)
    return best / k, med / k


def api_clip(args):
    """The C API's µs a call for the same clip (bench_api_clip): {row: (best, median)}."""
    got = {}
    if not args.api_bin or not os.path.exists(args.api_bin):
        print("(no %s: the C API's rows are left out)" % args.api_bin)
        return got
    out = subprocess.run([args.api_bin, "2000"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        _, name, best, med = line.split()
        got[name] = (float(best) * 1e-6, float(med) * 1e-6)
    return got


def clip_rows(args, an, w, scale, clip):
    """A 1-s clip a call: spectro against torch, waited for and queued, the C API's time in
    the same run, and the parts of the Python call."""
    from spectro import _gpu, _spectro
    k = 1000
    ref = spectro.spectrogram(clip.cpu().numpy(), sr=SR, n_fft=N, hop_length=HOP, backend="cuda")
    assert np.array_equal(an.spectrogram(clip).cpu().numpy(), ref), "the clip's device spectra != the host's"
    waited = per_call(lambda: an.spectrogram(clip), k, wait_each=True)
    row("1-s clip, a call (waited for)", waited, per_call(lambda: torch_db(clip, w, scale), k, wait_each=True),
        unit=1e6, suffix="us")
    queued = per_call(lambda: an.spectrogram(clip), k)
    row("1-s clip, a call (queued)", queued, per_call(lambda: torch_db(clip, w, scale), k), unit=1e6, suffix="us")
    # the function, no Analyzer of the caller's: it keeps one per thread for device arrays
    fn = per_call(lambda: spectro.spectrogram(clip, sr=SR, n_fft=N, hop_length=HOP), k, wait_each=True)
    row("1-s clip, spectro.spectrogram (waited for)", fn,
        per_call(lambda: torch_db(clip, w, scale), k, wait_each=True), unit=1e6, suffix="us")
    api = api_clip(args)
    for name, mine in (("waited", waited), ("queued", queued)):
        if name in api:
            c = api[name]
            print("1-s clip, %-6s: Analyzer.spectrogram %6.2f / %6.2f us, C API %6.2f / %6.2f us: %.2fx / %.2fx"
                  % (name, mine[0] * 1e6, mine[1] * 1e6, c[0] * 1e6, c[1] * 1e6, mine[0] / c[0], mine[1] / c[1]))
    if "sync" in api:
        print("1-s clip, C API synchronous entry (waits for its own stream): %6.2f / %6.2f us"
              % (api["sync"][0] * 1e6, api["sync"][1] * 1e6))
    # the parts of a queued Python call, each alone, µs a call (best / median)
    plan, out_shape, first, clips, n, frames = an._device_calls[("torch", clip.get_device(), tuple(clip.shape))]
    out = torch.empty(out_shape, dtype=torch.float32, device=clip.device)
    raw = torch._C._cuda_getCurrentRawStream
    d_in, d_out, dev = clip.data_ptr(), out.data_ptr(), clip.get_device()
    parts = [
        ("is_device_array", lambda: _gpu.is_device_array(clip)),
        ("torch.empty (not used)", lambda: torch.empty(out_shape, dtype=torch.float32, device=dev)),
        ("Tensor.new_empty (the output)", lambda: clip.new_empty(out_shape)),
        ("current stream handle", lambda: raw(dev)),
        ("data_ptr x2", lambda: (clip.data_ptr(), out.data_ptr())),
        ("DLPack capsule (not used)", lambda: _spectro.dlpack_info(clip.__dlpack__())),
        ("extension + library (launch)", lambda: plan.spectrogram_device_async(d_in, 1, n, n, d_out, frames, 0)),
        ("whole Analyzer.spectrogram", lambda: an.spectrogram(clip)),
    ]
    for name, fn in parts:
        t = per_call(fn, k)
        print("   part %-30s %6.2f / %6.2f us" % (name, t[0] * 1e6, t[1] * 1e6))
    t = per_call(lambda: spectro.spectrogram(clip, sr=SR, n_fft=N, hop_length=HOP, backend="cuda"), 20)
    print("1-s clip, spectro.spectrogram queued (the thread's kept analyzer for these settings): %.1f / %.1f us"
          % (t[0] * 1e6, t[1] * 1e6))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--spectro-bin", default="build-gpu/spectro")
    ap.add_argument("--api-bin", default="build-gpu/bench/bench_api_clip")
    args = ap.parse_args()
    dev = torch.device("cuda")
    print("device: %s; spectro %s; torch %s" % (torch.cuda.get_device_name(0), spectro.__version__, torch.__version__))
    w = torch.hann_window(N, periodic=True, device=dev)
    scale = 2.0 / float(w.sum())
    an = spectro.Analyzer(sr=SR, n_fft=N, hop_length=HOP, backend="cuda")
    g = torch.Generator(device=dev).manual_seed(1)

    hour = torch.rand(3600 * SR, device=dev, generator=g) * 2 - 1
    got = an.spectrogram(hour)
    ref = spectro.spectrogram(hour[: 60 * SR].cpu().numpy(), sr=SR, n_fft=N, hop_length=HOP, backend="cpu")
    assert isinstance(got, torch.Tensor) and got.is_cuda, type(got)
    # the backends agree as the program's do (docs/design.md): levels within 0.01 dB above -100
    diff = np.abs(got[: ref.shape[0]].cpu().numpy() - ref)[ref > -100]
    assert diff.max() < 0.01, "the GPU's minute differs from the cpu's by %.4f dB" % diff.max()
    row("1 h, one call", timed(lambda: an.spectrogram(hour), args.repeat),
        timed(lambda: torch_db(hour, w, scale), args.repeat))
    del hour, got

    clip_rows(args, an, w, scale, torch.rand(SR, device=dev, generator=g) * 2 - 1)

    clips = torch.rand(1000, 10 * SR, device=dev, generator=g) * 2 - 1
    an_all = spectro.Analyzer(sr=SR, n_fft=N, hop_length=HOP, channel="all", backend="cuda")
    got = an_all.spectrogram(clips)
    assert tuple(got.shape) == (1000, spectro.frame_count(10 * SR, N, HOP), N // 2 + 1), tuple(got.shape)
    assert torch.equal(got[7], an.spectrogram(clips[7])), "a batch's clip differs from the clip alone"
    row("1000 x 10-s clips, one call", timed(lambda: an_all.spectrogram(clips), args.repeat),
        timed(lambda: torch_db(clips, w, scale), args.repeat))
    del clips, got
    torch.cuda.empty_cache()
    if args.files:
        files_rows(args)


if __name__ == "__main__":
    main()
