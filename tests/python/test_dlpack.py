"""GPU arrays in, GPU arrays of the same framework out (torch, CuPy), equal to the host's
results for the same samples and backend. Skip without the framework or without a GPU."""
import numpy as np
import pytest

import spectro


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


def signal(n=48000 * 3, channels=None, seed=5):
    rng = np.random.default_rng(seed)
    shape = (n,) if channels is None else (channels, n)
    return rng.uniform(-1, 1, shape).astype(np.float32)


def host_result(y, backend, **kw):
    """The host path's result for the same settings on the same backend."""
    return spectro.spectrogram(y, sr=48000, backend=backend, **kw)


@pytest.mark.parametrize("backend", ["cuda", "cufft", "auto"])
def test_torch_in_torch_out(backend):
    torch = _torch()
    y = signal()
    t = torch.from_numpy(y).cuda()
    got = spectro.spectrogram(t, sr=48000, n_fft=2048, backend=backend)
    assert isinstance(got, torch.Tensor) and got.is_cuda and got.dtype == torch.float32
    assert got.device == t.device
    want = host_result(y, "cuda" if backend == "auto" else backend, n_fft=2048)
    assert np.array_equal(got.cpu().numpy(), want)


def test_torch_int16_and_channels():
    torch = _torch()
    y = (signal(channels=2) * 32767).astype(np.int16)
    t = torch.from_numpy(y).cuda()
    for channel in ["all", 1, "mix"]:
        got = spectro.spectrogram(t, sr=48000, n_fft=1024, channel=channel, backend="cuda")
        assert got.is_cuda
        assert np.array_equal(got.cpu().numpy(), host_result(y, "cuda", n_fft=1024, channel=channel))


def test_cupy_in_cupy_out():
    cupy = _cupy()
    y = signal()
    c = cupy.asarray(y)
    got = spectro.spectrogram(c, sr=48000, n_fft=4096, backend="cuda")
    assert isinstance(got, cupy.ndarray) and got.dtype == cupy.float32
    assert np.array_equal(cupy.asnumpy(got), host_result(y, "cuda", n_fft=4096))


def test_analyzer_keeps_device_plan_and_stft():
    torch = _torch()
    an = spectro.Analyzer(sr=48000, n_fft=1024, backend="cuda")
    ys = [signal(48000, seed=s) for s in range(3)]
    for y in ys:
        got = an.spectrogram(torch.from_numpy(y).cuda())
        assert np.array_equal(got.cpu().numpy(), an.spectrogram(y))
    z = an.stft(torch.from_numpy(ys[0]).cuda())
    assert z.is_cuda and z.dtype == torch.complex64
    assert np.array_equal(z.cpu().numpy(), an.stft(ys[0]))


def test_stream_of_device_chunks():
    torch = _torch()
    y = signal(20000)
    an = spectro.Analyzer(sr=48000, n_fft=1024, backend="cuda")
    s = an.stream()
    parts = [s.push(torch.from_numpy(y[i:i + 3000]).cuda()) for i in range(0, len(y), 3000)]
    assert all(p.is_cuda for p in parts)
    last = s.flush()
    assert last.is_cuda
    got = torch.cat(parts + [last]).cpu().numpy()
    assert np.array_equal(got, an.spectrogram(y))


def test_device_path_makes_no_host_copy(monkeypatch):
    """One channel on cuda or cufft (a 1-D tensor, or rows of channel="all" / an index) runs
    on the device entry: the host round trip is never taken."""
    torch = _torch()
    from spectro import _gpu

    def no_host(*args):
        raise AssertionError("copied through the host: %s" % _gpu.device_path_refused())
    y = signal(channels=2)
    t = torch.from_numpy(y).cuda()
    want = {b: host_result(y, b, channel="all") for b in ("cuda", "cufft")}
    monkeypatch.setattr(_gpu, "to_host", no_host)
    for backend in ("cuda", "cufft"):
        assert np.array_equal(spectro.spectrogram(t[0], sr=48000, backend=backend).cpu().numpy(),
                              want[backend][0])
        assert np.array_equal(spectro.spectrogram(t, sr=48000, channel="all", backend=backend).cpu().numpy(),
                              want[backend])
        assert np.array_equal(spectro.spectrogram(t, sr=48000, channel=1, backend=backend).cpu().numpy(),
                              want[backend][1])
    assert _gpu.device_path_refused() == {}


def test_short_device_signal_gets_its_padded_frame():
    torch = _torch()
    y = signal(1000)
    got = spectro.spectrogram(torch.from_numpy(y).cuda(), sr=48000, n_fft=4096, backend="cuda")
    assert got.is_cuda and got.shape == (1, 2049)
    assert np.array_equal(got.cpu().numpy(), host_result(y, "cuda", n_fft=4096))


def test_dlpack_import_reads_the_tensor():
    """The extension's DLPack reader on NumPy's (host) capsules: pointer, size, device,
    and its refusals (no GPU needed)."""
    from spectro import _spectro
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    ptr, count, kind, dev = _spectro.dlpack_info(a.__dlpack__())
    assert (ptr, count, kind, dev) == (a.ctypes.data, 12, 1, 0)
    ptr, count, _, _ = _spectro.dlpack_info(a[1:].__dlpack__())  # an offset view
    assert (ptr, count) == (a[1:].ctypes.data, 8)
    with pytest.raises(ValueError, match="C-contiguous"):
        _spectro.dlpack_info(a[:, ::2].__dlpack__())
    with pytest.raises(TypeError, match="float32"):
        _spectro.dlpack_info(np.zeros(4).__dlpack__())
    with pytest.raises(TypeError, match="capsule"):
        _spectro.dlpack_info(b"dltensor")


def test_host_arrays_of_other_frameworks_give_numpy():
    """A CPU DLPack array is not a device array: it is read as NumPy reads it."""
    from spectro import _gpu
    y = signal(4096 * 2)
    assert not _gpu.is_device_array(y)
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(y)
    assert not _gpu.is_device_array(t)
    got = spectro.spectrogram(t, sr=48000)
    assert isinstance(got, np.ndarray) and np.array_equal(got, spectro.spectrogram(y, sr=48000))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64"])
def test_torch_samples_scale_as_numpys(dtype):
    """The device path's own conversion (in torch, on the tensor's device; here the CPU)
    gives the host path's float32 values, bit for bit: the same scaling as PCM."""
    torch = pytest.importorskip("torch")
    from spectro import _convert, _gpu
    rng = np.random.default_rng(9)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = rng.uniform(-1, 1, 4000).astype(dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, 4000, endpoint=True, dtype=dt)
        a[:2] = [info.min, info.max]
    got = _gpu._float32(torch.from_numpy(a)).numpy()
    assert got.dtype == np.float32 and np.array_equal(got, _convert.to_float32(a))


def test_device_entry_refusal_is_a_code():
    """A plan that cannot take device memory answers EUNSUPPORTED as a value (the glue then
    goes through the host), never touching the pointers; other refusals raise."""
    from spectro import _spectro
    a = _spectro.Analyzer(48000, 1, 1024, 0, "hann", -1, "cpu")
    code, why = a.spectrogram_device(8, 1, 4096, 4096, 8, 13)
    assert code == _spectro.EUNSUPPORTED and "cpu" in why
    with pytest.raises(ValueError, match="d_samples"):
        a.spectrogram_device(0, 1, 4096, 4096, 8, 13)
