#!/usr/bin/env bash
# The picture jobs of issue 16 on the cpu and cuda backends, measured in the same run (best of
# BENCH_RUNS, default 3): a 10-minute 48 kHz mono file to a PNG with -n 16384 --hop 64 (449,745
# frames, ~33 a pixel column: on the GPU the columns' maxima are computed beside the FFT and
# only they cross the bus) and a 60-minute file with --hop 256; where the time goes (-v), the
# ratios and the targets (10 minutes: cuda <= 1.0 s; 60 minutes: cuda >= 3x cpu). First, on
# any machine, the hour's input side: a decode-bound run (-n 65536 --hop 65536: few FFTs)
# with the reader thread decoding alone (SPECTRO_READERS=1) and with the default decoder
# threads (half the cores, at most 4); the hour's cuda picture is timed both ways too.
#
#   bench/bench_png_gpu.sh [path/to/spectro]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
. "$root/bench/common.sh"
py=$(find_python) || { echo "bench_png_gpu: needs a Python 3 with numpy" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_wav "$py" "$tmp/m60.wav" 3600
machine_line
# decoding the hour: SPECTRO_READERS=1 (one thread) against the default ("")
echo "job:     -b cpu --peaks -n 65536 --hop 65536 m60.wav (decode-bound)"
for r in 1 ""; do
    d=$(SPECTRO_READERS=$r best "$bin" -q -b cpu --peaks -n 65536 --hop 65536 "$tmp/m60.wav")
    SPECTRO_READERS=$r "$bin" -v -b cpu --peaks -n 65536 --hop 65536 "$tmp/m60.wav" 2>&1 >/dev/null |
        sed -n "s/^spectro: time: /  (readers ${r:-default}) /p"
    printf '  readers %-8s %8s s\n' "${r:-default}" "$d"
done
"$bin" -q -b cuda --peaks -n 1024 --duration 0.1 "$root/assets/chirp_100_20k_48k_s16.wav" >/dev/null 2>&1 ||
    { echo "bench_png_gpu: the cuda backend is not usable here"; exit 0; }
make_wav "$py" "$tmp/m10.wav" 600
declare -A t
for job in "m10.wav -n 16384 --hop 64" "m60.wav --hop 256"; do
    set -- $job
    f=$1
    shift
    echo "job:     --png $f $*"
    for b in cpu cuda; do
        t[$b]=$(best "$bin" -q -b "$b" --png "$tmp/o.png" "$@" "$tmp/$f")
        "$bin" -v -b "$b" --png "$tmp/o.png" "$@" "$tmp/$f" 2>&1 | sed -n "s/^spectro: \(time\|picture\): /  ($b) /p"
        printf '  %-6s %8s s\n' "$b" "${t[$b]}"
    done
    if [ "$f" = m60.wav ]; then # the same cuda run with one thread decoding (before the threads)
        t1=$(SPECTRO_READERS=1 best "$bin" -q -b cuda --png "$tmp/o.png" "$@" "$tmp/$f")
        SPECTRO_READERS=1 "$bin" -v -b cuda --png "$tmp/o.png" "$@" "$tmp/$f" 2>&1 |
            sed -n "s/^spectro: time: /  (cuda, readers 1) /p"
        printf '  %-6s %8s s (SPECTRO_READERS=1)\n' cuda "$t1"
    fi
    printf '  ratio: cuda is %.1fx faster than cpu\n' "$(ratio "${t[cpu]}" "${t[cuda]}")"
    if [ "$f" = m10.wav ]; then
        awk -v c="${t[cuda]}" 'BEGIN { printf "  target: cuda <= 1.0 s: %s\n", (c <= 1.0 ? "met" : "NOT met") }'
    else
        awk -v c="${t[cuda]}" -v p="${t[cpu]}" 'BEGIN { printf "  target: cuda >= 3x cpu: %s\n", (p / c >= 3 ? "met" : "NOT met") }'
    fi
done
