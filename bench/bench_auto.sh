#!/usr/bin/env bash
# `--backend auto` against both backends: each job runs with auto, cpu and cuda in the same
# run (best of BENCH_RUNS each), with auto's choice as `--verbose` prints it, and auto's
# time over the faster backend's (issue 16's target: within 10 %). Where cuda cannot run
# (no GPU, a build without CUDA), auto is compared with the cpu alone.
#
#   bench/bench_auto.sh [path/to/spectro]
#   BENCH_AUTO_JOBS="dump dense dump60" (default: dump)
#     dump    10-minute 48 kHz mono WAV -> .npy, N=4096 hop=1024 (the everyday job)
#     dense   the same file, --peaks -n 16384 --hop 64 (the GPU's job)
#     dump60  60-minute file -> .npy, N=4096 hop=1024
#   BENCH_RUNS=3
# Exit 1 when a run fails; a missed target is reported, not an error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/spectro}
. "$root/bench/common.sh"
py=$(find_python) || { echo "bench_auto: needs a Python 3 with numpy and scipy" >&2; exit 1; }
jobs=${BENCH_AUTO_JOBS:-dump}
runs=${BENCH_RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best of $runs wall times for each backend named in $backends, running "$bin" $args
# --backend B in turn (auto, cpu, cuda, auto, ...), so that a shared machine's load drifts
# over all of them alike; into best[B]
declare -A best
best_each() {
    local b t
    best=()
    for _ in $(seq "$runs"); do
        for b in $backends; do
            # shellcheck disable=SC2086  # args is a word list of our own
            t=$(once_within 600 "$bin" $args --backend "$b")
            [ -n "$t" ] || { echo "bench_auto: failed or over 600 s: $bin $args --backend $b" >&2; return 1; }
            best[$b]=$(awk -v t="$t" -v b="${best[$b]:-}" 'BEGIN { printf "%.3f", (b == "" || t < b) ? t : b }')
        done
    done
}

# job NAME -> the input file and spectro's arguments for it
job_args() {
    case $1 in
    dump) echo "$tmp/in10.wav --quiet --dump $tmp/out.npy -n 4096 --hop 1024" ;;
    dense) echo "$tmp/in10.wav --quiet --peaks -n 16384 --hop 64" ;;
    dump60) echo "$tmp/in60.wav --quiet --dump $tmp/out.npy -n 4096 --hop 1024" ;;
    *) echo "bench_auto: unknown job $1 (dump, dense, dump60)" >&2; return 1 ;;
    esac
}

machine_line
if "$bin" --quiet --backend cuda --dump "$tmp/probe.npy" "$root/assets/two_tone_48k_s16.wav" </dev/null >/dev/null 2>&1; then
    have_cuda=1
    backends="auto cpu cuda"
else
    have_cuda=0
    backends="auto cpu"
    echo "cuda:    cannot run here: auto is compared with the cpu alone"
fi
status=0
for job in $jobs; do
    args=$(job_args "$job")
    input=${args%% *}
    [ -f "$input" ] || make_wav "$py" "$input" $([ "$job" = dump60 ] && echo 3600 || echo 600)
    echo "job $job: spectro $args" | sed "s|$tmp/||g"
    # shellcheck disable=SC2086  # args is a word list of our own
    "$bin" $args --verbose </dev/null 2>&1 >/dev/null | sed -n 's/^spectro: backend: /  /p'
    best_each || { status=1; continue; }
    chosen=$("$bin" $args --backend auto --verbose </dev/null 2>&1 >/dev/null | sed -n 's/.* backend=\([a-z]*\) .*/\1/p')
    printf '  %-6s %8s s  (ran %s)\n  %-6s %8s s\n' auto "${best[auto]}" "$chosen" cpu "${best[cpu]}"
    fast=${best[cpu]} fastname=cpu
    if [ "$have_cuda" = 1 ]; then
        printf '  %-6s %8s s\n' cuda "${best[cuda]}"
        if awk -v g="${best[cuda]}" -v c="${best[cpu]}" 'BEGIN { exit !(g < c) }'; then fast=${best[cuda]} fastname=cuda; fi
    fi
    r=$(ratio "${best[auto]}" "$fast" %.2f)
    verdict=$(awk -v r="$r" 'BEGIN { print (r <= 1.10) ? "met" : "NOT met" }')
    echo "  ratio: auto / faster ($fastname) = $r (target <= 1.10: $verdict)"
done
exit $status
