#!/usr/bin/env bash
# End-to-end benchmark: `spectro --dump` of a 10-minute 48 kHz mono file (N=4096, hop=1024)
# against the same analysis in NumPy/SciPy (the hand-written script spectro replaces),
# measured in the same run. Prints seconds (best of 3), real-time factors and the ratio.
#
#   bench/bench_e2e.sh [path/to/spectro] [extra spectro args, e.g. --backend cuda]
#   BENCH_MINUTES=60 (file length)  BENCH_NUMPY=0 (spectro only, no NumPy reference run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
shift || true
py=${SPECTRO_PYTHON:-}
if [ -z "$py" ]; then # the first Python with NumPy and SciPy (pyenv or venv shims may lack them)
    for c in /usr/bin/python3 python3; do
        if "$c" -c 'import numpy, scipy' 2>/dev/null; then py=$c; break; fi
    done
fi
[ -n "$py" ] || { echo "bench_e2e: needs a Python 3 with numpy and scipy" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/common.sh"
minutes=${BENCH_MINUTES:-10}
secs=$((minutes * 60))

make_wav "$py" "$tmp/in.wav" "$secs"

cat > "$tmp/ref.py" <<'PY'
import sys, numpy as np, scipy.signal, scipy.io.wavfile
rate, x = scipy.io.wavfile.read(sys.argv[1])
x = x.astype(np.float32) / 32768.0
n, hop = 4096, 1024
w = scipy.signal.get_window("hann", n).astype(np.float32)
frames = np.lib.stride_tricks.sliding_window_view(x, n)[::hop]
out = []
for i in range(0, len(frames), 2048):       # batched, as a careful script would
    X = np.abs(np.fft.rfft(frames[i:i + 2048] * w, axis=1)) * (2.0 / w.sum())
    X[:, 0] /= 2; X[:, -1] /= 2
    out.append((20 * np.log10(np.maximum(X, 1e-10))).astype(np.float32))
np.save(sys.argv[2], np.concatenate(out))
PY

machine_line
echo "input:   ${minutes} min, 48 kHz, mono, 16-bit WAV; N=4096 hop=1024 hann -> .npy"
ts=$(best "$bin" --quiet --dump "$tmp/out.npy" -n 4096 --hop 1024 "$@" "$tmp/in.wav")
backend=$("$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['backend'])" "$tmp/out.npy.json")
# where one more run's time goes, as spectro reports it
"$bin" --quiet --verbose --dump "$tmp/out.npy" -n 4096 --hop 1024 "$@" "$tmp/in.wav" 2>&1 | sed -n 's/^spectro: time: /time:    /p'
printf '%-28s %8s s  %8.0fx real time\n' "spectro ($backend)" "$ts" "$(ratio "$secs" "$ts")"
[ "${BENCH_NUMPY:-1}" = 0 ] && exit 0
tp=$(best "$py" "$tmp/ref.py" "$tmp/in.wav" "$tmp/ref.npy")
"$py" - "$tmp/out.npy" "$tmp/ref.npy" <<'PY'
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.shape == b.shape, (a.shape, b.shape)
m = b > -100
print(f"check:   spectro vs numpy max |diff| {np.abs(a[m] - b[m]).max():.4f} dB over {m.sum()} values")
PY
printf '%-28s %8s s  %8.0fx real time\n' "numpy/scipy script" "$tp" "$(ratio "$secs" "$tp")"
printf 'ratio: spectro is %.1fx faster than the numpy script\n' "$(ratio "$tp" "$ts")"
