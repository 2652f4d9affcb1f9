#!/usr/bin/env bash
# Pitch benchmark: one minute of a five-harmonic tone gliding 100 -> 800 Hz and back (22.05
# kHz mono float WAV, librosa's default rate), by
#   spectro --pitch -n 2048 --hop 512 (YIN, pyin's default frames)
#   librosa.pyin(fmin=50, fmax=2000, frame_length=2048, hop_length=512): the same frames,
#     build/pyenv's Python (pip install librosa there); its import and the WAV read excluded
# in the same run (best of BENCH_RUNS, default 3, wall-clock), and how far each is from the
# analytic f0 (median and 95th percentile cents over voiced frames).
#
#   bench/bench_pitch.sh [path/to/spectro]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/common.sh"
py=$root/build/pyenv/bin/python
"$py" - "$tmp" <<'PY'
import sys, wave, numpy as np
sr = 22050
t = np.arange(sr * 60) / sr
f0 = 100 * 8 ** (1 - np.abs((t % 8) / 4 - 1))  # 100 -> 800 -> 100 Hz every 8 s
ph = 2 * np.pi * np.cumsum(f0) / sr
x = sum(0.3 / k * np.sin(k * ph) for k in range(1, 6)).astype("<f4")
np.save(sys.argv[1] + "/f0.npy", f0)
import struct
data = x.tobytes()
fmt = struct.pack("<HHIIHH", 3, 1, sr, sr * 4, 4, 32)
with open(sys.argv[1] + "/in.wav", "wb") as f:
    f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<I", 16) + fmt
            + b"data" + struct.pack("<I", len(data)) + data)
PY
machine_line
echo "input:   60 s, 22.05 kHz, mono float WAV, a harmonic glide 100-800 Hz"
ts=$(best "$bin" --quiet --pitch -n 2048 --hop 512 "$tmp/in.wav")
"$bin" --quiet --pitch -n 2048 --hop 512 "$tmp/in.wav" > "$tmp/spectro.txt"
"$py" - "$tmp" "$ts" "${BENCH_RUNS:-3}" <<'PY'
import sys, time, numpy as np
d, ts, runs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
f0 = np.load(d + "/f0.npy")
def err(t, f):
    v = f > 0
    c = np.abs(1200 * np.log2(f[v] / f0[np.round(t[v] * 22050).astype(int)]))
    return v.mean(), np.median(c), np.percentile(c, 95)
s = np.loadtxt(d + "/spectro.txt")
print("%-40s %8.3f s   voiced %.2f, median %.2f cents, p95 %.2f" % (("spectro --pitch", ts) + err(s[:, 0], s[:, 1])))
try:
    import librosa
except ImportError:
    print("librosa: not in build/pyenv, skipped"); sys.exit(0)
import wave
x = np.fromfile(d + "/in.wav", dtype="<f4", offset=44)
best = None
for _ in range(runs):
    t0 = time.perf_counter()
    f, vflag, vprob = librosa.pyin(x, fmin=50, fmax=2000, sr=22050, frame_length=2048, hop_length=512, center=False)
    dt = time.perf_counter() - t0
    best = dt if best is None or dt < best else best
f = np.nan_to_num(f)
t = (np.arange(len(f)) * 512 + 1024) / 22050
print("%-40s %8.3f s   voiced %.2f, median %.2f cents, p95 %.2f   spectro is %.1fx faster"
      % (("librosa.pyin (same frames)", best) + err(t, f) + (best / ts,)))
PY
