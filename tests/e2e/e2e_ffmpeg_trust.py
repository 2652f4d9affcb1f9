#!/usr/bin/python3
"""What FFmpeg may read (issue 27, items 1, 2 and 10): a file name is that file and nothing
else (never a URL such as pipe:, concat: or http:, and a playlist or a concat script inside a
file opens no other file); a stream whose sample format changes part-way is converted right
(no over-read, the tone stays where it is); standard input and FIFOs take any format FFmpeg
reads, and --realtime paces standard input. Every test makes its files with the ffmpeg
program and skips without it or without FFmpeg in the build."""
import http.server
import os
import shutil
import socketserver
import subprocess
import threading
import unittest

import spectro_e2e as E


def ffmpeg_in_build():
    p = E.run(["--version"])
    return any(l.strip().startswith("ffmpeg:") and l.split(":", 1)[1].strip().startswith("yes")
               for l in p.stdout.splitlines())


def make(d, name, args):
    """ffmpeg -f lavfi -i sine=... ARGS d/name: a 1 kHz tone, 48 kHz, 1 s unless args say."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=1000:r=48000:d=1"] + args +
                   [os.path.join(d, name)], check=True)
    return os.path.join(d, name)


def peaks(tc, args, **kw):
    """spectro --peaks ARGS: [(time, hz, db)], after checking exit 0 and a quiet stderr."""
    if "stdin" in kw:
        p = subprocess.run([E.BIN, "-q", "--peaks"] + list(args), capture_output=True, text=True, timeout=60,
                           **kw)
    else:
        p = E.run(["-q", "--peaks"] + list(args), **kw)
    tc.assertEqual(p.returncode, 0, p.stderr)
    tc.assertEqual(E.stderr_lines(p), [])
    return [tuple(float(v) for v in l.split("\t")) for l in p.stdout.splitlines()]


def piped(feeder, args, cwd):
    """feeder (a command list) | spectro ARGS."""
    feed = subprocess.Popen(feeder, stdout=subprocess.PIPE, cwd=cwd)
    try:
        return subprocess.run([E.BIN] + list(args), stdin=feed.stdout, capture_output=True, text=True,
                              timeout=60, cwd=cwd)
    finally:
        feed.stdout.close()
        feed.wait()


class Counting(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):
        Counting.hits.append(self.path)
        self.send_error(404)

    def log_message(self, *a):
        pass


@unittest.skipIf(shutil.which("ffmpeg") is None, "ffmpeg is needed to make the test files")
class FFmpegTrust(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not ffmpeg_in_build():
            raise unittest.SkipTest("this build has no FFmpeg")

    def refused(self, name, cwd, **kw):
        p = E.run(["-q", "--peaks", name], cwd=cwd, **kw)
        self.assertEqual(p.returncode, 2, "%s: %s" % (name, p.stdout[:200]))
        self.assertEqual(p.stdout, "")
        lines = E.stderr_lines(p)
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("spectro: " + name + ": "), lines[0])
        return lines[0]

    def test_names_that_look_like_urls_are_files(self):
        with E.TempDir() as d:
            make(d, "a.m4a", ["-c:a", "aac"])
            wav = make(d, "s.wav", [])
            with open(os.path.join(d, "pipe:0"), "w") as f:
                f.write("a text file, not audio\n")
            with open(os.path.join(d, "concat:a.m4a|a.m4a"), "w") as f:
                f.write("a text file, not audio\n")
            # as URLs: pipe:0 reads the WAV on standard input, concat: reads a.m4a twice
            with open(wav, "rb") as stdin:
                p = subprocess.run([E.BIN, "-q", "--peaks", "pipe:0"], stdin=stdin, capture_output=True,
                                   text=True, cwd=d, timeout=60)
            self.assertEqual(p.returncode, 2, p.stdout[:200])
            self.assertIn("not a readable audio file", p.stderr)
            self.refused("concat:a.m4a|a.m4a", d)

    def test_playlists_and_scripts_open_no_other_file(self):
        with E.TempDir() as d:
            make(d, "a.m4a", ["-c:a", "aac"])
            make(d, "a.ts", ["-c:a", "mp2", "-f", "mpegts"])
            with open(os.path.join(d, "innocent.wav"), "w") as f:
                f.write("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\na.ts\n#EXT-X-ENDLIST\n")
            with open(os.path.join(d, "list.wav"), "w") as f:
                f.write("ffconcat version 1.0\nfile a.m4a\n")
            self.refused("innocent.wav", d)
            self.refused("list.wav", d)

    def test_an_http_looking_path_makes_no_request(self):
        with socketserver.TCPServer(("127.0.0.1", 0), Counting) as srv:
            port = srv.server_address[1]
            threading.Thread(target=srv.serve_forever, daemon=True).start()
            try:
                with E.TempDir() as d:
                    here = os.path.join(d, "http:", "127.0.0.1:%d" % port)
                    os.makedirs(here)
                    make(here, "a.ts", ["-c:a", "mp2", "-f", "mpegts"])
                    url = "http://127.0.0.1:%d/a.ts" % port
                    got = peaks(self, [url], cwd=d)
                    self.assertGreater(len(got), 10)
                    self.assertTrue(all(abs(hz - 1000) < 5 for _, hz, _ in got), got[:3])
            finally:
                srv.shutdown()
        self.assertEqual(Counting.hits, [], "spectro made HTTP requests")

    def test_sample_format_change_part_way(self):
        with E.TempDir() as d:
            parts = []
            for fmt in ("s32", "s16"):
                parts.append(make(d, fmt + ".ts", ["-ac", "2", "-c:a", "s302m", "-sample_fmt", fmt, "-strict", "-2",
                                                   "-f", "mpegts"]))
            with open(os.path.join(d, "mix.ts"), "wb") as out:
                for p in parts:
                    with open(p, "rb") as f:
                        out.write(f.read())
            first = peaks(self, [parts[0]])
            got = peaks(self, ["mix.ts"], cwd=d)
            self.assertGreater(got[-1][0], 1.5, "the second part was not read")
            level = first[len(first) // 2][2]
            for t, hz, db in got:
                if 0.2 < t < 0.8 or 1.2 < t < 1.8:  # away from the joint
                    self.assertAlmostEqual(hz, 1000, delta=1, msg="t %.3f" % t)
                    self.assertAlmostEqual(db, level, delta=0.1, msg="t %.3f" % t)

    def test_standard_input_and_fifos_in_any_format(self):
        with E.TempDir() as d:
            for name, args in (("s.flac", []), ("s.m4a", ["-c:a", "aac"]), ("s.mp3", []),
                               ("s.ogg", ["-c:a", "libvorbis"]), ("s.wav", [])):
                with self.subTest(format=name):
                    try:
                        make(d, name, args)
                    except subprocess.CalledProcessError:
                        self.skipTest("this ffmpeg cannot make " + name)
                    want = peaks(self, [name], cwd=d)

                    def same(got):
                        if name == "s.mp3":
                            # a file is libsndfile's (mpg123: gapless), a stream FFmpeg's,
                            # which keeps some of the encoder's padding
                            self.assertLessEqual(len(got) - len(want), 2)
                            got = got[:len(want)]
                        self.assertEqual(got, want)

                    p = piped(["cat", name], ["-q", "--peaks", "-"], d)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    same([tuple(float(v) for v in l.split("\t")) for l in p.stdout.splitlines()])
                    with open(os.path.join(d, name), "rb") as f:  # redirected: a regular file
                        same(peaks(self, ["-"], stdin=f, cwd=d))
                    fifo = os.path.join(d, "fifo")
                    os.mkfifo(fifo)
                    feed = subprocess.Popen("cat %s > fifo" % name, shell=True, cwd=d)
                    try:
                        same(peaks(self, ["fifo"], cwd=d))
                    finally:
                        feed.wait()
                        os.unlink(fifo)

    def same_or_skipped(self, p, want):
        """--realtime's frames: the file's, or (a loaded machine: the live path skipped ahead,
        as a device's would, and said so) some of them, at their own times."""
        self.assertEqual(p.returncode, 0, p.stderr)
        got = [tuple(float(v) for v in l.split("\t")) for l in p.stdout.splitlines()]
        if "dropped" in p.stderr or "skipped" in p.stderr:
            self.assertTrue(0 < len(got) <= len(want) and set(got) <= set(want), p.stderr)
        else:
            self.assertEqual(got, want, p.stderr)

    def test_realtime_paces_standard_input(self):
        with E.TempDir() as d:
            make(d, "s.flac", [])
            want = peaks(self, ["s.flac"], cwd=d)
            with open(os.path.join(d, "s.flac"), "rb") as f:
                p = subprocess.run([E.BIN, "--realtime", "--peaks", "-"], stdin=f, capture_output=True, text=True,
                                   timeout=60, cwd=d)
            self.same_or_skipped(p, want)
            self.same_or_skipped(piped(["cat", "s.flac"], ["--realtime", "--peaks", "-"], d), want)


if __name__ == "__main__":
    E.main()
