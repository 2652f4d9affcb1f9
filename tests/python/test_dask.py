"""docs/python.md's Dask example on a LocalCluster of 2 worker processes: the serial loop's
results, array for array."""
import shutil

import numpy as np
import pytest

import spectro
from conftest import asset

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

FILES = ["sine_1000hz_48k_f32.wav", "stereo_1500l_3000r_48k_s16.wav", "two_tone_48k.flac", "sine_513hz_8k_u8.wav",
         "chirp_100_20k_48k_s16.wav", "two_tone_96k_f32.wav"]


def analyse(path):
    """One file: what docs/python.md maps over the files."""
    y, sr = spectro.load(path)
    return path, spectro.spectrogram(y, sr=sr, n_fft=2048)


def test_dask_local_cluster_equals_serial(tmp_path):
    # the same files under several names: 12 tasks for 2 workers
    paths = []
    for i in range(2):
        for name in FILES:
            p = tmp_path / ("%d_%s" % (i, name))
            shutil.copy(asset(name), p)
            paths.append(str(p))
    serial = [analyse(p) for p in paths]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        futures = client.map(analyse, paths)
        par = client.gather(futures)
        workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    assert [p for p, _ in par] == paths
    for (_, a), (_, b) in zip(serial, par):
        assert a.dtype == b.dtype == np.float32 and np.array_equal(a, b)


def test_dask_delayed_equals_serial():
    """The same with dask.delayed on the default (threads) scheduler: spectro releases the GIL."""
    paths = [asset(n) for n in FILES]
    out = dask.compute(*[dask.delayed(analyse)(p) for p in paths], scheduler="threads")
    for (_, a), (_, b) in zip(out, [analyse(p) for p in paths]):
        assert np.array_equal(a, b)
