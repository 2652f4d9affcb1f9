#!/usr/bin/python3
"""Many files in one run: outputs byte-identical to one run per file, a bad file among good
ones, --shard's shares, --files-from (a file and standard input), the usage errors, the
--peaks file column."""
import os
import shutil
import subprocess
import unittest

import numpy as np

import spectro_e2e as E

# ctest sets 0 when the build has no PNG renderer (no libpng/SDL2 at configure time)
HAVE_PNG = os.environ.get("SPECTRO_TEST_RENDER", "1") != "0"

# mono and stereo, 16/24/32-bit WAV, FLAC, 8 channels: the plan and the framer are reused
# and remade (--channel all changes their shape from file to file)
ASSETS = ["two_tone_48k_s16.wav", "sine_2250hz_48k_s24.wav", "stereo_1500l_3000r_48k_s16.wav",
          "two_tone_48k.flac", "eight_channels_48k_s16.wav", "sine_513hz_8k_u8.wav"]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def make_wavs(d, count, seconds=0.25, rate=48000):
    """count short float WAVs f0.wav ... with a tone each, in d/in."""
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    paths = []
    t = np.arange(int(seconds * rate)) / rate
    for i in range(count):
        p = os.path.join(d, "in", "f%d.wav" % i)
        E.write_float_wav(p, 0.5 * np.sin(2 * np.pi * (500 + 250 * i) * t), rate)
        paths.append(p)
    return paths


class Batch(unittest.TestCase):
    def run_ok(self, args, cwd=None):
        p = E.run(args, cwd=cwd)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(E.stderr_lines(p), [], p.stderr)
        return p

    def check_same_as_single(self, extra, outputs):
        """outputs: (option, pattern, [suffix of each file made from the pattern])."""
        with E.TempDir() as d:
            inputs = [E.asset(a) for a in ASSETS]
            for sub in ("batch", "single"):
                os.mkdir(os.path.join(d, sub))
            args = list(extra)
            for opt, pattern, _ in outputs:
                args += [opt, os.path.join(d, "batch", pattern)]
            self.run_ok(inputs + args)
            for path in inputs:
                one = list(extra)
                for opt, pattern, _ in outputs:
                    one += [opt, os.path.join(d, "single", pattern.replace("{stem}", stem(path)))]
                self.run_ok([path] + one)
            made = sorted(os.listdir(os.path.join(d, "single")))
            self.assertEqual(sorted(os.listdir(os.path.join(d, "batch"))), made)
            self.assertEqual(len(made), len(inputs) * sum(len(s) for _, _, s in outputs))
            for name in made:
                self.assertEqual(read(os.path.join(d, "batch", name)), read(os.path.join(d, "single", name)),
                                 "%s differs from a run of its own" % name)

    def test_npy_json_png_same_as_single_runs(self):
        outs = [("--dump", "{stem}.npy", [".npy", ".npy.json"])]
        if HAVE_PNG:
            outs.append(("--png", "{stem}.png", [".png"]))
        self.check_same_as_single(["--size", "640x360"] if HAVE_PNG else [], outs)

    def test_channel_all_csv_same_as_single_runs(self):
        # every file a different channel count: the framer (and plan batch) change shape
        self.check_same_as_single(["-c", "all", "-n", "1024", "-w", "blackman"],
                                  [("--dump", "{stem}.csv", [".csv", ".csv.json"])])

    def test_directory_outputs(self):
        with E.TempDir() as d:
            inputs = [E.asset(a) for a in ASSETS[:3]]
            os.mkdir(os.path.join(d, "o"))
            args = inputs + ["--dump", os.path.join(d, "o") + "/", "-q"]
            if HAVE_PNG:
                os.mkdir(os.path.join(d, "p"))
                args += ["--png", os.path.join(d, "p"), "--size", "640x360"]  # an existing directory
            p = E.run(args)
            self.assertEqual(p.returncode, 0, p.stderr)
            want = {"o/%s%s" % (stem(i), s) for i in inputs for s in (".npy", ".npy.json")}
            if HAVE_PNG:
                want |= {"p/%s.png" % stem(i) for i in inputs}
            self.assertEqual(E.listing(d) - {"o", "p"}, want)

    def test_measurements_to_a_directory(self):
        """--average and --bands turn --dump into kinds of their own: a directory output still
        gets DIR/{stem}.npy and its sidecar for each (it got "DIR/{stem}", refused), and the
        outputs equal single runs'."""
        for extra in (["--average", "mean"], ["--bands", "3", "-n", "8192"]):
            self.check_same_as_single(extra, [("--dump", "{stem}.npy", [".npy", ".npy.json"])])
            with E.TempDir() as d:
                inputs = [E.asset(a) for a in ASSETS[:2]]
                os.mkdir(os.path.join(d, "o"))
                p = E.run(inputs + extra + ["--dump", os.path.join(d, "o") + "/", "-q"])
                self.assertEqual(p.returncode, 0, "%s: %s" % (extra, p.stderr))
                self.assertEqual(E.listing(d) - {"o"},
                                 {"o/%s%s" % (stem(i), s) for i in inputs for s in (".npy", ".npy.json")}, extra)

    def test_bad_files_among_good_ones(self):
        with E.TempDir() as d:
            good = [E.asset(a) for a in ("two_tone_48k_s16.wav", "sine_1000hz_48k_f32.wav", "silence_48k_s16.wav")]
            bad = [E.asset("not_audio.wav"), os.path.join(d, "missing.wav"), E.asset("empty.wav")]
            inputs = [good[0], bad[0], good[1], bad[1], bad[2], good[2]]
            os.mkdir(os.path.join(d, "o"))
            p = E.run(inputs + ["--dump", os.path.join(d, "o/{stem}.npy")])
            self.assertEqual(p.returncode, 1, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), len(bad) + 1, p.stderr)
            for line, path in zip(lines, bad):
                self.assertTrue(line.startswith("spectro: "), line)
                self.assertIn(path, line)
            self.assertEqual(lines[-1], "spectro: 3 of 6 files failed")
            # the good ones complete; nothing of the bad ones (temporaries included)
            self.assertEqual(E.listing(os.path.join(d, "o")),
                             {"%s%s" % (stem(g), s) for g in good for s in (".npy", ".npy.json")})

    def test_pattern_into_a_missing_directory(self):
        """The part of a pattern before its placeholders is checked before any file, as a
        DIR/ is: one line, exit 2 (not a failure per file)."""
        with E.TempDir() as d:
            shutil.copy(E.asset("two_tone_48k_s16.wav"), os.path.join(d, "x.wav"))
            shutil.copy(E.asset("sine_1000hz_48k_f32.wav"), os.path.join(d, "y.wav"))
            for opt, pattern in (("--dump", "o2/{stem}.csv"), ("--dump", "o2/sub/{stem}.npy"),
                                 ("--png", "o2/{name}.png")):
                with self.subTest(pattern=pattern):
                    p = E.run(["x.wav", "y.wav", opt, pattern], cwd=d)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    lines = E.stderr_lines(p)
                    self.assertEqual(len(lines), 1, p.stderr)
                    self.assertIn("%s %s" % (opt, pattern), lines[0])
                    self.assertIn("no such directory", lines[0])
            self.assertEqual(E.listing(d), {"x.wav", "y.wav"})

    def test_unwritable_output_of_one_file(self):
        # a pattern whose directory is missing for one input: that file fails, the rest complete
        with E.TempDir() as d:
            for sub in ("a", "b"):
                os.mkdir(os.path.join(d, sub))
                shutil.copy(E.asset("two_tone_48k_s16.wav"), os.path.join(d, sub, "x.wav"))
            os.mkdir(os.path.join(d, "out"))
            os.mkdir(os.path.join(d, "out", "a"))
            p = E.run(["a/x.wav", "b/x.wav", "--dump", "out/{dir}/{stem}.npy"], cwd=d)
            self.assertEqual(p.returncode, 1, p.stderr)
            lines = E.stderr_lines(p)
            self.assertEqual(len(lines), 2, p.stderr)
            self.assertIn("out/b/x.npy", lines[0])
            self.assertEqual(lines[1], "spectro: 1 of 2 files failed")
            self.assertEqual(E.listing(os.path.join(d, "out")), {"a", "a/x.npy", "a/x.npy.json"})

    def test_shard_covers_every_file_once(self):
        with E.TempDir() as d:
            inputs = make_wavs(d, 7)
            lst = os.path.join(d, "list.txt")
            with open(lst, "w") as f:
                f.write("\n".join(inputs) + "\n")
            seen = {}
            for k in range(3):
                out = os.path.join(d, "o%d" % k)
                os.mkdir(out)
                self.run_ok(["--files-from", lst, "--shard", "%d/3" % k, "--dump", out + "/", "-q"])
                names = {n[:-len(".npy")] for n in os.listdir(out) if n.endswith(".npy")}
                self.assertEqual(names, {stem(inputs[i]) for i in range(len(inputs)) if i % 3 == k})
                for n in names:
                    self.assertNotIn(n, seen, "%s in shards %d and %d" % (n, seen.get(n, -1), k))
                    seen[n] = k
            self.assertEqual(set(seen), {stem(i) for i in inputs})
            # more shards than files: an empty share succeeds
            self.run_ok(["--files-from", lst, "--shard", "9/10", "--dump", os.path.join(d, "o0") + "/", "-q"])

    def test_files_from_stdin_and_a_file(self):
        with E.TempDir() as d:
            inputs = make_wavs(d, 4)
            text = "\n" + inputs[1] + "\n\n  \n" + inputs[2] + "\r\n" + inputs[3]  # blank lines, CRLF, no final \n
            p = subprocess.run([E.BIN, inputs[0], "--files-from", "-", "--peaks", "-q"], input=text,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            order = []
            for line in p.stdout.splitlines():
                if not order or order[-1] != line.split("\t")[0]:
                    order.append(line.split("\t")[0])
            self.assertEqual(order, inputs)
            lst = os.path.join(d, "l")
            with open(lst, "w") as f:
                f.write(text)
            q = E.run(["--files-from", lst, "--peaks", "-q"])
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertEqual(q.stdout.splitlines(), [l for l in p.stdout.splitlines()
                                                     if not l.startswith(inputs[0] + "\t")])

    def files_of(self, stdout):
        order = []
        for line in stdout.splitlines():
            if not order or order[-1] != line.split("\t")[0]:
                order.append(line.split("\t")[0])
        return order

    def test_files_from_comments_and_nul(self):
        with E.TempDir() as d:
            inputs = make_wavs(d, 3)
            # a comment line, an indented one, a name with a blank: none is a file to open
            spaced = os.path.join(d, "in", "a b.wav")
            shutil.copy(inputs[2], spaced)
            text = "# made by hand\n" + inputs[0] + "\n  # " + inputs[1] + "\n" + spaced + "\n"
            p = subprocess.run([E.BIN, "--files-from", "-", "--peaks", "-q"], input=text,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(self.files_of(p.stdout), [inputs[0], spaced])
            # NUL-separated (find -print0): every name kept as it is, a leading # too
            hashed = os.path.join(d, "in", "#1.wav")
            shutil.copy(inputs[1], hashed)
            lst = os.path.join(d, "l0")
            with open(lst, "wb") as f:
                f.write(b"\0".join(os.fsencode(x) for x in [inputs[0], hashed, spaced]) + b"\0")
            q = E.run(["--files-from", lst, "--peaks", "-q"])
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertEqual(self.files_of(q.stdout), [inputs[0], hashed, spaced])
            # from find -print0 itself, on standard input
            found = subprocess.run(["find", os.path.join(d, "in"), "-name", "f*.wav", "-print0"],
                                   capture_output=True, check=True).stdout
            r = subprocess.run([E.BIN, "--files-from", "-", "--peaks", "-q"], input=found,
                               capture_output=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(self.files_of(r.stdout.decode())), sorted(inputs))

    def test_peaks_file_column(self):
        a, b = E.asset("two_tone_48k_s16.wav"), E.asset("sine_1125hz_48k_f32.wav")
        one_a = self.run_ok([a, "--peaks"]).stdout.splitlines()
        one_b = self.run_ok([b, "--peaks"]).stdout.splitlines()
        self.assertEqual(len(one_a[0].split("\t")), 3, "one FILE: no file column")
        both = self.run_ok([a, b, "--peaks"]).stdout.splitlines()
        self.assertEqual(both, [a + "\t" + l for l in one_a] + [b + "\t" + l for l in one_b])
        # with --channel all: file, channel, time, freq, level
        st = E.asset("stereo_1500l_3000r_48k_s16.wav")
        rows = [l.split("\t") for l in self.run_ok([st, a, "--peaks", "-c", "all"]).stdout.splitlines()]
        self.assertTrue(all(len(r) == 5 for r in rows))
        self.assertEqual({(r[0], r[1]) for r in rows}, {(st, "0"), (st, "1"), (a, "0")})

    def usage_error(self, args, names, cwd=None):
        with E.TempDir() as d:
            p = E.run(args, cwd=cwd or d)
            what = "spectro " + " ".join(map(str, args))
            self.assertEqual(p.returncode, 2, "%s: %r" % (what, p.stderr))
            lines = p.stderr.splitlines()
            self.assertEqual(len(lines), 1, "%s: %r" % (what, p.stderr))
            for n in names:
                self.assertIn(n, lines[0], what)
            self.assertEqual(E.listing(d), set(), what + ": left files behind")
            self.assertEqual(p.stdout, "")

    def test_usage_errors(self):
        a, b = E.asset("two_tone_48k_s16.wav"), E.asset("sine_1125hz_48k_f32.wav")
        # several inputs, an output without a pattern or directory
        self.usage_error([a, b, "--dump", "out.npy"], ["--dump out.npy", "pattern"])
        self.usage_error([a, b, "--dump", "{stem}.npy", "--png", "pic.png"], ["--png pic.png"])
        self.usage_error([a, b, "--dump", "-"], ["--dump -"])
        self.usage_error([a, "--shard", "0/1", "--files-from", "/nonexistent-list"], ["--files-from"])
        # two inputs, one output path; an output that is the other output's sidecar
        with E.TempDir() as d:
            for sub in ("x", "y"):
                os.mkdir(os.path.join(d, sub))
                shutil.copy(a, os.path.join(d, sub, "a.wav"))
            os.mkdir(os.path.join(d, "o"))  # a missing o/ is refused first (its own test)
            self.usage_error(["x/a.wav", "y/a.wav", "--dump", "{stem}.npy"], ["--dump", "x/a.wav", "y/a.wav", "a.npy"],
                             cwd=d)
            self.usage_error(["x/a.wav", "y/a.wav", "--dump", "o/{name}.npy"], ["both map to"], cwd=d)
            self.usage_error(["x/a.wav", "--peaks", "--shard", "0/2", "--dump", "x/{stem}.wav.npy",
                              "--png", "x/{stem}.wav.npy.json"], ["--png", "--dump"], cwd=d)
            self.usage_error(["x/a.wav", "y/a.wav", "--dump", "{dir}/{stem}.npy", "--png", "{dir}/a.wav"],
                             ["--png", "input"], cwd=d)
        # bad --shard values name the option
        for bad in ("3/3", "x", "1/0", "-1/2", "1/", "/2", "1/2/3", "1.0/2", ""):
            self.usage_error([a, b, "--peaks", "--shard", bad], ["--shard"])
        self.usage_error(["--shard", "0/2", "--peaks"], ["--shard"])
        # unknown placeholder; a directory output that does not exist; no output at all
        self.usage_error([a, b, "--dump", "{base}.npy"], ["--dump", "{base}"])
        self.usage_error([a, b, "--dump", "/nonexistent-spectro-dir/"], ["--dump", "no such directory"])
        self.usage_error([a, b], ["output"])
        self.usage_error([a, b, "--peaks", "--realtime"], ["--realtime"])

    def test_single_file_keeps_todays_output(self):
        # a pattern or DIR/ with one FILE expands; without them nothing changes
        with E.TempDir() as d:
            a = E.asset("two_tone_48k_s16.wav")
            self.run_ok([a, "--dump", "plain.npy"], cwd=d)
            self.run_ok([a, "--dump", "{stem}.npy"], cwd=d)
            os.mkdir(os.path.join(d, "o"))
            self.run_ok([a, "--dump", "o/"], cwd=d)
            self.assertEqual(read(os.path.join(d, "plain.npy")), read(os.path.join(d, "two_tone_48k_s16.npy")))
            self.assertEqual(read(os.path.join(d, "plain.npy")), read(os.path.join(d, "o", "two_tone_48k_s16.npy")))


if __name__ == "__main__":
    E.main()
