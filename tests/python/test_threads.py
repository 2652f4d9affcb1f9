"""Threads: several threads calling at once get the serial results; the GIL is released."""
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import spectro


def signals(n):
    rng = np.random.default_rng(7)
    return [rng.uniform(-1, 1, (2, 30000 + 977 * i)).astype(np.float32) for i in range(n)]


def test_functions_in_threads_equal_serial():
    ys = signals(12)
    serial = [spectro.spectrogram(y, sr=16000, n_fft=1024, channel="all") for y in ys]
    with ThreadPoolExecutor(4) as ex:
        par = list(ex.map(lambda y: spectro.spectrogram(y, sr=16000, n_fft=1024, channel="all"), ys))
    assert all(np.array_equal(a, b) for a, b in zip(serial, par))


def test_one_analyzer_shared_by_threads():
    ys = signals(12)
    an = spectro.Analyzer(sr=16000, n_fft=512, hop_length=100)
    serial = [an.spectrogram(y) for y in ys] + [an.stft(y) for y in ys]
    with ThreadPoolExecutor(6) as ex:
        par = list(ex.map(an.spectrogram, ys)) + list(ex.map(an.stft, ys))
    assert all(np.array_equal(a, b) for a, b in zip(serial, par))


def test_streams_in_threads():
    ys = signals(6)
    an = spectro.Analyzer(sr=16000, n_fft=256)

    def run(y):
        s = an.stream()
        parts = [s.push(y[:, i:i + 1000]) for i in range(0, y.shape[1], 1000)]
        return np.concatenate(parts + [s.flush()])
    with ThreadPoolExecutor(3) as ex:
        par = list(ex.map(run, ys))
    assert all(np.array_equal(p, an.spectrogram(y)) for p, y in zip(par, ys))


def test_gil_released_while_working():
    """A thread in a long spectrogram lets another Python thread run meanwhile."""
    y = np.random.default_rng(3).uniform(-1, 1, 48000 * 60).astype(np.float32)
    an = spectro.Analyzer(sr=48000, n_fft=4096, hop_length=256, backend="cpu")
    an.spectrogram(y[:48000])  # the plan made before timing
    inside = threading.Event()
    ticks = []

    def worker():
        inside.set()
        an.spectrogram(y)
    t = threading.Thread(target=worker)
    t.start()
    inside.wait()
    while t.is_alive():
        ticks.append(1)
        threading.Event().wait(0.001)
    t.join()
    # holding the GIL for the whole call would leave this thread a tick or two
    assert len(ticks) > 10
