#!/usr/bin/env python3
"""spectrogram.py: the loudest frequency of every frame of an audio file, through the Python
package (docs/python.md); examples/spectrogram.c does the same through the C API.

    python3 examples/spectrogram.py song.wav

prints one line per frame, time_s<TAB>peak_hz<TAB>peak_db, the lines `spectro --peaks
song.wav` prints (N 4096, hop 1024, hann, the channels' mean).
"""
import sys

import spectro


def main(argv):
    if len(argv) != 2:
        print("usage: spectrogram.py FILE", file=sys.stderr)
        return 2
    try:
        y, sr = spectro.load(argv[1])
        p = spectro.peaks(y, sr=sr)
    except (OSError, ValueError) as e:
        print("spectrogram.py: %s" % e, file=sys.stderr)
        return 1
    for t, hz, db in zip(p.time_s, p.freq_hz, p.db):
        print("%.6f\t%.3f\t%.2f" % (t, hz, db))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
