#!/usr/bin/env bash
# Many files in one run: COUNT files of SECONDS s (48 kHz mono 16-bit WAV) -> one .npy each,
# by one `spectro FILE... --dump out/` against a shell loop of one `spectro` per file, same
# backend and settings, measured in the same run (best of 3 each). Prints both times, the
# files per second and the ratio (issue 16's target: >= 5x at 1000 x 10 s).
#
#   bench/bench_batch.sh [path/to/spectro] [extra spectro args, e.g. --backend cuda]
#   BENCH_FILES=1000 (count)  BENCH_SECONDS=10 (length of each)  BENCH_RUNS=3 (best of)
#   BENCH_LOOP=0 (the one run only, no shell loop)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
shift || true
count=${BENCH_FILES:-1000}
secs=${BENCH_SECONDS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/common.sh"
py=${SPECTRO_PYTHON:-}
if [ -z "$py" ]; then
    for c in /usr/bin/python3 python3; do
        if "$c" -c 'import numpy' 2>/dev/null; then py=$c; break; fi
    done
fi
[ -n "$py" ] || { echo "bench_batch: needs a Python 3 with numpy" >&2; exit 1; }

# COUNT different files (a tone whose pitch moves from file to file, some noise)
mkdir -p "$tmp/in" "$tmp/batch" "$tmp/loop"
"$py" - "$tmp/in" "$count" "$secs" <<'PY'
import sys, wave, numpy as np
d, count, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fs = 48000
t = np.arange(int(secs * fs)) / fs
rng = np.random.default_rng(1)
noise = 0.01 * rng.standard_normal(t.size)
for i in range(count):
    x = 0.4 * np.sin(2 * np.pi * (200 + 7 * i) * t) + noise
    with wave.open("%s/f%05d.wav" % (d, i), "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(fs)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
PY
ls "$tmp/in"/*.wav > "$tmp/list"

one_run() { "$bin" -q "$@" --files-from "$tmp/list" --dump "$tmp/batch/"; }
shell_loop() {
    local f
    while read -r f; do
        "$bin" -q "$@" --dump "$tmp/loop/$(basename "$f" .wav).npy" "$f" || return 1
    done < "$tmp/list"
}

machine_line
echo "spectro: $bin $*; $count files x $secs s, 48 kHz mono 16-bit WAV -> .npy each"
t_batch=$(best one_run "$@")
n_out=$(ls "$tmp/batch" | grep -c '\.npy$')
[ "$n_out" = "$count" ] || { echo "bench_batch: $n_out outputs, want $count" >&2; exit 1; }
echo "one run:    ${t_batch} s  ($(ratio "$count" "$t_batch" %.0f) files/s)"
# BENCH_LOOP=0: the one run alone (e.g. to set auto against both backends' one runs)
[ "${BENCH_LOOP:-1}" = 0 ] && exit 0
t_loop=$(best shell_loop "$@")
cmp -s "$tmp/batch/f00000.npy" "$tmp/loop/f00000.npy" || { echo "bench_batch: outputs differ" >&2; exit 1; }
echo "shell loop: ${t_loop} s  ($(ratio "$count" "$t_loop" %.0f) files/s)"
echo "ratio: $(ratio "$t_loop" "$t_batch" %.2f)x (target >= 5x)"
