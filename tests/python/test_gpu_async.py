"""Device arrays run on their framework's current stream, without the host waiting: the
spectra of a tensor made on a side stream behind a long kernel are the host's, the call
returns while that kernel still runs, and two streams sharing one analyzer each get their
own clip's. Skip without the framework or without a GPU (the refusal test runs anywhere)."""
import numpy as np
import pytest

import spectro

SR = 48000
SPIN = 400_000_000  # GPU clock cycles a delay kernel spins: a good part of a second


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device for CuPy")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device for CuPy")
    return cupy


def signal(n=SR, channels=None, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n,) if channels is None else (channels, n)).astype(np.float32)


@pytest.mark.parametrize("backend,n_fft", [("cuda", 4096), ("cuda", 65536), ("cufft", 2048)])
def test_torch_side_stream_is_ordered_and_not_waited_for(backend, n_fft):
    """On a side stream: a long kernel, then the samples' copy, then the call; the call
    returns while the kernel still runs (no host wait) and its result, read on the same
    stream, is the host path's."""
    torch = _torch()
    y = signal(SR * 2 if n_fft > 4096 else SR)
    an = spectro.Analyzer(sr=SR, n_fft=n_fft, backend=backend)
    want = an.spectrogram(y)
    host = torch.from_numpy(y).pin_memory()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.zeros(y.size, device="cuda")  # other samples until the copy lands
        an.spectrogram(t)  # the call's plan is made here, not behind the delay
        torch.cuda._sleep(SPIN)
        t.copy_(host, non_blocking=True)
        got = an.spectrogram(t)
        busy = not s.query()
        got_host = got.to("cpu", non_blocking=True)
    s.synchronize()
    assert busy, "the call waited for its stream"
    assert np.array_equal(got_host.numpy(), want)


def test_torch_two_streams_one_analyzer():
    torch = _torch()
    y = signal(channels=2)
    an = spectro.Analyzer(sr=SR, n_fft=4096, backend="cufft")
    want = [an.spectrogram(y[0]), an.spectrogram(y[1])]
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    outs = []
    for i, s in enumerate(streams):
        with torch.cuda.stream(s):
            if i == 0:
                torch.cuda._sleep(SPIN // 4)
            t = torch.from_numpy(y[i]).to("cuda", non_blocking=True)
            outs.append(an.spectrogram(t))
    for s in streams:
        s.synchronize()
    for got, w in zip(outs, want):
        assert np.array_equal(got.cpu().numpy(), w)


def test_torch_rows_and_dtypes_on_the_current_stream():
    """channel="all", an index and int16 samples (converted by torch on the stream): the
    host path's values."""
    torch = _torch()
    y = (signal(channels=3) * 32767).astype(np.int16)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_numpy(y).to("cuda", non_blocking=True)
        got = {c: spectro.Analyzer(sr=SR, n_fft=1024, channel=c, backend="cuda").spectrogram(t) for c in ("all", 2)}
    s.synchronize()
    for c, g in got.items():
        want = spectro.spectrogram(y, sr=SR, n_fft=1024, channel=c, backend="cuda")
        assert g.shape == want.shape and np.array_equal(g.cpu().numpy(), want)


def test_cupy_side_stream_is_ordered_and_not_waited_for():
    cupy = _cupy()
    spin = cupy.RawKernel(r"""
    extern "C" __global__ void spin(long long cycles) {
        long long t0 = clock64();
        while (clock64() - t0 < cycles) {}
    }""", "spin")
    y = signal()
    an = spectro.Analyzer(sr=SR, n_fft=4096, backend="cuda")
    want = an.spectrogram(y)
    pinned = np.frombuffer(cupy.cuda.alloc_pinned_memory(y.nbytes), np.float32, y.size)
    pinned[:] = y
    with cupy.cuda.Stream(non_blocking=True) as s:
        c = cupy.zeros(y.size, dtype=cupy.float32)
        an.spectrogram(c)
        spin((1,), (1,), (np.int64(SPIN),))
        c.set(pinned, stream=s)  # from pinned memory: a pageable copy may wait for the stream
        got = an.spectrogram(c)
        busy = not s.done
        got_host = cupy.asnumpy(got, stream=s)
    s.synchronize()
    assert busy, "the call waited for its stream"
    assert np.array_equal(got_host, want)


def test_async_entry_refusal_is_a_code():
    """A plan without the device entry answers EUNSUPPORTED as a value, never touching the
    pointers or the stream; bad arguments raise. No GPU needed."""
    from spectro import _spectro
    a = _spectro.Analyzer(SR, 1, 1024, 0, "hann", -1, "cpu")
    code, why = a.spectrogram_device_async(8, 1, 4096, 4096, 8, 13, 0)
    assert code == _spectro.EUNSUPPORTED and "cpu" in why
    with pytest.raises(ValueError, match="d_samples"):
        a.spectrogram_device_async(0, 1, 4096, 4096, 8, 13, 0)
    with pytest.raises(TypeError, match="7 arguments"):
        a.spectrogram_device_async(8, 1, 4096, 4096, 8, 13)
    with pytest.raises(OverflowError):
        a.spectrogram_device_async(8, 1, 4096, 4096, 8, 13, -1)


def test_one_call_keeps_its_plan_for_device_arrays():
    """spectro.spectrogram on a device array keeps the analyzer (and its plan) between calls of
    the same settings in a thread, makes another for other settings, and its results stay
    the host's for clips of different lengths through the kept one."""
    torch = _torch()
    import spectro as sp
    a = torch.from_numpy(signal(SR)).cuda()
    b = torch.from_numpy(signal(SR // 2, seed=5)).cuda()
    first = sp._one(a, SR, 2048, None, "hann", "mix", "auto")
    assert sp._one(b, SR, 2048, None, "hann", "mix", "auto") is first
    assert sp._one(a, SR, 1024, None, "hann", "mix", "auto") is not first
    for y, host in ((a, signal(SR)), (b, signal(SR // 2, seed=5))):
        got = sp.spectrogram(y, sr=SR, n_fft=2048).cpu().numpy()
        want = sp.spectrogram(host, sr=SR, n_fft=2048, backend="cuda")
        np.testing.assert_allclose(got, want, atol=1e-3)
    assert sp._one(np.zeros(SR, np.float32), SR, 2048, None, "hann", "mix", "auto") is not first
