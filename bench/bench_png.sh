#!/usr/bin/env bash
# Picture benchmark: a 10-minute 48 kHz mono file drawn at 1920x1080 by
#   spectro --png (every frame contributes: a column is the max of its frames)
#   sox FILE -n spectrogram -x 1920 -y 1025
#   ffmpeg -lavfi showspectrumpic=s=1920x1080 (when ffmpeg is installed; one run, at most
#   FFMPEG_LIMIT seconds, default 120)
# measured in the same run (best of 3 wall-clock times).
#
#   bench/bench_png.sh [path/to/spectro] [extra spectro args]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/common.sh"
minutes=${BENCH_MINUTES:-10}
sox -n -r 48000 -c 1 -b 16 "$tmp/in.wav" synth "$((minutes * 60))" sine 440 sine 1320 vol 0.5 2>/dev/null


machine_line
echo "input:   ${minutes} min, 48 kHz, mono, 16-bit WAV -> 1920x1080 PNG"
ts=$(best "$bin" --quiet --png "$tmp/spectro.png" --size 1920x1080 "$@" "$tmp/in.wav")
tx=$(best sox "$tmp/in.wav" -n spectrogram -x 1920 -y 1025 -o "$tmp/sox.png")
printf '%-44s %8s s\n' "spectro --png (N=4096, hop=1024, all frames)" "$ts"
printf '%-44s %8s s   spectro is %.1fx faster\n' "sox spectrogram -x 1920 -y 1025" "$tx" "$(ratio "$tx" "$ts")"
if command -v ffmpeg >/dev/null 2>&1; then
    # showspectrumpic is slow on long inputs: one run, stopped after $FFMPEG_LIMIT seconds
    limit=${FFMPEG_LIMIT:-120}
    tf=$(once_within "$limit" ffmpeg -v error -y -i "$tmp/in.wav" -lavfi showspectrumpic=s=1920x1080 "$tmp/ffmpeg.png")
    if [ -n "$tf" ]; then
        printf '%-44s %8s s   spectro is %.1fx faster (one run)\n' "ffmpeg showspectrumpic=s=1920x1080" "$tf" "$(ratio "$tf" "$ts")"
    else
        printf '%-44s  > %s s   (stopped; spectro is > %.0fx faster)\n' "ffmpeg showspectrumpic=s=1920x1080" "$limit" "$(ratio "$limit" "$ts")"
    fi
fi
