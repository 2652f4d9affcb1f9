#!/usr/bin/env bash
# Picture benchmark: a 10-minute 48 kHz mono file drawn at 1920x1080 by
#   spectro --png (every frame contributes: a column is the max of its frames)
#   sox FILE -n spectrogram -x 1920 -y 1025
#   ffmpeg -lavfi showspectrumpic=s=1920x1080 (when ffmpeg is installed)
# measured in the same run (best of 3 wall-clock times).
#
#   bench/bench_png.sh [path/to/spectro] [extra spectro args]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
minutes=${BENCH_MINUTES:-10}
sox -n -r 48000 -c 1 -b 16 "$tmp/in.wav" synth "$((minutes * 60))" sine 440 sine 1320 vol 0.5 2>/dev/null

best() {
    local b=""
    for _ in 1 2 3; do
        local t0 t1 dt
        t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
        dt=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$dt < $b" | bc -l)" = 1 ]; then b=$dt; fi
    done
    printf '%.3f' "$b"
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "input:   ${minutes} min, 48 kHz, mono, 16-bit WAV -> 1920x1080 PNG"
ts=$(best "$bin" --quiet --png "$tmp/spectro.png" --size 1920x1080 "$@" "$tmp/in.wav")
tx=$(best sox "$tmp/in.wav" -n spectrogram -x 1920 -y 1025 -o "$tmp/sox.png")
printf '%-44s %8s s\n' "spectro --png (N=4096, hop=1024, all frames)" "$ts"
printf '%-44s %8s s   spectro is %.1fx faster\n' "sox spectrogram -x 1920 -y 1025" "$tx" "$(echo "$tx / $ts" | bc -l)"
if command -v ffmpeg >/dev/null 2>&1; then
    tf=$(best ffmpeg -v error -y -i "$tmp/in.wav" -lavfi showspectrumpic=s=1920x1080 "$tmp/ffmpeg.png")
    printf '%-44s %8s s   spectro is %.1fx faster\n' "ffmpeg showspectrumpic=s=1920x1080" "$tf" "$(echo "$tf / $ts" | bc -l)"
fi
