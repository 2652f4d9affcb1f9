#!/usr/bin/python3
"""Runs the transforms' comparison with librosa (tests/python/test_xform_librosa.py) against
this build's binary, with a Python that has librosa and pytest: this one, else the build
tree's virtual environments (build/pyenv, which scripts/test.sh makes, or build/venv).
Exit 77 (skipped) when none has them.

usage: e2e_xform_librosa.py SPECTRO_BINARY ASSETS_DIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEST = os.path.join(ROOT, "tests", "python", "test_xform_librosa.py")


def has_librosa(python):
    probe = "import librosa, pytest"
    return subprocess.run([python, "-c", probe], capture_output=True, timeout=120).returncode == 0


def main():
    binary = os.path.abspath(sys.argv[1])
    build = os.path.dirname(binary)
    for python in [sys.executable, os.path.join(build, "pyenv", "bin", "python"),
                   os.path.join(build, "venv", "bin", "python")]:
        if os.access(python, os.X_OK) and has_librosa(python):
            env = dict(os.environ, SPECTRO_BIN=binary)
            return subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST],
                                  cwd=os.path.dirname(TEST), env=env).returncode
    print("librosa and pytest not found (scripts/test.sh installs them into build/pyenv): skipped")
    return 77


if __name__ == "__main__":
    sys.exit(main())
