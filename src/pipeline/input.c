#include <stdlib.h>

#include "clock.h"
#include "pipeline_internal.h"

#define READ_BLOCK_FLOATS (1u << 16) /* one source_read, all channels */

/* --realtime: one block, at the pace of the audio; what the ring cannot take is dropped,
 * as a device's samples would be. 0 at the end of the input or on an error. */
static int read_paced(pipe_reader *rd, float *buf, size_t block, uint64_t *sent, double t0)
{
    size_t got = 0, total, room, off;
    rd->err = source_read(rd->src, buf, block, &got, &rd->ei);
    if (rd->err != SP_OK || got == 0)
        return 0;
    total = got * (size_t)rd->channels;
    sp_sleep(t0 + (double)*sent / rd->rate - sp_now());
    *sent += got;
    room = ring_writable(rd->r);
    room -= room % (size_t)rd->channels; /* whole frames only: channels stay aligned */
    off = ring_write(rd->r, buf, total < room ? total : room);
    if (off < total)
        atomic_fetch_add(&rd->dropped, (total - off) / (size_t)rd->channels);
    return 1;
}

/* A file: up to a block decoded straight into the ring where whole frames fit in one piece
 * (one copy of every sample fewer than through buf); a frame across the storage's wrap goes
 * through buf. A full ring waits: files never drop samples. 0 at the end of the input, on an
 * error or a stop. */
static int read_file(pipe_reader *rd, float *buf, size_t block)
{
    size_t got = 0, off = 0, total, ch = (size_t)rd->channels;
    float *dst;
    size_t frames = ring_space(rd->r, &dst) / ch;
    if (frames > 0) {
        rd->err = source_read(rd->src, dst, frames < block ? frames : block, &got, &rd->ei);
        if (rd->err != SP_OK || got == 0)
            return 0;
        ring_commit(rd->r, got * ch);
        return 1;
    }
    while (ring_writable(rd->r) < ch) {
        if (atomic_load(&rd->quit) || (rd->stop && atomic_load(rd->stop)))
            return 0;
        sp_sleep(100e-6);
    }
    if (ring_space(rd->r, &dst) >= ch)
        return 1; /* the consumer freed the start meanwhile */
    rd->err = source_read(rd->src, buf, 1, &got, &rd->ei);
    if (rd->err != SP_OK || got == 0)
        return 0;
    for (total = got * ch; off < total;)
        off += ring_write(rd->r, buf + off, total - off); /* fits: writable >= ch */
    return 1;
}

static void *reader_main(void *arg)
{
    pipe_reader *rd = arg;
    size_t block = READ_BLOCK_FLOATS / (size_t)rd->channels;
    float *buf;
    uint64_t sent = 0;
    double t0 = sp_now();
    if (rd->paced && block > (size_t)(rd->rate / 100) + 1)
        block = (size_t)(rd->rate / 100) + 1; /* 10 ms pieces, as an audio device delivers */
    if (block < 1)
        block = 1;
    buf = malloc(block * (size_t)rd->channels * sizeof *buf);
    rd->err = buf ? SP_OK : sp_fail(&rd->ei, SP_ENOMEM, "out of memory for the read buffer");
    while (rd->err == SP_OK && !atomic_load(&rd->quit))
        if (!(rd->paced ? read_paced(rd, buf, block, &sent, t0) : read_file(rd, buf, block)))
            break;
    free(buf);
    atomic_store_explicit(&rd->done, 1, memory_order_release);
    return NULL;
}

int pipe_input_start(pipe_input *in, source *src, ring *r, int paced, atomic_int *stop, sp_errinfo *ei)
{
    const source_info *info = source_get_info(src);
    int err;
    in->src = src;
    if (source_is_push(src)) {
        if ((err = source_start(src, r, ei)) != SP_OK)
            return err;
        in->pushing = 1;
        return SP_OK;
    }
    in->rd.src = src;
    in->rd.r = r;
    in->rd.channels = info->channels;
    in->rd.paced = paced;
    in->rd.rate = info->rate;
    in->rd.stop = stop;
    if (pthread_create(&in->thread, NULL, reader_main, &in->rd) != 0)
        return sp_fail(ei, SP_ENOMEM, "cannot start the reader thread");
    in->reading = 1;
    return SP_OK;
}

int pipe_input_finished(pipe_input *in)
{
    return in->pushing ? 0 : atomic_load_explicit(&in->rd.done, memory_order_acquire);
}

uint64_t pipe_input_dropped(pipe_input *in)
{
    return atomic_load(&in->rd.dropped);
}

int pipe_input_status(pipe_input *in, sp_errinfo *ei)
{
    return in->pushing ? source_status(in->src, ei) : SP_OK;
}

int pipe_input_stop(pipe_input *in, sp_errinfo *ei)
{
    int err = SP_OK;
    if (in->pushing) {
        source_stop(in->src);
        in->pushing = 0;
    }
    if (in->reading) {
        atomic_store(&in->rd.quit, 1);
        pthread_join(in->thread, NULL);
        in->reading = 0;
        if ((err = in->rd.err) != SP_OK && ei)
            *ei = in->rd.ei;
    }
    return err;
}
