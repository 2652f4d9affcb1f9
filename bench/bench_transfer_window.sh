# bench_transfer.sh's window mode (BENCH_WINDOW=1), sourced by it: $bin, $args, $tmp, $py,
# $secs, $rate, $n, $hop set there, the input in $tmp/in.wav. The live transfer view on a
# virtual X server for the file's length; its statistics say what it dropped.
command -v Xvfb >/dev/null 2>&1 || { echo "bench_transfer: BENCH_WINDOW needs Xvfb (apt-get install xvfb)" >&2; exit 1; }
start_xvfb || { echo "bench_transfer: Xvfb did not start" >&2; exit 1; }
size=${BENCH_SIZE:-1280x720}
echo "input: ${secs} s, 2 channels, ${rate} Hz; N ${n}, hop ${hop}; the window's transfer view, $size on Xvfb, --realtime"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
SPECTRO_VIEW_STATS="$tmp/stats.json" "$bin" "${args[@]}" --realtime --size "$size" "$tmp/in.wav" 2>"$tmp/err" &
pid=$!
sleep $((secs + 2)) # the file's length and a little: the live run has ended, the window stays
cpu=$(ps -o times= -p "$pid" | tr -d ' ')
load1=$(cut -d' ' -f1-3 /proc/loadavg)
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 130 ] || { echo "bench_transfer: spectro failed (exit $rc): $(cat "$tmp/err")" >&2; exit 1; }
[ -s "$tmp/stats.json" ] || { echo "bench_transfer: $bin wrote no statistics: SPECTRO_VIEW_STATS is a test hook" \
    "(a build with -DSPECTRO_TEST_HOOKS=ON; docs/developer.md \"Test hooks\")" >&2; exit 1; }
"$py" - "$tmp/stats.json" "$tmp/err" "$secs" "$rate" "$n" "$hop" "$cpu" "$load0" "$load1" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read().strip()
secs, rate, n, hop, cpu = (int(a) for a in sys.argv[3:8])
t = s["transfer"]
m = re.search(r"dropped (\d+)", s["status"])
dropped = int(m.group(1)) if m else -1
frames = (secs * rate - n) // hop + 1
print("window (--realtime): dropped %d samples, averages %d of %d; %d plots in %d frames drawn "
      "(%.1f fps, %.2f ms a frame), the feed's lock held by the window at most %.2f ms" % (
          dropped, t["averages"], frames, t["plots"], s["frames_drawn"], s["mean_fps"], s["draw_ms_mean"],
          t["lock_ms_max"]))
print("CPU: %d s for %d s of audio (the whole process); load average %s at the start, %s at the end" % (
    cpu, secs, sys.argv[8], sys.argv[9]))
if err:
    print("its messages:", err)
print("keeps up:", "yes" if dropped == 0 and t["averages"] == frames and "dropped" not in err else "NO")
PY
