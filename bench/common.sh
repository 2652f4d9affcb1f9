# Shared by the shell benchmarks (sourced): timing without bc, machine line.

# best wall time in seconds of BENCH_RUNS (default 3) runs of "$@" (stdin from /dev/null: ffmpeg reads it)
best() {
    local b="" t0 t1
    for _ in $(seq "${BENCH_RUNS:-3}"); do
        t0=$(date +%s.%N)
        "$@" </dev/null >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; return 1; }
        t1=$(date +%s.%N)
        b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { d = z - a; if (b == "" || d < b) b = d; printf "%.3f", b }')
    done
    printf '%s' "$b"
}

# a / b with the given printf format
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.1f}" 'BEGIN { printf f, a / b }'; }

machine_line() {
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
}

# start_xvfb: a virtual screen on the first free display number from :90; sets xpid (the
# caller kills it) and exports DISPLAY. Returns 1 when none started.
start_xvfb() {
    local d
    xpid=""
    for d in $(seq 90 140); do
        [ -e "/tmp/.X$d-lock" ] || [ -e "/tmp/.X11-unix/X$d" ] && continue
        Xvfb ":$d" -screen 0 1920x1080x24 -nolisten tcp -noreset >/dev/null 2>&1 &
        xpid=$!
        sleep 1
        if kill -0 "$xpid" 2>/dev/null; then
            export DISPLAY=":$d"
            return 0
        fi
        xpid=""
    done
    return 1
}

# wall time in seconds of one run of "$@" stopped after $1 seconds; prints "" when stopped
once_within() {
    local limit=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    timeout -s KILL "$limit" "$@" </dev/null >/dev/null 2>&1 || return 0
    t1=$(date +%s.%N)
    awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.3f", z - a }'
}

# make_wav PYTHON PATH SECONDS: a chord with vibrato and some noise, 48 kHz mono 16-bit PCM,
# as a recording would be (the end-to-end benchmarks' input)
make_wav() {
    "$1" - "$2" "$3" <<'PY'
import sys, numpy as np, wave
path, secs = sys.argv[1], int(sys.argv[2])
fs = 48000
with wave.open(path, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(fs)
    rng = np.random.default_rng(1)
    for s in range(secs):
        t = (np.arange(fs) + s * fs) / fs
        x = 0.3 * np.sin(2 * np.pi * 440 * t + 3 * np.sin(2 * np.pi * 5 * t))
        x += 0.2 * np.sin(2 * np.pi * 1320 * t) + 0.01 * rng.standard_normal(fs)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
PY
}

# the first Python with NumPy (pyenv or venv shims may lack it), or SPECTRO_PYTHON
find_python() {
    local c
    if [ -n "${SPECTRO_PYTHON:-}" ]; then printf '%s' "$SPECTRO_PYTHON"; return 0; fi
    for c in /usr/bin/python3 python3; do
        if "$c" -c 'import numpy, scipy' 2>/dev/null; then printf '%s' "$c"; return 0; fi
    done
    return 1
}
