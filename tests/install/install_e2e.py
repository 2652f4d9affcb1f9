#!/usr/bin/python3
"""The installed spectro: `cmake --install` trees, their desktop files, the .deb.

    install_e2e.py MODE BUILD_DIR ASSETS_DIR FONT_REL APP_ID

MODE is one of
  tree       cmake --install BUILD_DIR into a prefix, and with DESTDIR under another prefix:
             every file where the install rules say, the font at FONT_REL from bin/, and the
             installed binary run from / makes the same PNG and dump as the build's; the
             install after a build of the target spectro alone (its docs removed first)
  docs       the installed man page renders (man -l, no groff warnings), names every option
             --help prints and no other, takes FILE... and lists every exit status; the bash completion registers and completes options,
             list values and audio files; the zsh completion parses (zsh -n, when zsh is
             there); --version names the features this build has (exit 77 without man)
  desktop    desktop-file-validate on the installed desktop entry (exit 77 without it); its
             MimeType has FFmpeg's types (MP4/M4A, AAC, video) exactly when FFmpeg is built
  appstream  appstreamcli validate --no-net on the installed metainfo and tree (77 without)
  deb        the build's packages (cpack -G DEB, as scripts/package.sh) into a scratch
             directory: spectro's Depends against the libraries
             the binary needs, the copyright file and the gzipped man page (each package
             its copyright), the package unpacked with dpkg-deb -x and run from there;
             spectro-dev holds the header, spectro.pc and the libspectro.so link
             (77 without dpkg-deb or dpkg-shlibdeps)
  api        the C library installed under a prefix, and under DESTDIR: its SONAME link,
             examples/spectrogram.c built with `cc ... $(pkg-config --cflags --libs spectro)`
             against the tree, and run on assets (and on a file only FFmpeg reads, through
             the tree's FFmpeg module; and on standard input) prints what the build's
             `spectro --peaks` prints, byte for byte (77 without pkg-config or cc)
BUILD_DIR is the configured and built tree the tests come from (its cmake installs it).
Standard library only.
"""
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODES = {"tree": [], "docs": ["man", "bash"], "desktop": ["desktop-file-validate"], "appstream": ["appstreamcli"],
         "deb": ["dpkg-deb", "dpkg-shlibdeps", "cpack"], "api": ["pkg-config", "cc"]}
ICON_SIZES = (16, 32, 48, 64, 128, 256)
ASSET = "two_tone_48k_s16.wav"
BUILD = ASSETS = FONT_REL = APP_ID = None


def sh(args, cwd="/", env=None, timeout=120):
    """Run a command (from / unless told) and return the CompletedProcess, text output."""
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([str(a) for a in args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def cache_value(name):
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(re.escape(name) + r":[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
    raise KeyError(name)


def has_renderer():
    """Whether the build draws pictures: SDL2, SDL2_ttf and libpng found (as CMake decides)."""
    def found(name):
        try:
            return cache_value(name) == "1"
        except KeyError:
            return False
    return all(found(n) for n in ("SDL2_FOUND", "SDL2TTF_FOUND", "PNG_FOUND"))


def has_hooks():
    """Whether the build compiles the test hooks in (docs/developer.md "Test hooks")."""
    try:
        return cache_value("SPECTRO_TEST_HOOKS") == "ON"
    except KeyError:
        return False


def build_binary():
    return os.path.join(BUILD, "spectro")


def png_size(path):
    """(width, height) from a PNG's IHDR, or None when the file is not a PNG."""
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def listing(d):
    out = set()
    for root, _, files in os.walk(d):
        for n in files:
            out.add(os.path.relpath(os.path.join(root, n), d))
    return out


def man_page():
    """The installed man page's path under the prefix: gzipped where the build found gzip."""
    try:
        gz = not cache_value("SPECTRO_GZIP").endswith("NOTFOUND")
    except KeyError:
        gz = False
    return "share/man/man1/spectro.1" + (".gz" if gz else "")


def read_man(path):
    """The page's roff source, gunzipped when it is a .gz."""
    with open(path, "rb") as f:
        data = f.read()
    return (gzip.decompress(data) if path.endswith(".gz") else data).decode("utf-8")


def expected_files():
    """What the install rules put under the prefix (relative paths)."""
    share = "share"
    files = {"bin/spectro", man_page(), share + "/doc/spectro/copyright",
             share + "/spectro/fonts/DejaVuSans.ttf",
             share + "/spectro/fonts/LICENSE",
             share + "/applications/%s.desktop" % APP_ID,
             share + "/metainfo/%s.metainfo.xml" % APP_ID,
             share + "/icons/hicolor/scalable/apps/%s.svg" % APP_ID,
             share + "/bash-completion/completions/spectro",
             share + "/zsh/vendor-completions/_spectro"}
    files |= {share + "/icons/hicolor/%dx%d/apps/%s.png" % (s, s, APP_ID) for s in ICON_SIZES}
    if cache_value("SPECTRO_BUILT_FFMPEG") in ("1", "ON"):  # FFmpeg's decoding, loaded on use
        files.add(cache_value("CMAKE_INSTALL_LIBDIR") + "/spectro/libspectro-ffmpeg.so")
    if cache_value("SPECTRO_BUILT_CUDA") == "ON":  # the component cuda: the GPU module
        files.add(cache_value("CMAKE_INSTALL_LIBDIR") + "/spectro/libspectro-cuda.so")
        files.add(share + "/doc/spectro-cuda/copyright")
    return files | library_files(True) | library_files(False)


def library_files(runtime):
    """The C library's files: the runtime (the versioned file and its SONAME link), or the
    development files (the header, spectro.pc, the libspectro.so link)."""
    lib = cache_value("CMAKE_INSTALL_LIBDIR")
    if runtime:
        return {lib + "/libspectro.so.%s" % cache_value("CMAKE_PROJECT_VERSION"),
                lib + "/libspectro.so.%s" % cache_value("SPECTRO_SOVERSION")}
    return {lib + "/libspectro.so", lib + "/pkgconfig/spectro.pc",
            cache_value("CMAKE_INSTALL_INCLUDEDIR") + "/spectro.h",
            cache_value("CMAKE_INSTALL_INCLUDEDIR") + "/spectro_job.h",
            "share/doc/spectro-dev/copyright"}


class Scratch:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="spectro-install-")
        return self.path

    def __exit__(self, *a):
        shutil.rmtree(self.path, ignore_errors=True)


class Base(unittest.TestCase):
    def install(self, prefix, destdir=None, component=None):
        """cmake --install BUILD_DIR [--prefix PREFIX] [--component C] [DESTDIR]; returns
        the tree's root."""
        args = [cache_value("CMAKE_COMMAND"), "--install", BUILD]
        if prefix:
            args += ["--prefix", prefix]
        if component:
            args += ["--component", component]
        p = sh(args, env={"DESTDIR": destdir} if destdir else None)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return (destdir or "") + (prefix or cache_value("CMAKE_INSTALL_PREFIX"))

    def check_runs(self, tree, d, same_build=True):
        """The installed binary, run from /, draws and dumps what the build's binary does
        (byte for byte when same_build; else a PNG and a .npy of their own)."""
        exe = os.path.join(tree, "bin", "spectro")
        for args, name, magic in ((["--png"], "x.png", b"\x89PNG"), (["-o"], "x.npy", b"\x93NUMPY")):
            if name.endswith(".png") and not has_renderer():
                continue
            args = ["-q", "-b", "cpu"] + args
            ref = os.path.join(d, "ref-" + name)
            p = sh([build_binary()] + args + [ref, os.path.join(ASSETS, ASSET)])
            self.assertEqual(p.returncode, 0, p.stderr)
            out = os.path.join(d, name)
            p = sh([exe] + args + [out, os.path.join(ASSETS, ASSET)])
            self.assertEqual(p.returncode, 0, "%s %s: %s" % (exe, args, p.stderr))
            with open(out, "rb") as f:
                got = f.read()
            self.assertTrue(got.startswith(magic), out)
            if same_build:
                with open(ref, "rb") as f:
                    self.assertEqual(got, f.read(), "%s %s differs from the build's" % (exe, args))


class Tree(Base):
    def check_links_library(self, tree):
        # the installed program is a client of the installed libspectro.so.MAJOR, found from
        # its own place (its RUNPATH), not the build tree's
        exe = os.path.join(tree, "bin", "spectro")
        p = sh(["ldd", exe])
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [l for l in p.stdout.splitlines() if "libspectro.so" in l]
        self.assertEqual(len(lines), 1, p.stdout)
        found = lines[0].split("=>")[1].split("(")[0].strip()
        self.assertTrue(os.path.realpath(found).startswith(os.path.realpath(tree) + "/"), lines[0])

    def test_prefix(self):
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            self.assertEqual(listing(tree), expected_files())
            font = os.path.normpath(os.path.join(tree, "bin", FONT_REL))
            self.assertEqual(font, os.path.join(tree, "share/spectro/fonts/DejaVuSans.ttf"))
            self.check_links_library(tree)
            self.check_runs(tree, d)
            for s in ICON_SIZES:
                icon = os.path.join(tree, "share/icons/hicolor/%dx%d/apps/%s.png" % (s, s, APP_ID))
                self.assertEqual(png_size(icon), (s, s), icon)

    def test_destdir_and_other_prefix(self):
        with Scratch() as d:
            for prefix in (None, "/opt/spectro"):   # the configured prefix, then another
                with self.subTest(prefix=prefix):
                    dest = os.path.join(d, "dest-%s" % ("opt" if prefix else "default"))
                    tree = self.install(prefix, destdir=dest)
                    self.assertTrue(tree.startswith(dest + "/"), tree)
                    self.assertEqual(listing(tree), expected_files())
                    self.assertEqual(listing(dest), {os.path.relpath(os.path.join(tree, f), dest)
                                                     for f in expected_files()})
                    self.check_runs(tree, d)

    def test_install_after_building_the_program(self):
        # the README's build (scripts/run.sh builds the target spectro alone), then the
        # install: it finds everything it installs, the man page and completions included
        doc = os.path.join(BUILD, "doc")
        away = doc + ".moved-by-test"
        shutil.rmtree(away, ignore_errors=True)
        os.rename(doc, away)
        try:
            p = sh([cache_value("CMAKE_COMMAND"), "--build", BUILD, "--target", "spectro"], timeout=600)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with Scratch() as d:
                tree = self.install(os.path.join(d, "p"))
                self.assertEqual(listing(tree), expected_files())
                self.assertIn(".TH SPECTRO 1", read_man(os.path.join(tree, man_page())))
        finally:
            if os.path.isdir(doc):
                shutil.rmtree(away, ignore_errors=True)
            else:
                os.rename(away, doc)

    def test_bundled_font_draws(self):
        # the fallback font as the renderer's font: a picture of the default size
        if not has_renderer():
            self.skipTest("this build draws no pictures")
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            out = os.path.join(d, "f.png")
            font = os.path.normpath(os.path.join(tree, "bin", FONT_REL))
            p = sh([os.path.join(tree, "bin", "spectro"), "-q", "--png", out,
                    os.path.join(ASSETS, ASSET)], env={"SPECTRO_FONT": font})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(png_size(out), (1920, 1080))
            # found on its own beside the installed binary, the system's fonts left out: the
            # build's binary, with no font installed beside it, finds none that way
            os.remove(out)
            if not has_hooks():
                return  # SPECTRO_TEST_FONTS is a test hook: test_hooks_as_the_build_says
            wav = os.path.join(ASSETS, ASSET)
            p = sh([os.path.join(tree, "bin", "spectro"), "-q", "--png", out, wav],
                   env={"SPECTRO_TEST_FONTS": "bundled", "SPECTRO_FONT": ""})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(png_size(out), (1920, 1080))
            p = sh([build_binary(), "-q", "--png", os.path.join(d, "g.png"), wav],
                   env={"SPECTRO_TEST_FONTS": "bundled", "SPECTRO_FONT": ""})
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("DejaVuSans.ttf not found", p.stderr)


    def test_hooks_as_the_build_says(self):
        # the installed library (which reads the environment for the program) holds the test
        # hooks' names exactly when the build has them (-DSPECTRO_TEST_HOOKS=ON,
        # docs/developer.md "Test hooks"), and the program the window's (SPECTRO_VIEW_*, read
        # by its own door) exactly then, none of the library's; with them a bad value is
        # refused, naming the variable; without, the hooks change nothing, good or bad
        wav = os.path.join(ASSETS, ASSET)
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            exe = os.path.join(tree, "bin", "spectro")
            libs = [os.path.join(r, f) for r, _, fs in os.walk(tree) for f in fs
                    if f.startswith("libspectro.so.") and not os.path.islink(os.path.join(r, f))]
            self.assertEqual(len(libs), 1, libs)
            hook = rb"SPECTRO_(?:TEST|VIEW)_[A-Z_]+"
            with open(exe, "rb") as f:
                window = sorted(set(re.findall(hook, f.read())))
            with open(libs[0], "rb") as f:
                names = sorted(set(re.findall(hook, f.read())))
            if has_hooks():
                self.assertGreaterEqual(len(names), 3, names)
                self.assertGreaterEqual(len(window), 3, window)
            else:
                self.assertEqual(names, [])
                self.assertEqual(window, [])
            self.assertEqual([n for n in window if not n.startswith(b"SPECTRO_VIEW_")], [], exe)
            self.assertEqual([n for n in names if n.startswith(b"SPECTRO_VIEW_")], [], libs[0])
            ref = os.path.join(d, "ref.npy")
            p = sh([exe, "-q", "-b", "cpu", "-o", ref, wav])
            self.assertEqual(p.returncode, 0, p.stderr)
            for var, good, bad in (("SPECTRO_TEST_MAXIMA", "off", "bogus"), ("SPECTRO_AUTO_DEVICE", "1", "yes"),
                                   ("SPECTRO_READ_CHUNK", "100", "0"), ("SPECTRO_TEST_STALL", "0:0.5", "x")):
                with self.subTest(var=var):
                    out = os.path.join(d, "bad.npy")
                    p = sh([exe, "-q", "-b", "cpu", "-o", out, wav], env={var: bad})
                    if has_hooks() and var != "SPECTRO_TEST_STALL":  # a malformed stall is ignored
                        self.assertEqual(p.returncode, 2, p.stderr)
                        self.assertTrue(p.stderr.startswith("spectro: %s=%s" % (var, bad)), p.stderr)
                        self.assertFalse(os.path.exists(out))
                        continue
                    self.assertEqual(p.returncode, 0, p.stderr)
                    out = os.path.join(d, "good.npy")
                    p = sh([exe, "-q", "-b", "cpu", "-o", out, wav], env={var: good})
                    self.assertEqual(p.returncode, 0, p.stderr)
                    with open(out, "rb") as f, open(ref, "rb") as g:
                        self.assertEqual(f.read(), g.read())


def desktop_entry(path):
    keys = {}
    with open(path) as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("=", 1)
                keys[k] = v
    return keys


class Desktop(Base):
    def test_valid_and_opens_audio(self):
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            path = os.path.join(tree, "share/applications/%s.desktop" % APP_ID)
            p = sh(["desktop-file-validate", path])
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertEqual(p.stdout + p.stderr, "", "desktop-file-validate warns")
            e = desktop_entry(path)
            self.assertEqual(e["Exec"], "spectro %f")
            self.assertEqual(e["Terminal"], "false")
            self.assertTrue(os.path.exists(os.path.join(tree, "bin", e["Exec"].split()[0])))
            self.assertEqual(e["Icon"], APP_ID)
            mimes = set(e["MimeType"].rstrip(";").split(";"))
            for m in ("audio/x-wav", "audio/wav", "audio/flac", "audio/x-flac", "audio/ogg",
                      "audio/x-vorbis+ogg", "audio/x-aiff", "audio/mpeg"):
                self.assertIn(m, mimes)
            # what FFmpeg's decoding adds, where this build has it (and only there)
            ffmpeg = {"audio/mp4", "audio/x-m4a", "audio/aac", "audio/ac3", "audio/x-ms-wma",
                      "audio/x-matroska", "audio/webm", "video/mp4", "video/quicktime",
                      "video/x-matroska", "video/webm", "video/x-msvideo", "video/mpeg"}
            if cache_value("SPECTRO_BUILT_FFMPEG") in ("1", "ON"):
                self.assertEqual(ffmpeg - mimes, set())
            else:
                self.assertEqual(ffmpeg & mimes, set())
                self.assertFalse([m for m in mimes if m.startswith("video/")], mimes)
            self.assertIn("Audio", e["Categories"].split(";"))


class AppStream(Base):
    def test_valid(self):
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            path = os.path.join(tree, "share/metainfo/%s.metainfo.xml" % APP_ID)
            p = sh(["appstreamcli", "validate", "--no-net", "--strict", path])
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            # the tree: the metainfo's launchable names the installed desktop entry
            p = sh(["appstreamcli", "validate-tree", "--no-net", "--strict", tree])
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(path) as f:
                text = f.read()
            self.assertIn("<id>%s</id>" % APP_ID, text)
            self.assertIn('<launchable type="desktop-id">%s.desktop</launchable>' % APP_ID, text)


def owner(path):
    """The Debian package that holds a file, trying its /usr-merged and resolved names."""
    real = os.path.realpath(path)
    for cand in (path, real, "/usr" + path, "/usr" + real, path[4:], real[4:]):
        if cand.startswith("/"):
            q = sh(["dpkg", "-S", cand])
            if q.returncode == 0:
                return q.stdout.split(":")[0]
    return None


def needed_packages(exe):
    """The packages holding the shared libraries exe names (objdump's NEEDED, resolved by
    ldd), or None when that cannot be worked out here."""
    if not (shutil.which("objdump") and shutil.which("ldd")):
        return None
    libs = re.findall(r"^\s*NEEDED\s+(\S+)", sh(["objdump", "-p", exe]).stdout, re.M)
    where = dict(re.findall(r"^\s*(\S+) => (/\S+)", sh(["ldd", exe]).stdout, re.M))
    pkgs = set()
    for lib in libs:
        pkg = owner(where[lib]) if lib in where else None
        if not pkg:
            return None
        pkgs.add(pkg)
    return pkgs



def help_options(text):
    """The long options a --help or man page text names, from its option lines."""
    return set(re.findall(r"^\s*(?:-[a-zA-Z], )?(--[a-z][a-z-]*)", text, re.M))


class Docs(Base):
    def test_man_page(self):
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            page = os.path.join(tree, man_page())
            p = sh(["man", "--warnings", "-l", page], env={"MANWIDTH": "100", "MAN_KEEP_FORMATTING": "0"})
            if "minimized" in p.stdout and "unminimize" in p.stdout:
                self.skipTest("man is the stub of a minimized system here")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr.strip(), "", "groff warnings: " + p.stderr)
            text = re.sub(r".\x08", "", p.stdout)  # overstrike bold/underline
            for head in ("NAME", "SYNOPSIS", "OPTIONS", "THE WINDOW", "OUTPUT FORMATS", "EXIT STATUS",
                         "EXAMPLES"):
                self.assertRegex(text, r"(?m)^%s$" % head)
            # several files are taken; every exit status of docs/design.md "Errors and exit codes" is listed
            synopsis = re.search(r"(?ms)^SYNOPSIS$(.*?)^DESCRIPTION$", text).group(1)
            self.assertIn("[FILE...]", synopsis)
            status = re.search(r"(?ms)^EXIT STATUS$(.*?)^[A-Z][A-Z ]+$", text).group(1)
            self.assertEqual(re.findall(r"(?m)^ {7}(\d+) ", status), ["0", "1", "2", "130", "143"], status)
            helptext = sh([build_binary(), "--help"]).stdout
            in_help, in_man = help_options(helptext), help_options(text)
            self.assertGreater(len(in_help), 20)
            self.assertEqual(in_help, in_man, "--help and the man page name different options")
            # every key of the window's help is in the page
            for key in ("space", "Home / End", "q / Esc"):
                self.assertIn(key, text)

    def test_bash_completion(self):
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            comp = os.path.join(tree, "share/bash-completion/completions/spectro")
            script = ('source "$1"; complete -p spectro || exit 9\n'
                      'c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _spectro; '
                      'echo "${COMPREPLY[*]}"; }\n'
                      'c spectro --wind; c spectro --window ""; c spectro --colormap ma; '
                      'c spectro -b ""; cd "$2" && c spectro two_tone_48k_s16')
            p = sh(["bash", "-c", script, "bash", comp, ASSETS])
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            self.assertEqual(lines[0], "complete -F _spectro spectro")
            self.assertEqual(lines[1], "--window")
            self.assertIn("blackman-harris", lines[2].split())
            self.assertIn("kaiser", lines[2].split())
            self.assertEqual(lines[3].split(), ["magma"])
            self.assertEqual(set(lines[4].split()), {"auto", "cpu", "cuda", "cufft"})
            self.assertEqual(lines[5].split(), ["two_tone_48k_s16.wav"])

    def test_zsh_completion(self):
        if not shutil.which("zsh"):
            self.skipTest("zsh not installed")
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            comp = os.path.join(tree, "share/zsh/vendor-completions/_spectro")
            p = sh(["zsh", "-n", comp])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(comp) as f:
                text = f.read()
            self.assertTrue(text.startswith("#compdef spectro"))
            self.assertIn("(hann hamming blackman", text)

    def test_version(self):
        p = sh([build_binary(), "--version"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^spectro \d+\.\d+\.\d+ \(git [0-9a-f]+(-dirty)?|unknown\)")
        feats = dict(re.findall(r"^  (\w+):\s+(yes|no)", p.stdout, re.M))
        self.assertEqual(feats.get("window"), "yes" if has_renderer() else "no")
        self.assertEqual(feats.get("png"), feats.get("window"))
        self.assertEqual(feats.get("cuda"), "yes" if cache_value("SPECTRO_BUILT_CUDA") == "ON" else "no")
        self.assertEqual(feats.get("microphone"), "yes" if cache_value("PORTAUDIO_FOUND") == "1" else "no")
        self.assertEqual(feats.get("files"), "yes")
        self.assertEqual(feats.get("ffmpeg"), "yes" if cache_value("SPECTRO_BUILT_FFMPEG") in ("1", "ON") else "no")


class Deb(Base):
    def test_package(self):
        if needed_packages(build_binary()) is None:
            # e.g. libraries unpacked beside the checkout on a machine without them installed:
            # dpkg-shlibdeps cannot work out Depends there
            self.skipTest("the build's libraries do not all come from Debian packages here")
        with Scratch() as d:
            # the packages of this build, made as scripts/package.sh makes them (cpack -G DEB)
            # without building it again
            p = sh([cache_value("CMAKE_CPACK_COMMAND"), "-G", "DEB", "--config",
                    os.path.join(BUILD, "CPackConfig.cmake"), "-B", os.path.join(d, "pk")], timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            debs = sorted(f for f in os.listdir(os.path.join(d, "pk")) if f.endswith(".deb"))
            cuda_built = cache_value("SPECTRO_BUILT_CUDA") == "ON"
            self.assertEqual(len(debs), 3 if cuda_built else 2, debs)
            deb = os.path.join(d, "pk", [f for f in debs if f.startswith("spectro_")][0])
            self.assertRegex(os.path.basename(deb), r"^spectro_\d+\.\d+\.\d+_[a-z0-9]+\.deb$")

            fields = {}
            for f in ("Package", "Version", "Section", "Maintainer", "Depends", "Description"):
                q = sh(["dpkg-deb", "-f", deb, f])
                self.assertEqual(q.returncode, 0, q.stderr)
                fields[f] = q.stdout.strip()
            self.assertEqual(fields["Package"], "spectro")
            self.assertEqual(fields["Section"], "sound")
            self.assertNotEqual(fields["Maintainer"], "")
            self.assertGreater(len(fields["Description"].splitlines()), 1, "no long description")
            depends = {re.split(r"[\s(]", x.strip())[0] for x in fields["Depends"].split(",")}
            self.assertIn("libsndfile1", depends)
            self.assertFalse([x for x in depends if "cuda" in x or "cufft" in x], depends)

            root = os.path.join(d, "root")
            q = sh(["dpkg-deb", "-x", deb, root])
            self.assertEqual(q.returncode, 0, q.stderr)
            # the package holds what the install rules give its component, no more
            self.assertEqual(listing(os.path.join(root, "usr")),
                             listing(self.install(os.path.join(d, "p"), component="spectro")))
            # Debian's policy: the licence at /usr/share/doc/PACKAGE/copyright, the man page
            # gzipped with no name or time in the gzip header (gzip -9n)
            with open(os.path.join(root, "usr/share/doc/spectro/copyright")) as f:
                self.assertTrue(f.readline().startswith("Format: https://www.debian.org/doc/packaging-manuals/"
                                                        "copyright-format/1.0/"))
            man1 = os.path.join(root, "usr/share/man/man1")
            self.assertEqual(os.listdir(man1), ["spectro.1.gz"])
            with open(os.path.join(man1, "spectro.1.gz"), "rb") as f:
                head = f.read(10)
            self.assertEqual(head[:2], b"\x1f\x8b")
            self.assertEqual((head[3] & 0x08, struct.unpack("<I", head[4:8])[0]), (0, 0), "a name or time in it")
            self.assertIn(".TH SPECTRO 1", read_man(os.path.join(man1, "spectro.1.gz")))
            exe = os.path.join(root, "usr", "bin", "spectro")
            # dpkg-shlibdeps found a package for every library the binary needs
            need = needed_packages(exe)
            if need is not None:
                self.assertEqual(need - depends, set(), fields["Depends"])

            q = sh([exe, "--version"])
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertTrue(q.stdout.startswith("spectro " + fields["Version"]), q.stdout)
            self.check_runs(os.path.join(root, "usr"), d, same_build=True)
            if cuda_built:
                self.check_cuda_package(d, root, exe, [f for f in debs if f.startswith("spectro-cuda_")][0])
            self.check_dev_package(d, [f for f in debs if f.startswith("spectro-dev_")][0], fields["Version"])

    def check_dev_package(self, d, name, version):
        """spectro-dev: the header, spectro.pc and the libspectro.so link, for the runtime of
        the same version (in spectro)."""
        deb = os.path.join(d, "pk", name)
        self.assertIn("spectro (= %s)" % version, sh(["dpkg-deb", "-f", deb, "Depends"]).stdout)
        root = os.path.join(d, "dev")
        q = sh(["dpkg-deb", "-x", deb, root])
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(listing(os.path.join(root, "usr")), library_files(False))

    def check_cuda_package(self, d, root, exe, name):
        """spectro-cuda: the GPU module alone, depending on spectro of the same version. Without
        it the installed spectro says the module is missing; with it, the module loads (and
        then runs, or says why the CUDA device cannot: no GPU in CI)."""
        deb = os.path.join(d, "pk", name)
        dep = sh(["dpkg-deb", "-f", deb, "Depends"]).stdout
        ver = sh(["dpkg-deb", "-f", deb, "Version"]).stdout.strip()
        self.assertIn("spectro (= %s)" % ver, dep)
        self.assertIn("libcufft", dep)
        files = sorted(l.split()[-1] for l in sh(["dpkg-deb", "-c", deb]).stdout.splitlines() if not l.endswith("/"))
        self.assertEqual(len(files), 2, files)
        self.assertTrue(files[0].endswith("/spectro/libspectro-cuda.so"), files)
        self.assertEqual(files[1], "./usr/share/doc/spectro-cuda/copyright")
        args = [exe, "-q", "-b", "cuda", "--dump", os.path.join(d, "c.npy"), os.path.join(ASSETS, ASSET)]
        p = sh(args)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("GPU module libspectro-cuda.so is not installed", p.stderr)
        q = sh(["dpkg-deb", "-x", deb, root])
        self.assertEqual(q.returncode, 0, q.stderr)
        p = sh(args)
        self.assertNotIn("not installed", p.stderr)
        self.assertNotIn("cannot load the GPU module", p.stderr)
        if p.returncode != 0:
            self.assertIn("CUDA", p.stderr)


class Api(Base):
    """examples/spectrogram.c against an installed tree, through pkg-config."""

    def build_example(self, tree, d):
        pc = os.path.join(tree, cache_value("CMAKE_INSTALL_LIBDIR"), "pkgconfig")
        q = sh(["pkg-config", "--cflags", "--libs", "spectro"], env={"PKG_CONFIG_PATH": pc})
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertIn(tree, q.stdout)  # the tree's, not a system copy
        exe = os.path.join(d, "spectrogram")
        # a sanitized build's library needs the sanitizers' runtime in the program, loaded first
        san = ["-fsanitize=address,undefined"] if cache_value("SPECTRO_SANITIZE") == "ON" else []
        p = sh(["cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"] + san +
               [os.path.join(ROOT, "examples", "spectrogram.c"), "-o", exe] + q.stdout.split())
        self.assertEqual(p.returncode, 0, p.stderr)
        return exe

    def check_peaks(self, tree, d):
        exe = self.build_example(tree, d)
        # the installed libspectro first; any search path the caller has (libraries outside the
        # system's, as on a machine that unpacked its dependencies) after it
        lib = os.path.join(tree, cache_value("CMAKE_INSTALL_LIBDIR"))
        env = {"LD_LIBRARY_PATH": os.pathsep.join(p for p in (lib, os.environ.get("LD_LIBRARY_PATH")) if p)}
        inputs = ["two_tone_48k_s16.wav", "demo.flac", "stereo_1500l_3000r_48k_s16.wav",
                  "short_3000_samples_48k_f32.wav", "sine_513hz_8k_u8.wav"]
        if cache_value("SPECTRO_BUILT_FFMPEG") in ("1", "ON") and shutil.which("ffmpeg"):
            m4a = os.path.join(d, "tone.m4a")  # libsndfile cannot: the tree's FFmpeg module
            q = sh(["ffmpeg", "-nostdin", "-loglevel", "error", "-i", os.path.join(ASSETS, ASSET), "-c:a", "aac", m4a])
            self.assertEqual(q.returncode, 0, q.stderr)
            inputs.append(m4a)
        for name in inputs:
            path = os.path.join(ASSETS, name)
            want = sh([build_binary(), "--peaks", path])
            self.assertEqual(want.returncode, 0, want.stderr)
            got = sh([exe, path], env=env)
            with self.subTest(input=name):
                self.assertEqual(got.returncode, 0, got.stderr)
                self.assertGreater(len(got.stdout.splitlines()), 0)
                self.assertEqual(got.stdout, want.stdout)
        with open(os.path.join(ASSETS, ASSET), "rb") as f:  # "-": standard input as a stream
            data = f.read()
        full = dict(os.environ, **env)
        got = subprocess.run([exe, "-"], input=data, capture_output=True, env=full)
        want = subprocess.run([build_binary(), "--peaks", "-"], input=data, capture_output=True)
        self.assertEqual(got.returncode, 0, got.stderr)
        self.assertEqual(got.stdout, want.stdout)

    def test_prefix(self):
        with Scratch() as d:
            tree = self.install(os.path.join(d, "p"))
            lib = os.path.join(tree, cache_value("CMAKE_INSTALL_LIBDIR"))
            so = "libspectro.so.%s" % cache_value("SPECTRO_SOVERSION")
            self.assertEqual(os.readlink(os.path.join(lib, "libspectro.so")), so)
            self.assertTrue(os.path.isfile(os.path.join(lib, so)))
            self.check_peaks(tree, d)

    def test_destdir(self):
        with Scratch() as d:
            self.check_peaks(self.install("/opt/spectro", destdir=os.path.join(d, "dest")), d)


def main():
    global BUILD, ASSETS, FONT_REL, APP_ID
    if len(sys.argv) < 6 or sys.argv[1] not in MODES:
        sys.exit("usage: %s %s BUILD_DIR ASSETS_DIR FONT_REL APP_ID"
                 % (sys.argv[0], "|".join(MODES)))
    mode = sys.argv[1]
    BUILD, ASSETS = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    FONT_REL, APP_ID = sys.argv[4], sys.argv[5]
    missing = [t for t in MODES[mode] if not shutil.which(t)]
    if missing:
        print("skipped: %s not installed" % ", ".join(missing))
        sys.exit(77)
    cls = {"tree": Tree, "docs": Docs, "desktop": Desktop, "appstream": AppStream, "deb": Deb, "api": Api}[mode]
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    r = unittest.TextTestRunner(verbosity=2).run(suite)
    if r.wasSuccessful() and r.testsRun and len(r.skipped) == r.testsRun:
        sys.exit(77)  # nothing could be checked here: ctest shows it as skipped
    sys.exit(0 if r.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
