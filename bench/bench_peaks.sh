#!/usr/bin/env bash
# The dense --peaks case of issue 16: `spectro --peaks -n 16384 --hop 64` over a 10-minute
# 48 kHz mono file (bench_e2e.sh's chord), on the cpu backend and, where a GPU is usable, the
# cuda backend, measured in the same run: seconds (best of 3), where the time goes (-v), the
# ratio, the targets (cuda <= 0.8 s and >= 10x cpu) and whether both print the same peaks.
#
#   bench/bench_peaks.sh [path/to/spectro] [extra spectro args]
#   BENCH_MINUTES=10 (file length)  BENCH_N=16384  BENCH_HOP=64
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
shift || true
py=${SPECTRO_PYTHON:-}
if [ -z "$py" ]; then
    for c in /usr/bin/python3 python3; do
        if "$c" -c 'import numpy' 2>/dev/null; then py=$c; break; fi
    done
fi
[ -n "$py" ] || { echo "bench_peaks: needs a Python 3 with numpy" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/common.sh"
minutes=${BENCH_MINUTES:-10}
secs=$((minutes * 60))
n=${BENCH_N:-16384}
hop=${BENCH_HOP:-64}

make_wav "$py" "$tmp/in.wav" "$secs"  # the chord of bench_e2e.sh (common.sh)

machine_line
echo "input:   ${minutes} min, 48 kHz, mono, 16-bit WAV; --peaks -n $n --hop $hop (hann)"
args=(-q --peaks -n "$n" --hop "$hop" "$@" "$tmp/in.wav")
declare -A t
for b in cpu cuda; do
    if [ "$b" = cuda ] && ! "$bin" -q -b cuda --peaks -n 1024 --duration 0.1 "$tmp/in.wav" >/dev/null 2>&1; then
        echo "cuda:    not usable here (no GPU, or a build without CUDA): cpu only"
        break
    fi
    t[$b]=$(best "$bin" -b "$b" "${args[@]}")
    "$bin" -b "$b" -v "${args[@]}" 2>&1 >"$tmp/$b.txt" | sed -n "s/^spectro: time: /time:    ($b) /p"
    printf '%-28s %8s s  %8.0fx real time\n' "spectro --peaks ($b)" "${t[$b]}" "$(ratio "$secs" "${t[$b]}")"
done
[ -n "${t[cuda]:-}" ] || exit 0
"$py" - "$tmp/cpu.txt" "$tmp/cuda.txt" <<'PY'
import sys, numpy as np
a, b = (np.loadtxt(p, ndmin=2) for p in sys.argv[1:3])
assert a.shape == b.shape, (a.shape, b.shape)
same = np.abs(a[:, -2] - b[:, -2]) < 0.5
print(f"check:   cuda vs cpu: {a.shape[0]} frames, {same.mean() * 100:.3f} % at the same peak, "
      f"max |level diff| there {np.abs(a[same, -1] - b[same, -1]).max():.3f} dB")
PY
printf 'ratio:   cuda is %.1fx faster than cpu\n' "$(ratio "${t[cpu]}" "${t[cuda]}")"
awk -v c="${t[cuda]}" -v p="${t[cpu]}" 'BEGIN {
    printf "target:  cuda <= 0.8 s: %s (%.3f s); cuda >= 10x cpu: %s (%.1fx)\n",
        (c <= 0.8 ? "met" : "NOT met"), c, (p / c >= 10 ? "met" : "NOT met"), p / c }'
