"""examples/spectrogram.py prints what `spectro --peaks` prints."""
import subprocess
import sys

import pytest

from conftest import ROOT, asset


@pytest.mark.parametrize("name", ["two_tone_48k_s16.wav", "stereo_1500l_3000r_48k_s16.wav"])
def test_example_prints_the_programs_peaks(cli, name):
    got = subprocess.run([sys.executable, str(ROOT / "examples" / "spectrogram.py"), asset(name)],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert got.stdout == cli("--peaks", asset(name)).stdout


def test_example_reports_a_bad_file(tmp_path):
    got = subprocess.run([sys.executable, str(ROOT / "examples" / "spectrogram.py"), str(tmp_path / "none.wav")],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 1 and got.stderr.count("\n") == 1 and "none.wav" in got.stderr
