#!/usr/bin/python3
"""The documentation against the tree and the program: README.md stays a front page (at most
300 lines, the two commands in its first 40), every link between README.md and docs/*.md
reaches a file and a heading, every option `spectro --help` lists and every key of the
window (from the generated man page) is in docs/manual.md, every citation of a docs/ file
and heading in the code names one that exists, nothing names a path outside the
repository, and the library's code names no command-line option in its messages (it marks
its fields, SP_FIELD; the program shows them as options).

    e2e_docs.py SPECTRO SOURCE_DIR MAN_PAGE
"""
import glob
import os
import re
import subprocess
import sys
import unittest

BIN, ROOT, MAN = sys.argv[1], sys.argv[2], sys.argv[3]
del sys.argv[1:4]

FRONT_MAX_LINES = 300
COMMANDS_WITHIN = 40
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# a citation in the code: docs/NAME.md "Heading" (or docs/NAME.md, "Heading"; across a
# comment's line break too)
CITATION = re.compile(r"docs/([a-z_]+\.md),?\s+(?:[*#]\s+)?\"([^\"]+)\"")
CODE_DIRS = ("src", "gpu", "tests", "bench", "scripts", "assets")
# built from parts so that this file does not hold what it looks for
OUTSIDE = ("..", "/shared")
MISSING_DOC = "DESIGN" + ".md"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def headings(text):
    """Markdown headings outside code fences, as (level, text)."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
            continue
        m = re.match(r"(#{1,6}) (.+)$", line)
        if m and not fence:
            out.append((len(m.group(1)), m.group(2).strip()))
    return out


def slugs(text):
    """The anchors GitHub gives the headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated one suffixed -1, -2 ..."""
    seen, out = {}, set()
    for _, h in headings(text):
        s = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def section(text, title, level):
    """The body of the heading `title` at `level`, up to the next heading of that level or
    above."""
    lines, out, inside, fence = text.split("\n"), [], False, False
    for line in lines:
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"(#{1,6}) (.+)$", line)
        if m and inside and len(m.group(1)) <= level:
            break
        if m and len(m.group(1)) == level and m.group(2).strip() == title:
            inside = True
            continue
        if inside:
            out.append(line)
    return "\n".join(out)


def docs():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def code_files():
    for d in CODE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            if "/corpus" in dirpath:
                continue
            for n in names:
                if re.search(r"\.(c|h|cu|cuh|py|sh|txt|cmake|in|md)$", n) or n == "CMakeLists.txt":
                    yield os.path.join(dirpath, n)
    yield os.path.join(ROOT, "CMakeLists.txt")


def unescape_troff(s):
    for t, u in (("\\(<-", "\u2190"), ("\\(->", "\u2192"), ("\\(ua", "\u2191"), ("\\(da", "\u2193"),
                 ("\\(mi", "\u2212"), ("\\-", "-"), ("\\&", ""), ("\\e", "\\")):
        s = s.replace(t, u)
    return s


class FrontPage(unittest.TestCase):
    def test_short_with_the_two_commands_on_top(self):
        lines = read(os.path.join(ROOT, "README.md")).split("\n")
        self.assertLessEqual(len(lines), FRONT_MAX_LINES + 1, "README.md has %d lines" % len(lines))
        top = lines[:COMMANDS_WITHIN]
        for cmd in ("scripts/run.sh", "scripts/test.sh"):
            self.assertTrue(any(l.startswith(cmd) for l in top),
                            "README.md: %s is not in its first %d lines" % (cmd, COMMANDS_WITHIN))

    def test_links_into_docs(self):
        targets = set(LINK.findall(read(os.path.join(ROOT, "README.md"))))
        for name in ("manual", "formats", "measurements", "performance", "gpu", "developer", "design"):
            self.assertIn("docs/%s.md" % name, targets, "README.md does not link docs/%s.md" % name)


class Links(unittest.TestCase):
    def test_every_link_reaches_a_file_and_heading(self):
        bad = []
        for doc in docs():
            text = read(doc)
            for target in LINK.findall(text):
                if re.match(r"[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                where = os.path.relpath(doc, ROOT)
                if not full.startswith(os.path.normpath(ROOT) + os.sep):
                    bad.append("%s: %s leaves the repository" % (where, target))
                elif not os.path.exists(full):
                    bad.append("%s: %s: no such file" % (where, target))
                elif anchor and full.endswith(".md") and anchor not in slugs(read(full)):
                    bad.append("%s: %s: no such heading" % (where, target))
        self.assertEqual(bad, [])


class Manual(unittest.TestCase):
    def setUp(self):
        self.manual = read(os.path.join(ROOT, "docs", "manual.md"))

    def test_every_option_of_help(self):
        p = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        options = sorted(set(re.findall(r"--[a-z][a-z0-9-]+", p.stdout)))
        self.assertGreater(len(options), 20, p.stdout)
        table = section(self.manual, "Options", 2)
        missing = [o for o in options if not re.search(r"`[^`]*" + re.escape(o) + r"\b", table)]
        self.assertEqual(missing, [], "docs/manual.md \"Options\" lacks them")

    def test_every_key_of_the_window(self):
        man = read(MAN)
        window = man[man.index(".SH THE WINDOW"):]
        window = window[:window.index("\n.SH ")]
        keys = re.findall(r"^\.TP\n\.B (.+)$", window, re.M)
        self.assertGreater(len(keys), 10, "no keys in " + MAN)
        table = section(self.manual, "Keys", 3)
        missing = []
        for k in keys:
            for tok in re.split(r" / |, ", unescape_troff(k)):
                want = "`%s`" % tok if len(tok) == 1 and tok.isascii() else tok
                if want not in table:
                    missing.append(tok)
        self.assertEqual(missing, [], "docs/manual.md \"Keys\" lacks them")


class Citations(unittest.TestCase):
    def test_cited_headings_exist(self):
        bad, seen = [], 0
        for f in code_files():
            for doc, title in CITATION.findall(read(f)):
                seen += 1
                title = re.sub(r"\s*\n\s*(?:\*|#)?\s*", " ", title)  # wrapped in a comment
                path = os.path.join(ROOT, "docs", doc)
                if not os.path.exists(path):
                    bad.append("%s: docs/%s: no such file" % (os.path.relpath(f, ROOT), doc))
                elif title not in [h for _, h in headings(read(path))]:
                    bad.append("%s: docs/%s has no heading \"%s\"" % (os.path.relpath(f, ROOT), doc, title))
        self.assertGreater(seen, 5)
        self.assertEqual(bad, [])

    def test_nothing_outside_the_repository(self):
        bad = []
        for f in list(code_files()) + docs():
            if os.path.samefile(f, __file__):
                continue
            text = read(f)
            for needle in ("".join(OUTSIDE), MISSING_DOC):
                if needle in text:
                    bad.append("%s names %s" % (os.path.relpath(f, ROOT), needle))
        self.assertEqual(bad, [])


class LibraryNamesFields(unittest.TestCase):
    """The library (every stage under src/ but the program's app/, and gpu/) speaks
    of its fields: a string literal there holds no "--option" or "-n N" (err.h's SP_FIELD
    marks a field, which the program shows as its option)."""

    LIBRARY = ("api", "base", "fft", "frame", "job", "pipeline", "picture", "sink", "source", "view", "xform")
    LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"')
    OPTION = re.compile(r"(?<![A-Za-z0-9/_.-])(--[a-z][a-z-]*|-n %)")

    def test_no_option_in_library_strings(self):
        found = []
        files = [f for d in self.LIBRARY for f in glob.glob(os.path.join(ROOT, "src", d, "*.[ch]"))]
        files += glob.glob(os.path.join(ROOT, "gpu", "*.c*"))
        # the window's key table is its help, in the program's terms (the man page's too)
        files = [f for f in files if not f.endswith(os.path.join("view", "view_keys.c"))]
        self.assertGreater(len(files), 40)
        for path in files:
            for no, line in enumerate(read(path).splitlines(), 1):
                code = line.split("//")[0]
                if re.match(r"\s*(/\*|\*(?![A-Za-z_(]))", code):  # a comment's line, not "*err = ..."
                    continue
                for lit in self.LITERAL.findall(code):
                    if self.OPTION.search(lit):
                        found.append("%s:%d: %s" % (os.path.relpath(path, ROOT), no, lit))
        self.assertEqual(found, [], "option names in the library's messages (mark fields with SP_FIELD)")


class TestHooks(unittest.TestCase):
    """The test hooks stay behind two doors: every variable of docs/developer.md's "Test
    hooks" table that the program reads, and every SPECTRO_TEST_* or SPECTRO_VIEW_* name in
    src/, is read only in the library's door src/job/job_env.c or, the window's
    (SPECTRO_VIEW_*), in src/view/view_env.c, and only inside #ifdef SPECTRO_TEST_HOOKS, so a
    build without the option (the installed program) cannot react to it; and every such
    name in src/ is in the table."""

    def test_read_only_in_env_behind_the_option(self):
        table = section(read(os.path.join(ROOT, "docs", "developer.md")), "Test hooks", 3)
        listed = set(re.findall(r"^\| `(SPECTRO_[A-Z_]+)[=`]", table, re.M))
        self.assertGreater(len(listed), 5, "no table of test hooks in docs/developer.md")
        literal = re.compile(r'"(SPECTRO_[A-Z_]+)"')
        named = re.compile(r'"(SPECTRO_(?:TEST|VIEW)_[A-Z_]+)"')
        env_c = os.path.join(ROOT, "src", "job", "job_env.c")
        view_c = os.path.join(ROOT, "src", "view", "view_env.c")
        read_in, bad = {}, []
        for d in ("src", "gpu"):
            for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
                for n in names:
                    if not re.search(r"\.(c|h|cu|cuh)$", n):
                        continue
                    f = os.path.join(dirpath, n)
                    for v in set(literal.findall(read(f))):
                        if v in listed or named.match('"%s"' % v):
                            read_in.setdefault(v, set()).add(f)
        for v, files in sorted(read_in.items()):
            if v not in listed:
                bad.append("%s is read in src/ but not in docs/developer.md's \"Test hooks\"" % v)
            door = view_c if v.startswith("SPECTRO_VIEW_") else env_c
            if files != {door}:
                bad.append("%s is read in %s" % (v, ", ".join(sorted(os.path.relpath(f, ROOT) for f in files))))
        # each literal in a door inside #ifdef SPECTRO_TEST_HOOKS (nesting followed)
        for door in (env_c, view_c):
            stack, flip = [], {"on": "off", "off": "on", None: None}
            for no, line in enumerate(read(door).splitlines(), 1):
                t = line.strip()
                if t.startswith("#if"):
                    stack.append("on" if t == "#ifdef SPECTRO_TEST_HOOKS" else
                                 "off" if t == "#ifndef SPECTRO_TEST_HOOKS" else None)
                elif t.startswith("#else"):
                    stack[-1] = flip[stack[-1]]
                elif t.startswith("#endif"):
                    stack.pop()
                for v in literal.findall(line):
                    if v in read_in and "on" not in stack:
                        bad.append("%s:%d reads %s outside #ifdef SPECTRO_TEST_HOOKS"
                                   % (os.path.relpath(door, ROOT), no, v))
        self.assertGreaterEqual(len(read_in), 8, sorted(read_in))
        self.assertTrue(any(v.startswith("SPECTRO_VIEW_") for v in read_in), sorted(read_in))
        self.assertEqual(bad, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
