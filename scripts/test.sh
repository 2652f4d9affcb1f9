#!/usr/bin/env bash
# Set up, build and run the whole test suite through ctest:
#   1. the release build (with the CUDA backends when nvcc is present), all tests; GPU tests
#      are skipped (exit 77) on machines without a GPU. Every build here has the test hooks
#      (-DSPECTRO_TEST_HOOKS=ON, docs/developer.md "Test hooks")
#   2. the Python package: `pip install .` into a virtual environment under build/, then its
#      pytest tests (tests/python/) against the release build's program
#   3. an AddressSanitizer + UndefinedBehaviorSanitizer build, all CPU tests (the fuzz corpus
#      replay, fuzz_replay, among them: tests/fuzz/)
#   4. a ThreadSanitizer build of the ring buffer, pipeline, pool and C API tests and of the binary
#      (file analysis, and a live window restarted by keys)
# SPECTRO_TEST_QUICK=1 runs steps 1 and 2 only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/deps.sh
SPECTRO_DEPS=test spectro_deps
jobs=$(nproc)

step() { printf '\n== %s ==\n' "$*"; }

step "release build"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DSPECTRO_TEST_HOOKS=ON
cmake --build "$root/build" -j"$jobs"
# build/pyenv before ctest: e2e_loudness_ref and e2e_pitch_ref compare with its pyloudnorm
# and librosa
pyenv="$root/build/pyenv"
[ -x "$pyenv/bin/python" ] || python3 -m venv "$pyenv"
"$pyenv/bin/pip" install -q numpy scipy pytest dask distributed pyloudnorm librosa
(cd "$root/build" && ctest --output-on-failure -j"$jobs")

step "Python package (pip install . into build/pyenv, pytest tests/python)"
# The wheel's build directory is kept (build/pywheel), so a second run rebuilds only what
# changed; without a GPU the CUDA backends are left out of it (they only slow the build).
py_cuda=()
nvidia-smi -L >/dev/null 2>&1 || py_cuda=(--config-settings=cmake.define.SPECTRO_CUDA=OFF)
"$pyenv/bin/pip" install -q --config-settings=build-dir="$root/build/pywheel" "${py_cuda[@]}" "$root"
(cd "$root/tests/python" &&
    SPECTRO_BIN="$root/build/spectro" "$pyenv/bin/python" -m pytest -q -p no:cacheprovider .)

if [ "${SPECTRO_TEST_QUICK:-0}" = 1 ]; then
    exit 0
fi

step "ASan + UBSan build (CPU backend)"
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPECTRO_SANITIZE=ON -DSPECTRO_CUDA=OFF \
    -DSPECTRO_TEST_HOOKS=ON >/dev/null
cmake --build "$root/build-asan" -j"$jobs"
# The window's tests drive a real window under Xvfb; side by side under ASan they starve each
# other's frames, so they run one at a time after the rest.
window_tests='^(e2e_window|e2e_window_measure|e2e_window_maxima|e2e_window_xform|e2e_window_signal|e2e_window_pair|e2e_window_exit|e2e_play)$'
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0" \
    ctest --output-on-failure -j"$jobs" -LE gpu -E "$window_tests")
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0" \
    ctest --output-on-failure -j1 -LE gpu -R "$window_tests")

step "ThreadSanitizer build (ring buffer, pipeline, pool, microphone, file decoder threads)"
cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPECTRO_TSAN=ON -DSPECTRO_CUDA=OFF \
    -DSPECTRO_TEST_HOOKS=ON >/dev/null
cmake --build "$root/build-tsan" -j"$jobs" --target test_ring test_analyze test_mic test_par test_source_par test_api spectro
(cd "$root/build-tsan" && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R '^(test_ring|test_analyze|test_mic|test_par|test_source_par|test_api)$')
# the binary's threads together: reader, file decoders (3, small chunks), FFT pool, dump
# writer, picture drawer
tsan_out=$(mktemp -d)
TSAN_OPTIONS=halt_on_error=1 SPECTRO_READERS=3 SPECTRO_READ_CHUNK=1000 "$root/build-tsan/spectro" --quiet \
    --channel all --png "$tsan_out/t.png" --dump "$tsan_out/t.npy" "$root/assets/stereo_1500l_3000r_48k_s16.wav"
echo "ThreadSanitizer: spectro --png --dump --channel all, 3 decoder threads: clean"
# a batch on the cpu backend: several sessions at once, bad files among them, in-order reports
a="$root/assets"
TSAN_OPTIONS=halt_on_error=1 "$root/build-tsan/spectro" --quiet -b cpu --png "$tsan_out/{stem}.png" \
    --dump "$tsan_out/" "$a/stereo_1500l_3000r_48k_s16.wav" "$a/not_audio.wav" "$a/two_tone_48k.flac" \
    "$a/sine_1000hz_48k_f32.wav" "$a/empty.wav" "$a/two_tone_48k_s16.wav" "$a/chirp_100_20k_48k_s16.wav" \
    "$a/eight_channels_48k_s16.wav" 2>"$tsan_out/err" || true
if grep -q "ThreadSanitizer" "$tsan_out/err"; then cat "$tsan_out/err"; exit 1; fi
grep -q "2 of 8 files failed" "$tsan_out/err" || { cat "$tsan_out/err"; exit 1; }
rm -rf "$tsan_out"
echo "ThreadSanitizer: a batch of 8 files on several sessions: clean"
# the window's threads: a live window restarted by keys (w, then n eight times) while its
# analysis runs; reports inside Mesa and libX11 are suppressed (tests/tsan.supp)
py=$(sed -n 's/^SPECTRO_PYTHON:FILEPATH=//p' "$root/build-tsan/CMakeCache.txt") # the tests' Python, with numpy
TSAN_OPTIONS="halt_on_error=1 suppressions=$root/tests/tsan.supp" "$py" "$root/tests/e2e/e2e_window.py" \
    "$root/build-tsan/spectro" "$root/assets" TestWindow.test_live_wheel_burst_and_restart
echo "ThreadSanitizer: live window with restarts: clean"
