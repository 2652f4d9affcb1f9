#!/usr/bin/env bash
# Window benchmark: frame rate and capture-to-pixel latency of the scrolling spectrogram,
# 48 kHz, N=4096, hop=512, as spectro measures them itself (SPECTRO_VIEW_STATS, a test hook:
# a build with -DSPECTRO_TEST_HOOKS=ON, as scripts/test.sh makes in build/): a file
# streams through the live path (--realtime, the microphone's code path after the capture
# callback) into a window on a virtual X server (Xvfb, software rendering).
# Latency = time the picture is presented - time the newest frame's last sample was
# captured. Target: <= one hop + one display frame (10.7 + 16.7 = 27.3 ms).
#
#   bench/bench_window.sh [path/to/spectro] [extra spectro args, e.g. --backend cuda]
#   BENCH_SECONDS=20 BENCH_SIZE=1280x720
#   SDL_RENDER_VSYNC=0 measures the window without vsync (it has vsync by default)
#   BENCH_KEYS="v o f": keys pressed once the window is up (xdotool under Xvfb; with SDL's
#   offscreen driver the window presses them itself, SPECTRO_VIEW_KEYS): here the level
#   meters, the oscilloscope and the pitch, drawn while it is measured
#   SDL_VIDEODRIVER=offscreen: no X server, SDL's offscreen driver (the lent GPU machine:
#   .devdeps/env.sh sets it); the input is then made with Python instead of sox
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
shift || true
secs=${BENCH_SECONDS:-20}
size=${BENCH_SIZE:-1280x720}
offscreen=0
[ "${SDL_VIDEODRIVER:-}" = offscreen ] && offscreen=1
for tool in Xvfb sox; do
    [ $offscreen = 1 ] && break
    command -v $tool >/dev/null 2>&1 || { echo "bench_window: needs $tool (apt-get install xvfb sox)" >&2; exit 1; }
done
tmp=$(mktemp -d)
xpid=""
cleanup() {
    [ -n "$xpid" ] && kill "$xpid" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
. "$root/bench/common.sh"

if [ $offscreen = 1 ]; then
    "$(find_python)" - "$tmp/in.wav" $((secs + 10)) <<'PY'
import sys, wave, numpy as np
path, secs, fs = sys.argv[1], int(sys.argv[2]), 48000
t = np.arange(secs * fs) / fs
x = 0.25 * np.sin(2 * np.pi * 440 * t) + 0.25 * np.sin(2 * np.pi * 1320 * t)
with wave.open(path, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(fs)
    w.writeframes((x * 32767).astype("<i2").tobytes())
PY
else
    sox -n -r 48000 -c 1 -b 16 "$tmp/in.wav" synth $((secs + 10)) sine 440 sine 1320 vol 0.5 2>/dev/null
fi

# a virtual screen (none with SDL's offscreen driver)
if [ $offscreen = 0 ]; then
    start_xvfb || { echo "bench_window: Xvfb did not start" >&2; exit 1; }
fi

machine_line
echo "input:   48 kHz mono through --realtime, N=4096, hop=512, window $size on $([ $offscreen = 1 ] && echo "SDL's offscreen driver" || echo Xvfb), ${secs} s; spectro $*"
# the keys: xdotool's under Xvfb; with no X server, the window presses them itself
# (SPECTRO_VIEW_KEYS, a test hook)
view_keys=""
[ $offscreen = 1 ] && view_keys=${BENCH_KEYS:-}
SPECTRO_VIEW_STATS="$tmp/stats.json" SPECTRO_VIEW_KEYS="$view_keys" "$bin" --quiet --realtime -n 4096 --hop 512 \
    --size "$size" "$@" "$tmp/in.wav" &
pid=$!
[ -n "$view_keys" ] && echo "keys:    $view_keys (SPECTRO_VIEW_KEYS)"
if [ -n "${BENCH_KEYS:-}" ] && [ $offscreen = 0 ]; then
    command -v xdotool >/dev/null 2>&1 ||
        { echo "bench_window: BENCH_KEYS needs xdotool under Xvfb" >&2; kill "$pid"; exit 1; }
    wid=""
    for _ in $(seq 50); do
        wid=$(xdotool search --onlyvisible --pid "$pid" --name spectro 2>/dev/null | tail -1) && [ -n "$wid" ] && break
        sleep 0.1
    done
    [ -n "$wid" ] || { echo "bench_window: no window to press keys in" >&2; kill "$pid"; exit 1; }
    xdotool windowfocus --sync "$wid"
    for k in $BENCH_KEYS; do xdotool key --clearmodifiers "$k"; done
    echo "keys:    $BENCH_KEYS"
fi
sleep "$secs"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
# Ctrl-C ends a live run normally: exit 130 (128 + SIGINT), outputs kept
[ "$rc" = 0 ] || [ "$rc" = 130 ] || { echo "bench_window: spectro failed (exit $rc)" >&2; exit 1; }
[ -s "$tmp/stats.json" ] || { echo "bench_window: $bin wrote no statistics: SPECTRO_VIEW_STATS is a test hook" \
    "(a build with -DSPECTRO_TEST_HOOKS=ON, as scripts/test.sh makes; docs/developer.md \"Test hooks\")" >&2; exit 1; }
cat "$tmp/stats.json"
awk -v budget=27.33 'match($0, /"latency_p50_ms": [0-9.]+/) {
        p50 = substr($0, RSTART + 18, RLENGTH - 18) + 0
        match($0, /"latency_p95_ms": [0-9.]+/); p95 = substr($0, RSTART + 18, RLENGTH - 18) + 0
        match($0, /"mean_fps": [0-9.]+/); fps = substr($0, RSTART + 12, RLENGTH - 12)
        printf "frame rate %.1f fps; capture-to-pixel latency p50 %.1f ms, p95 %.1f ms ", fps, p50, p95
        printf "(target <= %.1f ms: p50 %s, p95 %s)\n", budget, p50 <= budget ? "met" : "NOT met", p95 <= budget ? "met" : "NOT met"
    }' "$tmp/stats.json"
