"""The window's exit status when a signal closes it (docs/manual.md "Errors and exit codes"),
on SDL's offscreen video driver (no X server):

    python3 tests/e2e/e2e_window_exit.py SPECTRO_BINARY ASSETS_DIR [unittest args]

- a live window (--realtime) that SIGINT or SIGTERM closes: 130 / 143, as a shell reports a
  command the signal ended, and no line on stderr (a live run keeps what it did);
- a file's window whose analysis was over: 0, the window merely closed;
- the window is the program's (spectro_job_set_window): a bad input still fails first, exit 2.

Its tests skip where SDL has no offscreen driver.
"""
import os
import signal
import subprocess
import time
import unittest

import spectro_e2e as E

FILE = "synth:rate=8000,sine=440,duration=0.5"
LIVE = "synth:rate=8000,sine=440,duration=60"


def env():
    e = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy")
    for k in ("DISPLAY", "WAYLAND_DISPLAY"):
        e.pop(k, None)
    # only system libraries (Mesa's llvmpipe, SDL_ttf's) leak on exit under LeakSanitizer,
    # which would make the exit status 1 (as e2e_window.py's xenv)
    e["ASAN_OPTIONS"] = e.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    return e


def closed_by(sig, args):
    """Runs the window on args, sends sig once it is up 3 s; (exit status, stderr)."""
    p = subprocess.Popen([E.BIN, "-q"] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env())
    time.sleep(3.0)
    if p.poll() is not None:  # it never stayed up
        out, err = p.communicate()
        if "offscreen" in err or "video" in err.lower():
            raise unittest.SkipTest("no SDL offscreen driver: " + err.strip())
        raise AssertionError("the window ended by itself: %d %s" % (p.returncode, err))
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    return p.returncode, err


class Exit(unittest.TestCase):
    def test_live_window(self):
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            with self.subTest(sig=sig):
                rc, err = closed_by(sig, ["--realtime", LIVE])
                self.assertEqual(rc, code, err)
                self.assertEqual(err, "")

    def test_file_window_over(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(sig=sig):
                rc, err = closed_by(sig, [FILE])
                self.assertEqual(rc, 0, err)
                self.assertEqual(err, "")

    def test_bad_input_first(self):
        p = E.run(["/nonexistent/none.wav"], env=env(), timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(E.stderr_lines(p)), 1, p.stderr)
        self.assertIn("none.wav", p.stderr)


if __name__ == "__main__":
    E.main()
