#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages spectro needs to build and test, when any is missing.
# Sourced by scripts/run.sh and scripts/test.sh; needs root or sudo to install.
#   SPECTRO_DEPS=build   only what building needs (default)
#   SPECTRO_DEPS=test    also what the tests need
#   SPECTRO_NO_DEPS=1    install nothing (the caller knows the build's dependencies are there)
#   SPECTRO_DEPS=fuzz    also clang and libFuzzer, for -DSPECTRO_FUZZ=ON (docs/developer.md,
#                        "Fuzzing");
#                        CI does not need them: it replays the fuzz corpus with gcc
spectro_deps() {
    [ "${SPECTRO_NO_DEPS:-0}" = 1 ] && return 0
    local want=(build-essential cmake pkg-config libsndfile1-dev portaudio19-dev libsdl2-dev
                libsdl2-ttf-dev libpng-dev zlib1g-dev libfftw3-dev libasound2-dev fonts-dejavu-core
                libavformat-dev libavcodec-dev libswresample-dev libavutil-dev)
    if [ "${SPECTRO_DEPS:-build}" = test ] || [ "${SPECTRO_DEPS:-build}" = fuzz ]; then
        # python3-venv and python3-dev: the Python package's test (a venv, pip install .)
        want+=(python3 python3-numpy python3-scipy python3-venv python3-dev
               sox libsox-fmt-all xvfb xdotool x11-apps alsa-utils man-db zsh
               desktop-file-utils appstream ffmpeg)
    fi
    if [ "${SPECTRO_DEPS:-build}" = fuzz ]; then
        want+=(clang libclang-rt-dev llvm)
    fi
    local missing=()
    for p in "${want[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "spectro: missing packages: ${missing[*]} (run as root or install them)" >&2
            return 1
        fi
    fi
    echo "spectro: installing ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null
}

# nvcc lives outside PATH in the usual CUDA install
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
fi
