#!/usr/bin/python3
"""Bad usage and bad input: exit 2, exactly one stderr line 'spectro: ...' naming the
file or option, and no output file (nor temporary file) left behind."""
import os
import struct
import unittest

import spectro_e2e as E


def wav_header_only(ch, rate, frames=2000):
    block = max(ch, 1) * 2
    fmt = struct.pack("<HHIIHH", 1, ch, rate, (rate * block) & 0xFFFFFFFF, block, 16)
    data = b"\x00" * (frames * block)
    c = b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", 4 + len(c)) + b"WAVE" + c


class BadInput(unittest.TestCase):
    def expect_fail(self, args, names, code=2, out="out.npy"):
        """Runs in an empty temp dir with -o OUT (unless out is None); checks the exit
        code, the single 'spectro: ' line naming one of `names`, and that the directory
        and assets/ are unchanged."""
        before_assets = E.listing(E.ASSETS)
        with E.TempDir() as d:
            full = list(args) + (["-o", out] if out else [])
            p = E.run(full, cwd=d)
            what = "spectro " + " ".join(map(str, full))
            self.assertEqual(p.returncode, code, "%s: exit %d (want %d), stderr %r"
                             % (what, p.returncode, code, p.stderr))
            lines = p.stderr.splitlines()
            self.assertEqual(len(lines), 1, "%s: want one stderr line, got %r" % (what, p.stderr))
            self.assertTrue(lines[0].startswith("spectro: "), "%s: %r" % (what, lines[0]))
            self.assertFalse(lines[0].startswith("spectro: warning:"), what)
            self.assertTrue(any(nm in lines[0] for nm in names),
                            "%s: error line %r names none of %r" % (what, lines[0], names))
            self.assertEqual(E.listing(d), set(), what + ": left files behind")
            self.assertEqual(p.stdout, "", what + ": wrote to stdout")
        self.assertEqual(E.listing(E.ASSETS), before_assets, "assets/ changed")
        return lines[0]

    def test_bad_files(self):
        with E.TempDir() as src:
            crafted = {
                "zero_channels.wav": wav_header_only(0, 48000),
                "zero_rate.wav": wav_header_only(1, 0),
                "absurd_rate.wav": wav_header_only(1, 0x7FFFFFFF),
            }
            for name, blob in crafted.items():
                with open(os.path.join(src, name), "wb") as f:
                    f.write(blob)
            os.mkdir(os.path.join(src, "a_directory.wav"))
            # a loop of symbolic links (ln -s b a; ln -s a b): a bad name, as a missing file is
            os.symlink("loop_b.wav", os.path.join(src, "loop_a.wav"))
            os.symlink("loop_a.wav", os.path.join(src, "loop_b.wav"))
            cases = [os.path.join(src, "does_not_exist.wav"), E.asset("empty.wav"),
                     E.asset("not_audio.wav"), os.path.join(src, "a_directory.wav"),
                     os.path.join(src, "loop_a.wav")]
            cases += [os.path.join(src, n) for n in crafted]
            for path in cases:
                with self.subTest(file=os.path.basename(path)):
                    self.expect_fail([path], [os.path.basename(path)])

    def test_wav_without_samples(self):
        # A valid header with no sample frames: an empty audio file.
        with E.TempDir() as src:
            path = os.path.join(src, "no_samples.wav")
            with open(path, "wb") as f:
                f.write(wav_header_only(1, 48000, frames=0))
            self.expect_fail([path], ["no_samples.wav"])

    def test_bad_option_values(self):
        wav = E.asset("stereo_1500l_3000r_48k_s16.wav")
        cases = [
            (["-n", "1000"], ["-n", "fft-size"]),
            (["-n", "8"], ["-n", "fft-size"]),
            (["--fft-size", "8388608"], ["fft-size"]),
            (["-n", "abc"], ["-n", "fft-size"]),
            (["-n", "4096x"], ["-n", "fft-size"]),
            (["-n", "0"], ["-n", "fft-size"]),
            (["-n", "-4096"], ["-n", "fft-size"]),
            (["--hop", "0"], ["hop"]),
            (["--hop", "-5"], ["hop"]),
            (["--hop", "x"], ["hop"]),
            (["-w", "nosuch"], ["nosuch", "window"]),
            (["--window", "kaiser:abc"], ["kaiser", "window"]),
            (["-c", "2"], ["channel", "-c"]),
            (["--channel", "-1"], ["channel"]),
            (["--channel", "left"], ["channel"]),
            (["-w", "hann:3"], ["hann", "window"]),
            (["-w", "kaiser:-1"], ["kaiser", "window"]),
            (["-w", "gauss:0"], ["gauss", "window"]),
            (["-w", "gauss:nan"], ["gauss", "window"]),
            (["--hop", "99999999999999999999"], ["hop"]),
            (["-b", "nosuch"], ["nosuch", "backend"]),
            (["--duration", "1e-9"], ["duration"]),  # less than a sample
            (["--peaks", "--fmin", "1e300"], ["fmin"]),  # beyond the last bin

            (["--no-such-option"], ["no-such-option"]),
        ]
        for opts, names in cases:
            with self.subTest(opts=opts):
                self.expect_fail([wav] + opts, names)

    def test_bad_synth_specs(self):
        """A sine at or above Nyquist aliases and rate=1 is no signal: refused, the key and
        its range named."""
        for spec, names in (("synth:sine=30000", ["sine=30000", "24000"]),
                            ("synth:rate=8000,sine=4000", ["sine=4000", "4000"]),
                            ("synth:rate=1", ["rate=1", "1000"]),
                            ("synth:channels=4,step=8000,sine=1000", ["step=8000", "channel 3"])):
            with self.subTest(spec=spec):
                line = self.expect_fail([spec], names[:1])
                self.assertIn(names[1], line)

    def test_missing_option_argument(self):
        wav = E.asset("two_tone_48k_s16.wav")
        for opt, names in (("-n", ["-n", "fft-size"]), ("--hop", ["hop"]),
                           ("--window", ["window"]), ("--channel", ["channel"])):
            with self.subTest(opt=opt):
                self.expect_fail([wav, "-o", "out.npy", opt], names, out=None)

    def test_two_input_files(self):
        # several inputs are a batch (e2e_batch.py): an output without a pattern or a
        # directory is a usage error naming the option
        wav = E.asset("two_tone_48k_s16.wav")
        self.expect_fail([wav, E.asset("sine_1125hz_48k_f32.wav")], ["--dump out.npy"])

    def test_failed_run_keeps_existing_output(self):
        # Written to a temporary name and renamed only when complete: an old OUT survives.
        with E.TempDir() as d:
            for name in ("keep.npy", "keep.npy.json"):
                with open(os.path.join(d, name), "w") as f:
                    f.write("old\n")
            p = E.run([E.asset("not_audio.wav"), "-o", "keep.npy"], cwd=d)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(E.listing(d), {"keep.npy", "keep.npy.json"})
            for name in ("keep.npy", "keep.npy.json"):
                with open(os.path.join(d, name)) as f:
                    self.assertEqual(f.read(), "old\n")

    def test_bad_dump_targets(self):
        wav = E.asset("two_tone_48k_s16.wav")
        self.expect_fail([wav], ["out.txt"], out="out.txt")
        self.expect_fail([wav], ["out"], out="out")
        self.expect_fail([wav, "--peaks", "--dump", "-"], ["--dump", "--peaks", "peaks"], out=None)


if __name__ == "__main__":
    E.main()
