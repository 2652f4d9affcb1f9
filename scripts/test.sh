#!/usr/bin/env bash
# Set up, build and run the whole test suite through ctest:
#   1. the release build (with the CUDA backends when nvcc is present), all tests; GPU tests
#      are skipped (exit 77) on machines without a GPU
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build, all CPU tests
#   3. a ThreadSanitizer build of the ring buffer and pipeline tests
# SPECTRO_TEST_QUICK=1 runs step 1 only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/deps.sh
SPECTRO_DEPS=test spectro_deps
jobs=$(nproc)

step() { printf '\n== %s ==\n' "$*"; }

step "release build"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$root/build" -j"$jobs"
(cd "$root/build" && ctest --output-on-failure -j"$jobs")

if [ "${SPECTRO_TEST_QUICK:-0}" = 1 ]; then
    exit 0
fi

step "ASan + UBSan build (CPU backend)"
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPECTRO_SANITIZE=ON -DSPECTRO_CUDA=OFF >/dev/null
cmake --build "$root/build-asan" -j"$jobs"
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs" -LE gpu)

step "ThreadSanitizer build (ring buffer, pipeline)"
cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPECTRO_TSAN=ON -DSPECTRO_CUDA=OFF >/dev/null
cmake --build "$root/build-tsan" -j"$jobs" --target test_ring test_analyze
(cd "$root/build-tsan" && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R '^(test_ring|test_analyze)$')
