"""spectro.run: one command line of the program in process (spectro_job): its outputs equal
the program's, settings are refused naming the field, a batch's failures are raised with
their lines, the notes come back."""

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
