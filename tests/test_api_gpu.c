/* test_api_gpu: the public C API on the GPU backends (label gpu; exit 77 without a device).
 * spectro.h and the CUDA runtime's C API only:
 *   - samples in device memory (spectro_analyzer_spectrogram_device) give the spectra the
 *     host path of the same backend gives, byte for byte, for cuda and cufft; many clips in
 *     one call (_device_batch) give each clip's own;
 *   - a stream pushed in random pieces gives the one-shot spectra on the GPU too;
 *   - the device entry is refused, naming why, on the cpu backend, for several channels and
 *     for fewer samples than fft_size. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spectro.h"

int check_failures, check_count;

static uint32_t rng_state = 12345u;

static float frand(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 16777216.0f - 0.5f;
}

static spectro_analyzer *make(const char *backend, int channels, size_t n, size_t hop, spectro_error *err)
{
    spectro_analyzer_config cfg = spectro_analyzer_config_default();
    spectro_analyzer *a = NULL;
    cfg.backend = backend;
    cfg.channels = channels;
    cfg.fft_size = n;
    cfg.hop = hop;
    if (spectro_analyzer_create(&cfg, &a, err) != SPECTRO_OK)
        return NULL;
    return a;
}

/* Device samples = host samples, byte for byte, on one backend and shape. */
static void device_equals_host(const char *backend, size_t n, size_t hop, size_t len)
{
    spectro_error err;
    spectro_analyzer *a = make(backend, 1, n, hop, &err);
    size_t bins = n / 2 + 1, frames;
    float *x = malloc(len * sizeof *x), *host, *dev, *d_x = NULL, *d_db = NULL;
    CHECK_MSG(a != NULL, "%s: %s", backend, err.message);
    if (!a)
        return;
    for (size_t i = 0; i < len; i++)
        x[i] = (float)(0.4 * sin(0.01 * (double)i)) + 0.01f * frand();
    frames = (size_t)spectro_analyzer_frame_count(a, len);
    host = malloc(frames * bins * sizeof *host);
    dev = malloc(frames * bins * sizeof *dev);
    CHECK(cudaMalloc((void **)&d_x, len * sizeof *x) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d_db, frames * bins * sizeof *dev) == cudaSuccess);
    CHECK(cudaMemcpy(d_x, x, len * sizeof *x, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemset(d_db, 0xff, frames * bins * sizeof *dev) == cudaSuccess); /* poisoned */
    CHECK(spectro_analyzer_spectrogram(a, x, len, host, frames, NULL) == SPECTRO_OK);
    CHECK_MSG(spectro_analyzer_spectrogram_device(a, d_x, len, d_db, frames, &err) == SPECTRO_OK, "%s", err.message);
    CHECK(cudaMemcpy(dev, d_db, frames * bins * sizeof *dev, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK_MSG(memcmp(host, dev, frames * bins * sizeof *dev) == 0, "%s n %zu hop %zu len %zu: device != host",
              backend, n, hop, len);
    cudaFree(d_x);
    cudaFree(d_db);
    free(host);
    free(dev);
    free(x);
    spectro_analyzer_destroy(a);
}

/* Clips in one call = each clip on its own, byte for byte. */
static void batch_equals_single(const char *backend)
{
    enum { CLIPS = 37 };
    size_t n = 1024, count = 48000, stride = 48013, bins = n / 2 + 1, frames;
    spectro_error err;
    spectro_analyzer *a = make(backend, 1, n, 0, &err);
    float *x = malloc(CLIPS * stride * sizeof *x), *one, *all, *d_x = NULL, *d_db = NULL;
    for (size_t i = 0; i < CLIPS * stride; i++)
        x[i] = frand();
    frames = (size_t)spectro_analyzer_frame_count(a, count);
    one = malloc(frames * bins * sizeof *one);
    all = malloc(CLIPS * frames * bins * sizeof *all);
    CHECK(cudaMalloc((void **)&d_x, CLIPS * stride * sizeof *x) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d_db, CLIPS * frames * bins * sizeof *all) == cudaSuccess);
    CHECK(cudaMemcpy(d_x, x, CLIPS * stride * sizeof *x, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK_MSG(spectro_analyzer_spectrogram_device_batch(a, d_x, CLIPS, count, stride, d_db, frames, &err) ==
                  SPECTRO_OK, "%s", err.message);
    CHECK(cudaMemcpy(all, d_db, CLIPS * frames * bins * sizeof *all, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (size_t c = 0; c < CLIPS; c += 12) {
        CHECK(spectro_analyzer_spectrogram(a, x + c * stride, count, one, frames, NULL) == SPECTRO_OK);
        CHECK_MSG(memcmp(one, all + c * frames * bins, frames * bins * sizeof *one) == 0, "%s: clip %zu", backend, c);
    }
    CHECK(spectro_analyzer_spectrogram_device_batch(a, d_x, 2, count, count - 1, d_db, frames, &err) ==
          SPECTRO_EINVAL);
    CHECK_MSG(strncmp(err.message, "stride", 6) == 0, "%s", err.message);
    cudaFree(d_x);
    cudaFree(d_db);
    free(x);
    free(one);
    free(all);
    spectro_analyzer_destroy(a);
}

/* A stream in random pieces = one call, on the GPU. */
static void stream_equals_whole(const char *backend)
{
    size_t n = 2048, len = 200000, bins = n / 2 + 1, frames, at = 0, f = 0, ready, got;
    spectro_analyzer *a = make(backend, 2, n, 500, NULL);
    float *x = malloc(2 * len * sizeof *x), *whole, *streamed, *tmp;
    for (size_t i = 0; i < 2 * len; i++)
        x[i] = frand();
    frames = (size_t)spectro_analyzer_frame_count(a, len);
    whole = malloc(frames * bins * sizeof *whole);
    streamed = malloc(frames * bins * sizeof *streamed);
    tmp = malloc(frames * bins * sizeof *tmp);
    CHECK(spectro_analyzer_spectrogram(a, x, len, whole, frames, NULL) == SPECTRO_OK);
    CHECK(spectro_analyzer_reset(a, SPECTRO_OUTPUT_DB, NULL) == SPECTRO_OK);
    while (at < len) {
        size_t piece = 1 + (size_t)((frand() + 0.5f) * 20000.0f);
        if (piece > len - at)
            piece = len - at;
        CHECK(spectro_analyzer_push(a, x + 2 * at, piece, &ready, NULL) == SPECTRO_OK);
        at += piece;
        if (at == len)
            CHECK(spectro_analyzer_finish(a, &ready, NULL) == SPECTRO_OK);
        CHECK(spectro_analyzer_read(a, tmp, ready, &got, NULL) == SPECTRO_OK);
        memcpy(streamed + f * bins, tmp, got * bins * sizeof *tmp);
        f += got;
    }
    CHECK(f == frames);
    CHECK_MSG(memcmp(whole, streamed, frames * bins * sizeof *whole) == 0, "%s: stream != whole", backend);
    free(x);
    free(whole);
    free(streamed);
    free(tmp);
    spectro_analyzer_destroy(a);
}

static void refusals(void)
{
    spectro_error err;
    spectro_analyzer *cpu = make("cpu", 1, 1024, 0, NULL), *two = make("cuda", 2, 1024, 0, NULL),
                     *one = make("cuda", 1, 1024, 0, NULL);
    float *d = NULL, out[513];
    CHECK(cudaMalloc((void **)&d, 4096 * sizeof *d) == cudaSuccess);
    CHECK(spectro_analyzer_spectrogram_device(cpu, d, 4096, d, 4096, &err) == SPECTRO_EUNSUPPORTED);
    CHECK_MSG(strstr(err.message, "cpu") != NULL, "%s", err.message);
    CHECK(spectro_analyzer_spectrogram_device(two, d, 2048, d, 4096, &err) == SPECTRO_EUNSUPPORTED);
    CHECK_MSG(strncmp(err.message, "channels 2", 10) == 0, "%s", err.message);
    CHECK(spectro_analyzer_spectrogram_device(one, d, 1000, d, 4096, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strncmp(err.message, "count 1000", 10) == 0, "%s", err.message);
    CHECK(spectro_analyzer_spectrogram_device(one, d, 4096, d, 2, &err) == SPECTRO_EINVAL);
    (void)out;
    cudaFree(d);
    spectro_analyzer_destroy(cpu);
    spectro_analyzer_destroy(two);
    spectro_analyzer_destroy(one);
}

int main(void)
{
    spectro_error err;
    spectro_analyzer *probe = make("cuda", 1, 1024, 0, &err);
    if (!probe) {
        printf("test_api_gpu: skipped: %s\n", err.message);
        return 77;
    }
    spectro_analyzer_destroy(probe);
    device_equals_host("cuda", 4096, 1024, 48000 * 5);
    device_equals_host("cuda", 1024, 333, 100000);
    device_equals_host("cuda", 65536, 16384, 48000 * 10);
    device_equals_host("cufft", 4096, 1024, 48000 * 5);
    device_equals_host("cufft", 512, 700, 30000);
    batch_equals_single("cuda");
    batch_equals_single("cufft");
    stream_equals_whole("cuda");
    stream_equals_whole("cufft");
    refusals();
    return check_done("test_api_gpu");
}
