#!/usr/bin/python3
"""Writes windows_ref.txt: periodic windows from scipy.signal.get_window, the reference
for tests/test_window.c. Run from anywhere: /usr/bin/python3 make_windows_ref.py

Line format (one window per line, whitespace separated):
    <spectro spec> <N> <sum> <w[0]> ... <w[N-1]>
Values are %.9g (float precision; the test allows 1e-6)."""
import os

import numpy as np
import scipy
from scipy.signal import get_window

SIZES = [16, 17, 64, 4096]
# spectro spec -> scipy window argument (N is appended by get_window)
SPECS = [
    ("hann", lambda n: "hann"),
    ("hamming", lambda n: "hamming"),
    ("blackman", lambda n: "blackman"),
    ("blackman-harris", lambda n: "blackmanharris"),
    ("flattop", lambda n: "flattop"),
    ("rect", lambda n: "boxcar"),
    ("kaiser", lambda n: ("kaiser", 8.6)),
    ("kaiser:5", lambda n: ("kaiser", 5.0)),
    ("gauss", lambda n: ("gaussian", 0.4 * n / 2)),
    ("gauss:0.25", lambda n: ("gaussian", 0.25 * n / 2)),
]


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "windows_ref.txt")
    with open(out, "w") as f:
        f.write("# periodic windows from scipy %s scipy.signal.get_window(name, N), "
                "made by make_windows_ref.py\n" % scipy.__version__)
        f.write("# spec N sum w[0] ... w[N-1]\n")
        for spec, arg in SPECS:
            for n in SIZES:
                w = get_window(arg(n), n, fftbins=True).astype(np.float64)
                f.write("%s %d %.17g %s\n" % (spec, n, w.sum(), " ".join("%.9g" % v for v in w)))


if __name__ == "__main__":
    main()
