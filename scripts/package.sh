#!/usr/bin/env bash
# Builds spectro's Debian package(s) with CPack and prints their paths:
#   scripts/package.sh [CMAKE_ARGS...]
# in a fresh build directory ($SPECTRO_PACKAGE_DIR, default build-deb) configured for /usr,
# without the tests. The package's Depends come from the libraries the binary links.
# Install it with   sudo apt install ./build-deb/spectro_*.deb   (and ./build-deb/spectro-cuda_*.deb
# for the GPU backends, from a machine with NVIDIA's CUDA repository; ./build-deb/spectro-dev_*.deb
# to build programs against libspectro: spectro.h, spectro_job.h, spectro.pc)
# SPECTRO_JOBS sets the build's parallelism (default: every core).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/deps.sh
spectro_deps
command -v dpkg-shlibdeps >/dev/null 2>&1 ||
    { echo "spectro: dpkg-shlibdeps not found: apt-get install dpkg-dev" >&2; exit 1; }

build="${SPECTRO_PACKAGE_DIR:-$root/build-deb}"
# fresh every time, but never remove a directory that is not a build tree
if [ -e "$build" ]; then
    [ -f "$build/CMakeCache.txt" ] ||
        { echo "spectro: $build exists and is not a build directory; not removing it" >&2; exit 1; }
    rm -rf "$build"
fi
# With nvcc found, a second package spectro-cuda carries the GPU module (the main package
# needs no CUDA runtime); -DSPECTRO_CUDA=OFF makes the main package alone.
mkdir -p "$build"
log="$build/configure.log"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
    -DBUILD_TESTING=OFF -DSPECTRO_TEST_HOOKS=OFF "$@" >"$log" 2>&1 ||
    { cat "$log" >&2; exit 1; }
grep -E '^-- +[^ ].*: (on|off)' "$log" >&2 || true
cmake --build "$build" -j"${SPECTRO_JOBS:-$(nproc)}" --target spectro spectro_shared spectro_docs >/dev/null
(cd "$build" && cpack -G DEB >"$build/cpack.log" 2>&1) || { cat "$build/cpack.log" >&2; exit 1; }
debs=$(find "$build" -maxdepth 1 -name '*.deb' | sort)
[ -n "$debs" ] || { echo "spectro: cpack made no .deb in $build" >&2; exit 1; }
for d in $debs; do
    echo "$d"
done
