#!/usr/bin/python3
"""Outputs that can be trusted (issue 17, items 1, 2, 5, 6, 7; issue 27, items 3, 4, 19):

- special files are written straight through: a FIFO (a reader gets the whole PNG or .npy,
  the .npy with its final header; no sidecar), a character device (a private copy of
  /dev/null and /dev/full made with mknod: still a device after the run; a write error
  there is exit 1), standard output (--png /dev/stdout); a symlink is followed (the link
  stays, its target gets the file);
- an output that is the input, or that another output (or the dump's sidecar) also
  names, is refused before any work: exit 2, one line naming both, nothing touched;
- a job whose output cannot fit on the output's filesystem is refused up front (one line
  with the size and the free space, exit 1); a live dump that fills a small tmpfs stops
  and keeps a complete .npy of what it wrote (exit 1, one line);
- two outputs on standard output (-, /dev/stdout, /proc/self/fd/1, /dev/fd/1, a link to it,
  the file it was sent to) are refused before any work; --png - writes to standard output;
- runs writing one --dump path at once leave one run's .npy and sidecar, never a mix;
- kill -9 during a run leaves nothing in the output's directory (unnamed temporaries);
- --channel all on 1024 channels works under `ulimit -n 64`.
The tmpfs cases need root (mount); the device cases need mknod (root).
"""
import io
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import unittest

import numpy as np

import spectro_e2e as E

# ctest sets 0 when the build has no PNG renderer (no libpng/SDL2 at configure time)
HAVE_PNG = os.environ.get("SPECTRO_TEST_RENDER", "1") != "0"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WAV = "two_tone_48k_s16.wav"


def run_bytes(args, cwd=None, timeout=60, **kw):
    """The binary with binary stdout: (returncode, stdout bytes, stderr text)."""
    p = subprocess.run([E.BIN] + [str(a) for a in args], cwd=cwd, capture_output=True,
                       timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def one_line(tc, stderr):
    lines = [l for l in stderr.splitlines() if l.strip() and not l.startswith("spectro: note:")]
    tc.assertEqual(len(lines), 1, repr(stderr))
    tc.assertTrue(lines[0].startswith("spectro: "), lines[0])
    return lines[0]


def npy_from_bytes(tc, blob):
    tc.assertEqual(blob[:8], b"\x93NUMPY\x01\x00", "npy magic: %r" % blob[:16])
    a = np.load(io.BytesIO(blob), allow_pickle=False)
    hlen = blob[8] | (blob[9] << 8)
    tc.assertEqual(len(blob), 10 + hlen + 4 * a.size, "npy has no trailing bytes")
    return a


class FifoReader:
    """`cat FIFO > FILE` in the background: what a reader of the FIFO got."""

    def __init__(self, fifo, into):
        self.into = into
        self.f = open(into, "wb")
        self.p = subprocess.Popen(["cat", fifo], stdout=self.f)

    def result(self, timeout=10):
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            self.f.close()
            return None  # the reader never saw the end: nobody wrote to the FIFO
        self.f.close()
        with open(self.into, "rb") as f:
            return f.read()


class SpecialFiles(unittest.TestCase):
    @unittest.skipUnless(HAVE_PNG, "this build has no PNG renderer")
    def test_png_to_fifo(self):
        with E.TempDir() as d, E.TempDir() as side:
            fifo = os.path.join(d, "p.png")
            os.mkfifo(fifo)
            reader = FifoReader(fifo, os.path.join(side, "got"))
            p = E.run(["--png", fifo, "--size", "320x200", E.asset(WAV)], timeout=30)
            got = reader.result()
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
            self.assertIsNotNone(got, "the FIFO's reader waited forever")
            self.assertEqual(got[:8], PNG_MAGIC)
            self.assertEqual(E.listing(d), {"p.png"})

    def test_npy_to_fifo(self):
        """The .npy through a FIFO carries its final header (shape with the frame count);
        no sidecar beside a FIFO. Mono and --channel all (the spooled channels)."""
        for extra, name in (([], "mono"), (["-c", "all"], "all")):
            with self.subTest(name), E.TempDir() as d, E.TempDir() as side:
                src = E.asset("stereo_1500l_3000r_48k_s16.wav")
                want, _, _ = E.dump(self, [src] + extra)
                fifo = os.path.join(d, "p.npy")
                os.mkfifo(fifo)
                reader = FifoReader(fifo, os.path.join(side, "got"))
                p = E.run(["-o", fifo, src] + extra, timeout=30)
                got = reader.result()
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIsNotNone(got, "the FIFO's reader waited forever")
                self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
                a = npy_from_bytes(self, got)
                self.assertEqual(a.shape, want.shape)
                self.assertTrue(np.array_equal(a, want))
                self.assertEqual(E.listing(d), {"p.npy"}, "no sidecar beside a FIFO")

    def test_csv_to_fifo(self):
        with E.TempDir() as d, E.TempDir() as side:
            src = E.asset("stereo_1500l_3000r_48k_s16.wav")
            want, _, _ = E.dump(self, [src, "-c", "all"], out_name="out.csv")
            fifo = os.path.join(d, "p.csv")
            os.mkfifo(fifo)
            reader = FifoReader(fifo, os.path.join(side, "got"))
            p = E.run(["-o", fifo, "-c", "all", src], timeout=30)
            got = reader.result()
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(got.decode(), want)
            self.assertEqual(E.listing(d), {"p.csv"})

    def test_signal_while_a_fifo_waits_for_its_reader(self):
        """The open of a FIFO output waits for a reader; SIGINT or SIGTERM meanwhile ends the
        run as any signal does: 130 or 143, one line "INPUT: interrupted" (it said "cannot
        write: Interrupted system call", exit 1). One file (--dump, --png) and a batch."""
        cases = [(["-o", "p.npy"], "p.npy", 1)]
        if HAVE_PNG:
            cases.append((["--png", "p.png"], "p.png", 1))
        cases.append((["-o", "{stem}.npy"], "a.npy", 2))
        for out, fifo, files in cases:
            for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
                with self.subTest(out=out, signal=sig), E.TempDir() as d:
                    os.mkfifo(os.path.join(d, fifo))
                    inputs = [E.asset(WAV)]
                    if files > 1:
                        inputs = [os.path.join(d, n) for n in ("a.wav", "b.wav")]
                        for path in inputs:
                            shutil.copy(E.asset(WAV), path)
                    args = [out[0], os.path.join(d, out[1])]
                    proc = subprocess.Popen([E.BIN, "-q"] + args + inputs, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    time.sleep(1.0)
                    proc.send_signal(sig)
                    try:
                        _, err = proc.communicate(timeout=20)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.communicate()
                        self.fail("still waiting for the FIFO's reader after the signal")
                    self.assertEqual(proc.returncode, code, err)
                    self.assertIn("spectro: %s: interrupted" % inputs[0], err.splitlines())
                    self.assertTrue(stat.S_ISFIFO(os.lstat(os.path.join(d, fifo)).st_mode))

    @unittest.skipUnless(HAVE_PNG, "this build has no PNG renderer")
    def test_png_to_stdout(self):
        """First through a link of our own to /proc/self/fd/1 (harmless where links are
        replaced), then /dev/stdout itself."""
        with E.TempDir() as d:
            link = os.path.join(d, "out.png")
            os.symlink("/proc/self/fd/1", link)
            rc, out, err = run_bytes(["--png", link, "--size", "320x200", E.asset(WAV)])
            self.assertEqual(rc, 0, err)
            self.assertTrue(os.path.islink(link), "the link was replaced")
            self.assertEqual(out[:8], PNG_MAGIC, "standard output holds %d bytes" % len(out))
            self.assertEqual(E.listing(d), {"out.png"})
        before = os.lstat("/dev/stdout")
        rc, out, err = run_bytes(["--png", "/dev/stdout", "--size", "320x200", E.asset(WAV)])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out[:8], PNG_MAGIC)
        after = os.lstat("/dev/stdout")
        self.assertEqual((before.st_ino, before.st_mode), (after.st_ino, after.st_mode), "/dev/stdout was replaced")

    @unittest.skipUnless(HAVE_PNG, "this build has no PNG renderer")
    def test_png_dash_is_stdout(self):
        """--png - writes the picture to standard output, as --dump - writes CSV there
        (--average's plot too); no file named "-" appears."""
        for extra in ([], ["--average", "mean"]):
            with self.subTest(extra=extra), E.TempDir() as d:
                rc, out, err = run_bytes(["--png", "-", "--size", "320x200", E.asset(WAV)] + extra, cwd=d)
                self.assertEqual(rc, 0, err)
                self.assertEqual(out[:8], PNG_MAGIC, "standard output holds %r..." % out[:16])
                self.assertEqual(E.listing(d), set())

    def mknod(self, path, minor):
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        except (PermissionError, OSError) as e:
            self.skipTest("cannot make a device node: %s" % e)

    def test_character_devices(self):
        """Private copies of /dev/null (1,3) and /dev/full (1,7): written through, still
        devices afterwards; the full one is a write error, exit 1, one line."""
        with E.TempDir() as d:
            null, full = os.path.join(d, "null.npy"), os.path.join(d, "full.npy")
            self.mknod(null, 3)
            self.mknod(full, 7)
            p = E.run(["-o", null, E.asset(WAV)])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode), "the device was replaced")
            p = E.run(["-o", full, E.asset(WAV)])
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(full, one_line(self, p.stderr))
            self.assertTrue(stat.S_ISCHR(os.lstat(full).st_mode), "the device was replaced")
            if HAVE_PNG:
                png = os.path.join(d, "full.png")
                self.mknod(png, 7)
                p = E.run(["--png", png, "--size", "320x200", E.asset(WAV)])
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(png, one_line(self, p.stderr))
                self.assertTrue(stat.S_ISCHR(os.lstat(png).st_mode))
            self.assertEqual(E.listing(d), {"null.npy", "full.npy"} | ({"full.png"} if HAVE_PNG else set()))

    def test_symlink_followed(self):
        """A link (relative, resolved from its own directory) stays a link; its target gets
        the file, with nothing else left beside the target; a dangling link's target is
        made. The sidecar keeps the name given (link.npy.json)."""
        with E.TempDir() as d, E.TempDir() as cwd:
            os.mkdir(os.path.join(d, "real"))
            target = os.path.join(d, "real", "target.npy")
            with open(target, "wb") as f:
                f.write(b"old")
            link = os.path.join(d, "link.npy")
            os.symlink("real/target.npy", link)
            want, _, _ = E.dump(self, [E.asset(WAV)])
            p = E.run(["-o", link, E.asset(WAV)], cwd=cwd)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(os.path.islink(link), "the link was replaced")
            self.assertTrue(np.array_equal(E.load_npy(self, target), want))
            self.assertEqual(E.listing(os.path.join(d, "real")), {"target.npy"})
            self.assertTrue(os.path.isfile(link + ".json"))
            dangling = os.path.join(d, "dangling.npy")
            os.symlink(os.path.join(d, "real", "new.npy"), dangling)
            p = E.run(["-o", dangling, E.asset(WAV)], cwd=cwd)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(os.path.islink(dangling))
            self.assertTrue(np.array_equal(E.load_npy(self, os.path.join(d, "real", "new.npy")), want))
            self.assertEqual(E.listing(cwd), set())


class Identity(unittest.TestCase):
    def refused(self, args, cwd, names):
        before = {n: open(os.path.join(cwd, n), "rb").read() for n in E.listing(cwd)
                  if os.path.isfile(os.path.join(cwd, n))}
        p = E.run(args, cwd=cwd)
        self.assertEqual(p.returncode, 2, "%s: exit %d, %s" % (args, p.returncode, p.stderr))
        line = one_line(self, p.stderr)
        for n in names:
            self.assertIn(n, line)
        after = {n: open(os.path.join(cwd, n), "rb").read() for n in E.listing(cwd)
                 if os.path.isfile(os.path.join(cwd, n))}
        self.assertEqual(before, after, "files were touched")

    def test_output_is_the_input(self):
        with E.TempDir() as d:
            shutil.copy(E.asset(WAV), os.path.join(d, "rec.wav"))
            if HAVE_PNG:
                self.refused(["--png", "rec.wav", "rec.wav"], d, ["--png rec.wav", "input rec.wav"])
                self.refused(["--png", "./rec.wav", "rec.wav"], d, ["--png ./rec.wav", "input rec.wav"])
                os.symlink("rec.wav", os.path.join(d, "link.png"))
                self.refused(["--png", "link.png", "rec.wav"], d, ["link.png", "rec.wav"])
                os.link(os.path.join(d, "rec.wav"), os.path.join(d, "hard.png"))
                self.refused(["--png", "hard.png", os.path.join(d, "rec.wav")], d, ["hard.png", "rec.wav"])
            # a WAV named like a dump: --dump's own file, then its sidecar
            shutil.copy(E.asset(WAV), os.path.join(d, "in.csv"))
            self.refused(["-o", "in.csv", "in.csv"], d, ["--dump in.csv", "input in.csv"])
            shutil.copy(E.asset(WAV), os.path.join(d, "x.npy.json"))
            self.refused(["-o", "x.npy", "x.npy.json"], d, ["x.npy", "input x.npy.json"])
            # the measurements' dumps have the same sidecar (they wrote over the input, exit 0)
            self.refused(["--average", "mean", "-o", "x.npy", "x.npy.json"], d, ["x.npy", "input x.npy.json"])
            self.refused(["--bands", "3", "-o", "x.npy", "x.npy.json"], d, ["x.npy", "input x.npy.json"])
            os.mkdir(os.path.join(d, "sub"))
            self.refused(["-o", "sub/../x.npy", os.path.join(d, "x.npy.json")], d, ["sub/../x.npy", "x.npy.json"])

    def test_two_outputs_one_file(self):
        if not HAVE_PNG:
            self.skipTest("this build has no PNG renderer")
        with E.TempDir() as d:
            self.refused(["--png", "x.npy", "-o", "x.npy", E.asset(WAV)], d, ["--png x.npy", "--dump x.npy"])
            self.refused(["--png", "x.npy.json", "-o", "./x.npy", E.asset(WAV)], d,
                         ["--png x.npy.json", "--dump ./x.npy"])
            self.refused(["--png", os.path.join(d, "y.csv"), "-o", "y.csv", E.asset(WAV)], d, ["y.csv"])
            self.assertEqual(E.listing(d), set())
            p = E.run(["--png", "a.png", "-o", "a.npy", E.asset(WAV)], cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)


class StdoutOnce(unittest.TestCase):
    """Two outputs on standard output are refused before any work (exit 2, one line naming
    both, nothing written): however the second names it."""

    def refused(self, args, names, stdout=None, cwd=None):
        p = subprocess.run([E.BIN] + [str(a) for a in args], cwd=cwd, stdin=subprocess.DEVNULL,
                           stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 2, "%s: exit %d, %s" % (args, p.returncode, err))
        line = one_line(self, err)
        self.assertIn("standard output", line)
        for n in names:
            self.assertIn(n, line)
        if stdout is None:
            self.assertEqual(p.stdout, b"", "%s wrote to standard output" % args)

    @unittest.skipUnless(HAVE_PNG, "this build has no PNG renderer")
    def test_two_outputs_on_stdout(self):
        wav = E.asset(WAV)
        with E.TempDir() as d:
            for png in ("/dev/stdout", "/proc/self/fd/1", "/dev/fd/1", "-"):
                with self.subTest(png=png):
                    self.refused([wav, "--peaks", "--png", png], ["--peaks", "--png " + png], cwd=d)
                    self.refused([wav, "--dump", "-", "--png", png], ["--dump -", "--png " + png], cwd=d)
                    self.refused([wav, "--tone", "--png", png], ["--tone", "--png " + png], cwd=d)
            self.assertEqual(E.listing(d), set())
            # a link to standard output, and the very file the shell sent it to
            os.symlink("/proc/self/fd/1", os.path.join(d, "link.png"))
            self.refused([wav, "--peaks", "--png", "link.png"], ["--peaks", "--png link.png"], cwd=d)
            target = os.path.join(d, "out.png")
            with open(target, "wb") as f:
                self.refused([wav, "--peaks", "--png", target], ["--peaks", "--png " + target], stdout=f)
            self.assertEqual(os.path.getsize(target), 0, "the file was written")
            # a batch says it once, before any file
            lst = os.path.join(d, "list")
            with open(lst, "w") as f:
                f.write(wav + "\n")
            self.refused(["--files-from", lst, "--peaks", "--png", "/dev/stdout"], ["--peaks", "--png /dev/stdout"])
            self.assertEqual(E.listing(d), {"link.png", "out.png", "list"})

    @unittest.skipUnless(HAVE_PNG, "this build has no PNG renderer")
    def test_null_device_takes_both(self):
        """Standard output sent to /dev/null and --png /dev/null: nothing mixes there."""
        with open(os.devnull, "wb") as null:
            p = subprocess.run([E.BIN, "-q", E.asset(WAV), "--peaks", "--png", os.devnull, "--size", "320x200"],
                               stdin=subprocess.DEVNULL, stdout=null, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)


def free_bytes(path):
    s = os.statvfs(path)
    return s.f_bavail * s.f_frsize


class Tmpfs:
    """A tmpfs of `size` mounted at DIR/mnt (root only: skips otherwise)."""

    def __init__(self, tc, d, size):
        self.mnt = os.path.join(d, "mnt")
        os.mkdir(self.mnt)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s" % size, "tmpfs", self.mnt],
                           capture_output=True, text=True)
        if r.returncode != 0:
            tc.skipTest("cannot mount a tmpfs: %s" % r.stderr.strip())

    def close(self):
        subprocess.run(["umount", self.mnt], capture_output=True)


class Space(unittest.TestCase):
    def test_absurd_job_refused(self):
        """-n 4194304 --hop 1 on ten minutes: ~206 TB of .npy; refused at once, no file."""
        with E.TempDir() as d:
            t0 = time.monotonic()
            p = E.run(["-n", "4194304", "--hop", "1", "-b", "cpu", "-o", "x.npy", "synth:duration=600"],
                      cwd=d, timeout=120)
            self.assertEqual(p.returncode, 1, p.stderr)
            line = one_line(self, p.stderr)
            self.assertRegex(line, r"^spectro: --dump x\.npy: needs 206 TB, [0-9.]+ [kMGTP]?B free on /")
            self.assertLess(time.monotonic() - t0, 60)
            self.assertEqual(E.listing(d), set())

    def test_too_big_for_a_small_tmpfs(self):
        """244 MB of .npy, ~490 MB of CSV (an estimate) into a 4 MB tmpfs: refused up front,
        naming the mount point."""
        with E.TempDir() as d:
            fs = Tmpfs(self, d, "4m")
            try:
                for out, size in (("x.npy", "needs 244 MB"), ("x.csv", "needs about")):
                    p = E.run(["--hop", "16", "-b", "cpu", "-o", os.path.join(fs.mnt, out),
                               "synth:duration=10"], timeout=60)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    line = one_line(self, p.stderr)
                    self.assertIn("needs", line)
                    self.assertIn(size, line)
                    self.assertIn("free on " + fs.mnt, line)
                    self.assertEqual(E.listing(fs.mnt), set())
            finally:
                fs.close()

    def test_live_dump_fills_the_disk(self):
        """A live dump into an 8 MB tmpfs: it stops before the disk is full and keeps a
        complete .npy of the frames so far, with its sidecar; exit 1 with one line."""
        for extra, name in (([], "mono"), (["-c", "all"], "stereo")):
            with self.subTest(name), E.TempDir() as d:
                fs = Tmpfs(self, d, "8m")
                try:
                    out = os.path.join(fs.mnt, "x.npy")
                    p = E.run(["--realtime", "-b", "cpu", "--hop", "64", "-o", out] + extra +
                              ["synth:duration=inf,channels=2"], timeout=90)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    line = one_line(self, p.stderr)
                    self.assertIn("free on " + fs.mnt, line)
                    self.assertEqual(E.listing(fs.mnt), {"x.npy", "x.npy.json"})
                    a = E.load_npy(self, out)
                    meta = E.load_json(self, out + ".json")
                    frames = a.shape[-2]
                    self.assertGreater(a.nbytes, 3 << 20, "stopped well before the disk was nearly full")
                    self.assertEqual(meta["frames"], frames)
                    self.assertEqual(a.shape, ((2,) if extra else ()) + (frames, 2049))
                    self.assertGreater(int(np.argmax(a[..., frames // 2, :])), 0)
                finally:
                    fs.close()


def fds_into(pid, d):
    try:
        names = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return []
    out = []
    for n in names:
        try:
            t = os.readlink("/proc/%d/fd/%s" % (pid, n))
        except OSError:
            continue
        if t.startswith(d + "/"):
            out.append(t)
    return out


class NoTrace(unittest.TestCase):
    def test_kill9_leaves_nothing(self):
        """SIGKILL while the dump is being written: nothing in the output's directory."""
        for extra in ([], ["-c", "all"]):
            with self.subTest(extra=extra), E.TempDir() as d:
                out = os.path.join(d, "out.npy")
                proc = subprocess.Popen([E.BIN, "--realtime", "-b", "cpu", "-o", out] + extra +
                                        ["synth:duration=inf,channels=3"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
                try:
                    t_end = time.monotonic() + 20
                    seen = []
                    while time.monotonic() < t_end and len(seen) < (2 if extra else 1):
                        seen = fds_into(proc.pid, d)
                        time.sleep(0.05)
                    self.assertTrue(seen, "spectro never opened a file in %s" % d)
                    time.sleep(0.5)  # some data written
                finally:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    proc.stderr.close()
                self.assertEqual(E.listing(d), set(), "left behind (open files were %s)" % seen)


class Concurrent(unittest.TestCase):
    RUNS, TRIALS = 8, 30

    def test_runs_on_one_dump_path(self):
        """Runs writing one --dump path at once, each on an input of its own length: the
        .npy and its sidecar that stay are one run's pair (the sidecar's frames and source
        match the .npy's shape), trial after trial; no temporary is left."""
        with E.TempDir() as d:
            rate, n = 48000, 1024
            frames_of = {}
            for i in range(self.RUNS):
                path = os.path.join(d, "in%d.wav" % i)
                length = n + (4 * i + 1) * n  # frames 4i + 2: each run its own count
                E.write_float_wav(path, 0.5 * np.sin(2 * np.pi * 1000 * np.arange(length) / rate), rate)
                frames_of[path] = E.frame_count(length, n, n)
            out = os.path.join(d, "o", "out.npy")
            os.mkdir(os.path.dirname(out))
            bad = []
            for trial in range(self.TRIALS):
                procs = [subprocess.Popen([E.BIN, "-q", "-b", "cpu", "-n", str(n), "--hop", str(n), "-o", out, path],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE) for path in frames_of]
                for p in procs:
                    err = p.communicate(timeout=60)[1]
                    self.assertEqual(p.returncode, 0, err)
                a = E.load_npy(self, out)
                meta = E.load_json(self, out + ".json")
                if meta["frames"] != a.shape[0] or frames_of[meta["source"]] != a.shape[0]:
                    bad.append((trial, a.shape[0], meta["frames"], meta["source"]))
                self.assertEqual(E.listing(os.path.dirname(out)), {"out.npy", "out.npy.json"})
            self.assertEqual(bad, [], "(trial, .npy frames, sidecar frames, sidecar source) of another run's pair")


class Descriptors(unittest.TestCase):
    def test_1024_channels_under_ulimit_64(self):
        n, rate, chans = 4096, 48000, 1024
        t = np.arange(n) / rate
        x = 0.5 * np.cos(2 * np.pi * np.outer(t, (np.arange(chans) + 1) * rate / n))
        limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        with E.TempDir() as d:
            path = os.path.join(d, "ch1024.wav")
            E.write_float_wav(path, x, rate)
            for name in ("out.npy", "out.csv"):
                out = os.path.join(d, name)
                p = E.run([path, "-c", "all", "-b", "cpu", "-o", out], preexec_fn=limit, timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
            a = E.load_npy(self, os.path.join(d, "out.npy"))
            self.assertEqual(a.shape, (chans, 1, n // 2 + 1))
            self.assertTrue((np.argmax(a[:, 0, :], axis=1) == np.arange(chans) + 1).all())
            with open(os.path.join(d, "out.csv")) as f:
                rows = f.read().splitlines()
            self.assertEqual(len(rows), 1 + chans)
            self.assertEqual([int(r.split(",", 1)[0]) for r in rows[1:]], list(range(chans)))
            self.assertEqual(E.listing(d), {"ch1024.wav", "out.npy", "out.npy.json", "out.csv", "out.csv.json"})


if __name__ == "__main__":
    E.main()
