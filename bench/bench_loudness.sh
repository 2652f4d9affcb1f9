#!/usr/bin/env bash
# Loudness benchmark: a 10-minute 48 kHz stereo file (a chord with vibrato and noise, its
# level changing every few seconds) measured by
#   spectro --loudness (integrated, range, momentary/short-term maxima, true and sample peak)
#   pyloudnorm: the WAV read by soundfile-free NumPy, then Meter.integrated_loudness (its
#     one measurement; no range, no true peak) -- build/pyenv's Python (scripts/test.sh)
#   ffmpeg -af ebur128=peak=true (integrated, range, true peak) and ebur128 without peak
# in the same run (best of 3 wall-clock times; the Python one includes its start and imports).
#
#   bench/bench_loudness.sh [path/to/spectro] [extra spectro args]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/common.sh"
minutes=${BENCH_MINUTES:-10}
py=$(find_python)
"$py" - "$tmp/in.wav" "$minutes" <<'PY'
import sys, numpy as np, wave
path, minutes = sys.argv[1], int(sys.argv[2])
fs = 48000
rng = np.random.default_rng(1)
with wave.open(path, "wb") as w:
    w.setnchannels(2); w.setsampwidth(2); w.setframerate(fs)
    for s in range(minutes * 60):
        t = (np.arange(fs) + s * fs) / fs
        g = 10 ** (-(s % 7) * 3 / 20)
        x = 0.3 * np.sin(2 * np.pi * 440 * t + 3 * np.sin(2 * np.pi * 5 * t))
        x += 0.2 * np.sin(2 * np.pi * 1320 * t) + 0.01 * rng.standard_normal(fs)
        st = np.stack([g * x, g * np.roll(x, 17)], 1)
        w.writeframes((np.clip(st, -1, 1) * 32767).astype("<i2").tobytes())
PY

machine_line
echo "input:   ${minutes} min, 48 kHz, stereo, 16-bit WAV"
ts=$(best "$bin" --quiet --loudness "$@" "$tmp/in.wav")
printf '%-52s %8s s\n' "spectro --loudness (all of it)" "$ts"
pyenv=$root/build/pyenv/bin/python
if [ -x "$pyenv" ] && "$pyenv" -c 'import pyloudnorm' 2>/dev/null; then
    cat > "$tmp/pyln.py" <<'PY'
import sys, wave, numpy as np, pyloudnorm as pyln
with wave.open(sys.argv[1]) as w:
    rate, ch = w.getframerate(), w.getnchannels()
    x = np.frombuffer(w.readframes(w.getnframes()), "<i2").reshape(-1, ch) / 32768.0
print(pyln.Meter(rate).integrated_loudness(x))
PY
    tp=$(best "$pyenv" "$tmp/pyln.py" "$tmp/in.wav")
    printf '%-52s %8s s   spectro is %.1fx faster\n' "pyloudnorm integrated_loudness (integrated only)" "$tp" \
        "$(ratio "$tp" "$ts")"
else
    echo "pyloudnorm: not in build/pyenv (scripts/test.sh makes it), skipped"
fi
if command -v ffmpeg >/dev/null 2>&1; then
    tf=$(best ffmpeg -nostats -i "$tmp/in.wav" -af ebur128=peak=true -f null -)
    tn=$(best ffmpeg -nostats -i "$tmp/in.wav" -af ebur128 -f null -)
    printf '%-52s %8s s   spectro is %.1fx faster\n' "ffmpeg -af ebur128=peak=true" "$tf" "$(ratio "$tf" "$ts")"
    printf '%-52s %8s s   spectro is %.1fx faster\n' "ffmpeg -af ebur128 (no true peak)" "$tn" "$(ratio "$tn" "$ts")"
fi
echo "readings:"
"$bin" --quiet --loudness "$@" "$tmp/in.wav"
ffmpeg -nostats -i "$tmp/in.wav" -af ebur128=peak=true -f null - 2>&1 | grep -E '^\s+(I|LRA|Peak):' || true
