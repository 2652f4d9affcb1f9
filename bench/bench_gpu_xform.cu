/* bench_gpu_xform: the transforms on the GPU (docs/transforms.md "Where it runs"), issue 29's
 * device targets: one hour of 48 kHz audio, device-resident, N 4096, hop 1024, hann:
 *   mel 128 + dB     target <= 2 ms
 *   MFCC 20          target <= 2.5 ms (of the 128 mel bands)
 *   chroma           (no target; for the table)
 *   CQT 84           12 bins an octave from C1 (to B7), N 32768 (C1's kernel needs it),
 *                    target >= 10x the torch peer (bench_gpu_xform_torch.py --cqt)
 *   reassigned       three transforms a frame (h, t h, dh/dt), rows of 3 x 2049 (no target)
 * Each through the library's own path: xform_create, xform_use_plan on a cuda fft_plan,
 * xform_rows_device (the fused short-time power kernel, then the filter-bank kernel, a
 * sub-batch of `chunk` frames at a time on the plan's two streams; the CQT: its decimators
 * over the hour, then its rows, gpu/gpu_cqt.cu). Times are host wall
 * clock around the call (it returns once the rows are written), the median of warm runs.
 * A check: the first 512 frames' rows against the same transform on the host (the cpu
 * path's rows), largest difference printed (reassigned: of the levels; its frequencies and
 * times in weak bins carry the FFTs' rounding magnified). The torch peers run in the same call from
 * bench/bench_gpu_xform_torch.py.
 *
 * usage: bench_gpu_xform [reps (default 15)] [chunk frames (default 2048)] */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "err.h"
#include "fft.h"
#include "window.h"
#include "xform.h"

#define RATE 48000.0
#define HOP 1024
#define NMAX 32768
#define CHECK_FRAMES 512

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Values in [-0.5, 0.5) from a per-element hash. */
__global__ void fill_kernel(float *d, size_t count)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    uint32_t h = (uint32_t)t * 2654435761u ^ 0x29u ^ (uint32_t)(t >> 32);
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    d[t] = (float)(h >> 8) * (1.0f / 16777216.0f) - 0.5f;
}

typedef struct {
    const char *name;
    xform_spec spec;
    size_t n;
    double target_ms; /* 0: none */
} job;

/* One transform: its median time over reps, and the check against the host's rows. */
static int bench_one(const job *j, const float *d_sig, const float *h_sig, size_t nsamp, int reps, size_t chunk)
{
    const size_t N = j->n, nframes = (nsamp - N) / HOP + 1;
    std::vector<float> win(N);
    window_spec ws = window_spec_default();
    double wsum;
    fft_config fc = fft_config_default();
    fft_plan *plan = NULL;
    xform *xg = NULL, *xh = NULL;
    float *d_rows = NULL;
    sp_errinfo ei = {};
    std::vector<double> ms;
    int rc = 1;
    window_fill(&ws, N, win.data(), &wsum);
    fc.backend = FFT_BACKEND_CUDA;
    fc.n = N;
    fc.hop = HOP;
    fc.window = win.data();
    fc.max_batch = 2 * chunk;
    if (fft_plan_create(&fc, &plan, &ei) != SP_OK || xform_create(&j->spec, N, RATE, win.data(), &xg, &ei) != SP_OK ||
        xform_create(&j->spec, N, RATE, win.data(), &xh, &ei) != SP_OK) {
        fprintf(stderr, "bench_gpu_xform: %s: %s\n", j->name, ei.msg);
        goto done;
    }
    if (xform_use_plan(xg, plan, HOP, &ei) != 1) {
        fprintf(stderr, "bench_gpu_xform: %s: not on the GPU (%s)\n", j->name, ei.msg);
        goto done;
    }
    {
        size_t width = xform_width(xg);
        std::vector<float> got(CHECK_FRAMES * width), ref(CHECK_FRAMES * width);
        double worst = 0.0;
        if (cudaMalloc((void **)&d_rows, nframes * width * sizeof(float)) != cudaSuccess) {
            fprintf(stderr, "bench_gpu_xform: no device memory for the rows\n");
            goto done;
        }
        for (int r = -2; r < reps; r++) { /* two warm-up runs */
            double t0 = now_ms();
            if (xform_rows_device(xg, d_sig, nframes, d_rows) != SP_OK) {
                fprintf(stderr, "bench_gpu_xform: %s: %s\n", j->name, xform_error(xg));
                goto done;
            }
            if (r >= 0)
                ms.push_back(now_ms() - t0);
        }
        std::sort(ms.begin(), ms.end());
        cudaMemcpy(got.data(), d_rows, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
        /* frame times 0: the device's reassigned times are offsets from them */
        xform_rows(xh, h_sig, HOP, CHECK_FRAMES, 0.0, 0.0, ref.data());
        const size_t step = j->spec.kind == XFORM_REASSIGN ? 3 : 1; /* reassigned: the levels */
        for (size_t i = step - 1; i < got.size(); i += step)
            worst = std::max(worst, (double)fabsf(got[i] - ref[i]));
        printf("%-12s N %-5zu %6zu x %-4zu  %8.3f ms  (min %.3f)  target %s%-5.4g %s   vs host rows: max |diff| %.3g\n",
               j->name, N, nframes, width, ms[ms.size() / 2], ms[0], j->target_ms > 0 ? "<= " : "",
               j->target_ms > 0 ? j->target_ms : 0.0,
               j->target_ms <= 0 ? "" : ms[ms.size() / 2] <= j->target_ms ? "met" : "MISSED", worst);
        rc = 0;
    }
done:
    cudaFree(d_rows);
    xform_destroy(xg);
    xform_destroy(xh);
    fft_plan_destroy(plan);
    return rc;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    size_t chunk = argc > 2 ? (size_t)atol(argv[2]) : 2048;
    size_t nsamp = (size_t)(3600 * RATE);
    float *d_sig = NULL;
    std::vector<float> h_sig((CHECK_FRAMES - 1) * HOP + NMAX);
    cudaDeviceProp prop;
    int rc = 0;
    char date[32];
    time_t tt = time(NULL);
    if (reps < 1 || chunk < 1) {
        fprintf(stderr, "usage: bench_gpu_xform [reps >= 1] [chunk frames >= 1]\n");
        return 2;
    }
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || cudaMalloc((void **)&d_sig, nsamp * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "bench_gpu_xform: no usable GPU\n");
        return 1;
    }
    fill_kernel<<<(unsigned)((nsamp + 255) / 256), 256>>>(d_sig, nsamp);
    cudaMemcpy(h_sig.data(), d_sig, h_sig.size() * sizeof(float), cudaMemcpyDeviceToHost);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&tt));
    printf("bench_gpu_xform: %s, %s; 1 h of 48 kHz device-resident, hop %d, hann (cqt: its kernels), "
           "host sub-batches of %zu frames, median of %d\n",
           prop.name, date, HOP, chunk, reps);
    job jobs[5];
    for (int i = 0; i < 5; i++) {
        jobs[i].spec = xform_spec_default();
        jobs[i].n = 4096;
    }
    jobs[0].name = "mel 128 dB";
    jobs[0].spec.kind = XFORM_MEL;
    jobs[0].spec.bands = 128;
    jobs[0].target_ms = 2.0;
    jobs[1].name = "mfcc 20";
    jobs[1].spec.kind = XFORM_MFCC;
    jobs[1].spec.coeffs = 20;
    jobs[1].target_ms = 2.5;
    jobs[2].name = "chroma";
    jobs[2].spec.kind = XFORM_CHROMA;
    jobs[2].target_ms = 0;
    jobs[3].name = "cqt 84";
    jobs[3].spec.kind = XFORM_CQT;
    jobs[3].spec.bands = 12;
    jobs[3].spec.fmax = 3952.0; /* B7: 7 octaves from C1 */
    jobs[3].n = NMAX;
    jobs[3].target_ms = 0; /* 10x the torch peer's: bench_gpu_xform_torch.py --cqt */
    jobs[4].name = "reassigned";
    jobs[4].spec.kind = XFORM_REASSIGN;
    jobs[4].target_ms = 0;
    for (int i = 0; i < 5; i++)
        rc |= bench_one(&jobs[i], d_sig, h_sig.data(), nsamp, reps, chunk);
    cudaFree(d_sig);
    return rc;
}
