/* test_api_gpu: the public C API on the GPU backends (label gpu; exit 77 without a device).
 * spectro.h and the CUDA runtime's C API only:
 *   - samples in device memory (spectro_analyzer_spectrogram_device) give the spectra the
 *     host path of the same backend gives, byte for byte, for cuda and cufft; many clips in
 *     one call (_device_batch) give each clip's own;
 *   - a stream pushed in random pieces gives the one-shot spectra on the GPU too;
 *   - the device entry is refused, naming why, on the cpu backend, for several channels and
 *     for fewer samples than fft_size;
 *   - the asynchronous entries (_device_async, _device_batch_async) give the synchronous
 *     entry's spectra byte for byte on the fused kernel (cuda), the framing + r2c path
 *     (cuda at 65536) and cuFFT, ordered on the caller's stream both ways: a slow memset
 *     then the samples' copy before the call, the result's copy after it, on a user stream,
 *     with nothing waited for in between; two streams at once on one analyzer; the default
 *     stream (NULL) and cudaStreamPerThread; the same refusals as the synchronous entry. */
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

/* The work queued on `st` before the call: a memset of `delay` bytes (long enough that work
 * not ordered after it would start first), then the samples' copy from pinned memory. */
static void queue_input(cudaStream_t st, void *d_delay, size_t delay, float *d_x, const float *h_x, size_t len)
{
    CHECK(cudaMemsetAsync(d_delay, 0x3c, delay, st) == cudaSuccess);
    CHECK(cudaMemcpyAsync(d_x, h_x, len * sizeof *h_x, cudaMemcpyHostToDevice, st) == cudaSuccess);
}

/* _device_batch_async on a user stream, ordered both ways, = the synchronous entry. */
static void async_equals_sync(const char *backend, size_t n, size_t hop, size_t count, size_t clips)
{
    spectro_error err;
    spectro_analyzer *a = make(backend, 1, n, hop, &err);
    size_t bins = n / 2 + 1, frames, len = clips * count, delay = (size_t)512 << 20, out;
    float *h_x = NULL, *h_db = NULL, *want, *d_x = NULL, *d_db = NULL;
    void *d_delay = NULL;
    cudaStream_t st;
    CHECK_MSG(a != NULL, "%s: %s", backend, err.message);
    if (!a)
        return;
    frames = (size_t)spectro_analyzer_frame_count(a, count);
    out = clips * frames * bins;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMallocHost((void **)&h_x, len * sizeof *h_x) == cudaSuccess);
    CHECK(cudaMallocHost((void **)&h_db, out * sizeof *h_db) == cudaSuccess);
    want = malloc(out * sizeof *want);
    CHECK(cudaMalloc((void **)&d_x, len * sizeof *d_x) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d_db, out * sizeof *d_db) == cudaSuccess);
    CHECK(cudaMalloc(&d_delay, delay) == cudaSuccess);
    for (size_t i = 0; i < len; i++)
        h_x[i] = (float)(0.3 * sin(0.003 * (double)i)) + 0.05f * frand();
    CHECK(cudaMemcpy(d_x, h_x, len * sizeof *h_x, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK_MSG(spectro_analyzer_spectrogram_device_batch(a, d_x, clips, count, count, d_db, frames, &err) ==
                  SPECTRO_OK, "%s", err.message);
    CHECK(cudaMemcpy(want, d_db, out * sizeof *want, cudaMemcpyDeviceToHost) == cudaSuccess);
    /* the device holds other samples and poisoned levels; the right ones come on the stream */
    CHECK(cudaMemset(d_x, 0, len * sizeof *d_x) == cudaSuccess);
    CHECK(cudaMemset(d_db, 0xff, out * sizeof *d_db) == cudaSuccess);
    memset(h_db, 0, out * sizeof *h_db);
    queue_input(st, d_delay, delay, d_x, h_x, len);
    if (clips == 1)
        CHECK_MSG(spectro_analyzer_spectrogram_device_async(a, d_x, count, d_db, frames, st, &err) == SPECTRO_OK,
                  "%s", err.message);
    else
        CHECK_MSG(spectro_analyzer_spectrogram_device_batch_async(a, d_x, clips, count, count, d_db, frames, st,
                                                                  &err) == SPECTRO_OK, "%s", err.message);
    CHECK(cudaMemcpyAsync(h_db, d_db, out * sizeof *h_db, cudaMemcpyDeviceToHost, st) == cudaSuccess);
    CHECK(cudaStreamSynchronize(st) == cudaSuccess);
    CHECK_MSG(memcmp(want, h_db, out * sizeof *want) == 0, "%s n %zu clips %zu: async != sync", backend, n, clips);
    cudaFree(d_delay);
    cudaFree(d_x);
    cudaFree(d_db);
    cudaFreeHost(h_x);
    cudaFreeHost(h_db);
    free(want);
    cudaStreamDestroy(st);
    spectro_analyzer_destroy(a);
}

/* One analyzer, two user streams: the first held back by a memset, the second queued at
 * once; each stream's result is its own clip's. */
static void two_streams(const char *backend, size_t n)
{
    spectro_error err;
    spectro_analyzer *a = make(backend, 1, n, 0, &err);
    size_t count = 48000, bins = n / 2 + 1, frames, delay = (size_t)512 << 20;
    float *h_x = NULL, *h_db = NULL, *want, *d_x = NULL, *d_db = NULL;
    void *d_delay = NULL;
    cudaStream_t st[2];
    CHECK_MSG(a != NULL, "%s: %s", backend, err.message);
    if (!a)
        return;
    frames = (size_t)spectro_analyzer_frame_count(a, count);
    CHECK(cudaMallocHost((void **)&h_x, 2 * count * sizeof *h_x) == cudaSuccess);
    CHECK(cudaMallocHost((void **)&h_db, 2 * frames * bins * sizeof *h_db) == cudaSuccess);
    want = malloc(2 * frames * bins * sizeof *want);
    CHECK(cudaMalloc((void **)&d_x, 2 * count * sizeof *d_x) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d_db, 2 * frames * bins * sizeof *d_db) == cudaSuccess);
    CHECK(cudaMalloc(&d_delay, delay) == cudaSuccess);
    for (size_t i = 0; i < 2 * count; i++)
        h_x[i] = frand();
    CHECK(cudaMemcpy(d_x, h_x, 2 * count * sizeof *h_x, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(spectro_analyzer_spectrogram_device_batch(a, d_x, 2, count, count, d_db, frames, NULL) == SPECTRO_OK);
    CHECK(cudaMemcpy(want, d_db, 2 * frames * bins * sizeof *want, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(cudaMemset(d_x, 0, 2 * count * sizeof *d_x) == cudaSuccess);
    CHECK(cudaMemset(d_db, 0xff, 2 * frames * bins * sizeof *d_db) == cudaSuccess);
    for (int s = 0; s < 2; s++)
        CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking) == cudaSuccess);
    queue_input(st[0], d_delay, delay, d_x, h_x, count);
    CHECK(cudaMemcpyAsync(d_x + count, h_x + count, count * sizeof *h_x, cudaMemcpyHostToDevice, st[1]) ==
          cudaSuccess);
    for (int s = 0; s < 2; s++) {
        float *d_out = d_db + (size_t)s * frames * bins;
        CHECK_MSG(spectro_analyzer_spectrogram_device_async(a, d_x + (size_t)s * count, count, d_out, frames, st[s],
                                                            &err) == SPECTRO_OK, "%s", err.message);
        CHECK(cudaMemcpyAsync(h_db + (size_t)s * frames * bins, d_out, frames * bins * sizeof *h_db,
                              cudaMemcpyDeviceToHost, st[s]) == cudaSuccess);
    }
    for (int s = 0; s < 2; s++) {
        CHECK(cudaStreamSynchronize(st[s]) == cudaSuccess);
        CHECK_MSG(memcmp(want + (size_t)s * frames * bins, h_db + (size_t)s * frames * bins,
                         frames * bins * sizeof *want) == 0, "%s n %zu: stream %d's clip differs", backend, n, s);
        cudaStreamDestroy(st[s]);
    }
    cudaFree(d_delay);
    cudaFree(d_x);
    cudaFree(d_db);
    cudaFreeHost(h_x);
    cudaFreeHost(h_db);
    free(want);
    spectro_analyzer_destroy(a);
}

/* The default stream (NULL) and the per-thread one: the spectra as the synchronous entry's;
 * and the refusals, the same as its. */
static void async_default_streams_and_refusals(void)
{
    spectro_error err;
    spectro_analyzer *one = make("cuda", 1, 1024, 0, &err), *cpu = make("cpu", 1, 1024, 0, NULL);
    size_t count = 20000, bins = 513, frames, out;
    float *x = malloc(count * sizeof *x), *want, *got, *d_x = NULL, *d_db = NULL;
    void *streams[2] = {NULL, cudaStreamPerThread};
    if (!one || !cpu || !x)
        return;
    frames = (size_t)spectro_analyzer_frame_count(one, count);
    out = frames * bins;
    want = malloc(out * sizeof *want);
    got = malloc(out * sizeof *got);
    for (size_t i = 0; i < count; i++)
        x[i] = frand();
    CHECK(cudaMalloc((void **)&d_x, count * sizeof *d_x) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d_db, out * sizeof *d_db) == cudaSuccess);
    CHECK(cudaMemcpy(d_x, x, count * sizeof *x, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(spectro_analyzer_spectrogram_device(one, d_x, count, d_db, frames, NULL) == SPECTRO_OK);
    CHECK(cudaMemcpy(want, d_db, out * sizeof *want, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int s = 0; s < 2; s++) {
        CHECK(cudaMemset(d_db, 0xff, out * sizeof *d_db) == cudaSuccess);
        CHECK_MSG(spectro_analyzer_spectrogram_device_async(one, d_x, count, d_db, frames, streams[s], &err) ==
                      SPECTRO_OK, "%s", err.message);
        CHECK(cudaStreamSynchronize((cudaStream_t)streams[s]) == cudaSuccess);
        CHECK(cudaMemcpy(got, d_db, out * sizeof *got, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK_MSG(memcmp(want, got, out * sizeof *want) == 0, "default stream %d: async != sync", s);
    }
    CHECK(spectro_analyzer_spectrogram_device_async(cpu, d_x, count, d_db, frames, NULL, &err) ==
          SPECTRO_EUNSUPPORTED);
    CHECK_MSG(strstr(err.message, "cpu") != NULL, "%s", err.message);
    CHECK(spectro_analyzer_spectrogram_device_async(NULL, d_x, count, d_db, frames, NULL, &err) == SPECTRO_EINVAL);
    CHECK(spectro_analyzer_spectrogram_device_async(one, NULL, count, d_db, frames, NULL, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strstr(err.message, "d_samples") != NULL, "%s", err.message);
    CHECK(spectro_analyzer_spectrogram_device_async(one, d_x, count, NULL, frames, NULL, &err) == SPECTRO_EINVAL);
    CHECK(spectro_analyzer_spectrogram_device_async(one, d_x, 1000, d_db, frames, NULL, &err) == SPECTRO_EINVAL);
    CHECK_MSG(strncmp(err.message, "count 1000", 10) == 0, "%s", err.message);
    CHECK(spectro_analyzer_spectrogram_device_async(one, d_x, count, d_db, frames - 1, NULL, &err) ==
          SPECTRO_EINVAL);
    CHECK(spectro_analyzer_spectrogram_device_batch_async(one, d_x, 2, count, count - 1, d_db, frames, NULL, &err) ==
          SPECTRO_EINVAL);
    CHECK(spectro_analyzer_spectrogram_device_batch_async(one, d_x, 0, count, count, d_db, frames, NULL, &err) ==
          SPECTRO_OK);
    cudaFree(d_x);
    cudaFree(d_db);
    free(x);
    free(want);
    free(got);
    spectro_analyzer_destroy(one);
    spectro_analyzer_destroy(cpu);
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
    async_equals_sync("cuda", 4096, 1024, 48000, 1);     /* the fused kernel */
    async_equals_sync("cuda", 4096, 1024, 48000, 50);    /* the fused kernel over clips */
    async_equals_sync("cuda", 65536, 16384, 480000, 1);  /* framing + r2c + dB, joined */
    async_equals_sync("cufft", 4096, 1024, 48000, 1);
    async_equals_sync("cufft", 2048, 512, 48000, 20);
    two_streams("cuda", 4096);
    two_streams("cufft", 4096);
    async_default_streams_and_refusals();
    return check_done("test_api_gpu");
}
