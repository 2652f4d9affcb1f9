#!/usr/bin/env bash
# Set up, build, and run spectro.
#   scripts/run.sh                 the bundled demo recording (assets/demo.flac): in a window
#                                  when a display exists; otherwise (or when the window cannot
#                                  open) writes out/demo.png, out/demo.npy (+ .json) and
#                                  prints a peak summary
#   scripts/run.sh ARGS...         run spectro with your arguments
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/deps.sh
spectro_deps

build="${SPECTRO_BUILD_DIR:-$root/build}"
if [ ! -f "$build/CMakeCache.txt" ]; then
    # no test hooks (docs/developer.md "Test hooks"); a build/ that scripts/test.sh configured
    # keeps its own
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSPECTRO_TEST_HOOKS=OFF \
        >"$root/.cmake-configure.log" 2>&1 ||
        { cat "$root/.cmake-configure.log" >&2; exit 1; }
    grep -E '^-- +[^ ].*: (on|off)' "$root/.cmake-configure.log" >&2 || true
fi
cmake --build "$build" -j"$(nproc)" --target spectro >/dev/null
bin="$build/spectro"

if [ $# -gt 0 ]; then
    exec "$bin" "$@"
fi

demo="$root/assets/demo.flac"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "spectro: opening $demo in a window (h for help, q to quit)"
    if "$bin" "$demo"; then
        exit 0
    fi
    echo "spectro: the window did not open; writing the picture and the spectra instead" >&2
fi
mkdir -p "$root/out"
out="$root/out/demo.npy"
png="$root/out/demo.png"
peaks="$root/out/demo-peaks.tsv"
"$bin" --dump "$out" --png "$png" --scale log --colormap magma "$demo"
"$bin" --quiet --peaks "$demo" >"$peaks"
echo "spectro: analysed $demo"
awk -F'\t' '
    { n++; if ($3 > best) { best = $3; bt = $1; bf = $2 } ; hz[sprintf("%.0f", $2)]++ }
    BEGIN { best = -1e9 }
    END {
        printf "  %d frames; loudest peak %.1f dBFS at %.1f Hz (t = %.2f s)\n", n, best, bf, bt
        m = 0; for (f in hz) if (hz[f] > m) { m = hz[f]; mf = f }
        printf "  most frequent peak frequency: %s Hz (%d frames)\n", mf, m
    }' "$peaks"
echo "  picture:         $png"
echo "  spectra (dBFS):  $out  (metadata: $out.json)"
echo "  peak per frame:  $peaks"
