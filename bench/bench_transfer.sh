#!/usr/bin/env bash
# Transfer-function benchmark (--transfer REF:MEAS): can the live path keep up with two
# 96 kHz channels at N 65536, hop 4096? A two-channel file (white noise and the same through
# a low-pass, delayed) streams through the live path at its own rate (--realtime: the
# microphone's code path after the capture callback); the sidecar's dropped_samples must be 0
# and the frames averaged all the file's. Also the offline speed of the same analysis (the
# file read as fast as it goes) as a multiple of real time, and the CPU time the live run took
# per second of audio.
#
# BENCH_WINDOW=1: the window's live transfer view instead (no output: the view's own running
# H1 average, its three plots at most 10 times a second), on a virtual X server (Xvfb), the
# file streamed with --realtime; the dropped samples, the averages and the view's timings
# come from its statistics (SPECTRO_VIEW_STATS, a test hook: a build with
# -DSPECTRO_TEST_HOOKS=ON, as scripts/test.sh makes in build/), with the load at the time.
#
#   bench/bench_transfer.sh [path/to/spectro] [extra spectro args, e.g. --backend cpu]
#   BENCH_SECONDS=20 BENCH_RATE=96000 BENCH_N=65536 BENCH_HOP=4096 BENCH_PYTHON=python3
#   BENCH_WINDOW=1 BENCH_SIZE=1280x720
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/common.sh"
bin=${1:-$root/build/spectro}
shift || true
secs=${BENCH_SECONDS:-20}
rate=${BENCH_RATE:-96000}
n=${BENCH_N:-65536}
hop=${BENCH_HOP:-4096}
py=${BENCH_PYTHON:-/usr/bin/python3}  # one with NumPy and SciPy
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
xpid=""
trap '[ -n "$xpid" ] && kill "$xpid" 2>/dev/null; rm -rf "$tmp"' EXIT

"$py" - "$tmp/in.wav" "$secs" "$rate" <<'PY'
import struct, sys
import numpy as np
import scipy.signal
path, secs, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
x = rng.standard_normal(secs * rate) * 0.1
b, a = scipy.signal.butter(4, rate / 8, fs=rate)
y = np.concatenate([np.zeros(37), scipy.signal.lfilter(b, a, x)])[:len(x)]
data = np.stack([x, y], axis=1).astype("<f4").tobytes()
fmt = struct.pack("<HHIIHHH", 3, 2, rate, rate * 8, 8, 32, 0)
body = b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
with open(path, "wb") as f:
    f.write(b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WAVE" + body)
PY

args=(--transfer 0:1 -n "$n" --hop "$hop" -q "$@")
machine_line
if [ "${BENCH_WINDOW:-0}" = 1 ]; then
    . "$root/bench/bench_transfer_window.sh"
    exit 0
fi
echo "input: ${secs} s, 2 channels, ${rate} Hz; N ${n}, hop ${hop}"
offline=$(best "$bin" "${args[@]}" --dump "$tmp/off.npy" "$tmp/in.wav")
echo "offline: ${offline} s for ${secs} s of audio ($(ratio "$secs" "$offline" %.0f)x real time)"

t0=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$bin" "${args[@]}" --realtime --dump "$tmp/live.npy" "$tmp/in.wav"
t1=$(date +%s.%N)
read -r user sys < "$tmp/cpu"
"$py" - "$tmp/live.npy.json" "$tmp/off.npy.json" "$t0" "$t1" "$user" "$sys" "$secs" <<'PY'
import json, sys
live, off = (json.load(open(p)) for p in sys.argv[1:3])
t0, t1, user, sys_, secs = map(float, sys.argv[3:8])
print("live (--realtime): %.2f s wall, dropped_samples %d, averages %d of %d, delay %.2f samples" % (
    t1 - t0, live["dropped_samples"], live["averages"], off["averages"], live["delay_samples"]))
print("live CPU: %.3f s user + %.3f s system = %.1f %% of one core per second of audio" % (
    user, sys_, 100.0 * (user + sys_) / secs))
print("keeps up:", "yes" if live["dropped_samples"] == 0 and live["averages"] == off["averages"] else "NO")
PY
