"""spectro.run: one command line of the program in process (spectro_job): its outputs equal
the program's, settings are refused naming the field, a batch's failures are raised with
their lines, the notes come back; on_frames gets the dump's rows (a transform's too), stops
the run with False, raises its exception, and lets Ctrl-C through."""

import time

import numpy as np
import pytest

import spectro

from conftest import ASSETS



def _asset():
    files = sorted(p for p in ASSETS.iterdir() if p.suffix in (".wav", ".flac"))
    if not files:
        pytest.skip("no audio asset")
    return str(files[0])


def test_dump_equals_the_programs(cli, tmp_path):
    src = _asset()
    mine, theirs = tmp_path / "run.npy", tmp_path / "cli.npy"
    spectro.run(src, fft_size=2048, hop=512, window="blackman", backend="cpu", dump=str(mine))
    cli("-n", "2048", "--hop", "512", "-w", "blackman", "-b", "cpu", "--dump", theirs, src)
    assert mine.read_bytes() == theirs.read_bytes()
    assert (tmp_path / "run.npy.json").exists()


def test_settings_as_python_values(tmp_path):
    out = tmp_path / "a.png"
    spectro.run("synth:sine=1000,duration=1", png=str(out), size=(640, 360), db_range=(-90, 0), quiet=True,
                psd=False)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_setting_names_the_field(tmp_path):
    with pytest.raises(ValueError, match=r"^hop 0: must be at least 1$"):
        spectro.run("synth:duration=1", hop=0, dump=str(tmp_path / "x.npy"))
    with pytest.raises(ValueError, match="no such setting"):
        spectro.run("synth:duration=1", hopp=10, dump=str(tmp_path / "x.npy"))
    with pytest.raises(ValueError, match=r"^weighting: only with bands"):
        spectro.run("synth:duration=1", weighting="A", dump=str(tmp_path / "x.npy"))
    assert not (tmp_path / "x.npy").exists()


def test_no_output_is_refused():
    # the window is the spectro program's, not the library's: a job that asks for nothing
    # says so, naming what to ask for, and opens no window in the interpreter's process
    with pytest.raises(ValueError, match=r"^no output asked for \(dump, png, peaks, \.\.\.\) and no window"):
        spectro.run("synth:duration=1")


def test_batch_failure_raises_with_its_lines(tmp_path):
    missing = tmp_path / "missing.wav"
    with pytest.raises(OSError) as e:
        spectro.run("synth:sine=440,duration=1", str(missing), dump=str(tmp_path) + "/")
    assert str(missing) in str(e.value) and "1 of 2 files failed" in str(e.value)
    assert (tmp_path / "synth:sine=440,duration=1.npy").exists()


def test_notes_come_back(tmp_path):
    r = spectro.run("synth:sine=440,duration=0.01", dump=str(tmp_path / "s.npy"))
    assert any("fewer than fft_size 4096" in line for line in r.notes), r
    assert r.warnings == [] and r.info == []
    r = spectro.run("synth:sine=440,duration=1", verbose=True, dump=str(tmp_path / "v.npy"))
    assert any(line.startswith("time: ") for line in r.info), r


def _collect(**settings):
    """spectro.run of settings with on_frames gathering channel 0's rows and the info."""
    got, infos = [], []

    def take(rows, channel, first, info):
        if channel == 0:
            assert first == sum(len(r) for r in got)
            got.append(rows.copy())
        infos.append(info)
    spectro.run("synth:rate=48000,sine=1000,noise=0.001,duration=2", on_frames=take, backend="cpu", **settings)
    return np.concatenate(got), infos[0]


def test_frames_equal_the_dump_and_spectrogram(tmp_path):
    """Every frame the dump writes reaches on_frames, bit for bit, and equals
    spectro.spectrogram of the same samples; info describes them."""
    out = tmp_path / "d.npy"
    rows, info = _collect(fft_size=1024, dump=str(out))
    assert np.array_equal(rows, np.load(out))
    y, sr = spectro.load("synth:rate=48000,sine=1000,noise=0.001,duration=2")
    assert np.array_equal(rows, spectro.spectrogram(y, sr=sr, n_fft=1024, backend="cpu"))
    assert info["bins"] == 513 and info["depth"] == 1 and info["transform"] is None and info["unit"] == "dBFS"
    assert info["freqs_hz"][1] == pytest.approx(48000 / 1024) and info["hop"] == 256 and not info["live"]
    assert info["time_first_s"] == pytest.approx(512 / 48000) and info["time_step_s"] == pytest.approx(256 / 48000)


def test_frames_of_a_transform_without_output():
    """No output setting: on_frames is the output (no window); a transform's rows and
    columns (reassign: (count, bins, 3))."""
    rows, info = _collect(fft_size=2048, mel=32)
    assert rows.shape[1:] == (32,) and info["transform"] == "mel" and len(info["freqs_hz"]) == 32
    rows, info = _collect(fft_size=1024, reassign=True)
    assert rows.shape[1:] == (513, 3) and info["depth"] == 3
    strong = rows[:, :, 2] > -20
    assert np.all(np.abs(rows[:, :, 0][strong] - 1000) < 1), "reassigned frequencies of the 1 kHz sine"


def test_frames_stop_and_errors():
    calls = []

    def stop(rows, channel, first, info):
        calls.append(len(rows))
        return False
    r = spectro.run("synth:sine=1000,duration=600", on_frames=stop, fft_size=256)
    # the run ends at its next check of the stop: within a few calls, far short of its frames
    assert 1 <= len(calls) <= 4 and sum(calls) < 600 * 48000 // 64 // 100 and isinstance(r, spectro.RunResult)

    def boom(rows, channel, first, info):
        raise ZeroDivisionError("from the callback")
    with pytest.raises(ZeroDivisionError, match="from the callback"):
        spectro.run("synth:sine=1000,duration=600", on_frames=boom, fft_size=256)
    with pytest.raises(ValueError, match="one input at a time"):
        spectro.run("synth:duration=1", "synth:duration=1", on_frames=stop)
    with pytest.raises(TypeError, match="callable"):
        spectro.run("synth:duration=1", on_frames=3)


def test_frames_ctrl_c_stops_the_run():
    """SIGINT while on_frames runs: KeyboardInterrupt from run, the frames' calls made on the
    caller's thread (where Python handles signals)."""
    import os
    import signal
    import threading
    main, calls = threading.get_ident(), []
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))

    def slow(rows, channel, first, info):
        calls.append(threading.get_ident() == main)
        if len(calls) == 1:  # the signal once the frames flow, however busy the machine
            timer.start()
        time.sleep(0.01)
    # Python's own handler, whatever the process inherited (a background job's shell
    # ignores SIGINT, and Python then installs none)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            spectro.run("synth:sine=1000,duration=3600", on_frames=slow)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, before)
    assert calls and all(calls)
