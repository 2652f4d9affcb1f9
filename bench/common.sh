# Shared by the shell benchmarks (sourced): timing without bc, machine line.

# best wall time in seconds of 3 runs of "$@" (stdin from /dev/null: ffmpeg reads it)
best() {
    local b="" t0 t1
    for _ in 1 2 3; do
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

# wall time in seconds of one run of "$@" stopped after $1 seconds; prints "" when stopped
once_within() {
    local limit=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    timeout -s KILL "$limit" "$@" </dev/null >/dev/null 2>&1 || return 0
    t1=$(date +%s.%N)
    awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.3f", z - a }'
}
