/* A big uncompressed file decoded ahead on several threads (issue 16: one thread converting
 * a 60-minute WAV held a GPU run back). Where libsndfile stores every frame in the same
 * number of bytes and converts each sample on its own (PCM, float, double, u-law, A-law in
 * WAV, W64, RF64, AIFF, AU, CAF and raw files), sf_seek is sample-exact and a stretch of the
 * file decodes the same whatever was decoded before it. K decoder threads, each with its own
 * SNDFILE opened on the same file (its own descriptor and offset), take the file's chunks
 * (fixed runs of frames from the start frame on) in turn and decode them into a ring of
 * slots; the reader takes the chunks back in order. A slot is reused once the reader is done
 * with its chunk, so memory is bounded: 2K slots of one chunk each.
 *
 * A chunk that decodes short (the file shrank, a read error) ends the stream after its
 * frames, as the serial read would end there; the error flag of the handle that read it
 * says whether libsndfile saw an error (the serial path's "ended early"). */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source_internal.h"

#define PAR_CHUNK_FLOATS (1u << 19) /* 2 MB a slot: one chunk, all channels */
#define PAR_MAX_CHUNK_FLOATS (1u << 26)

typedef struct {
    float *buf;
    int64_t chunk;    /* the chunk it holds (or is being decoded into it): -1 none */
    size_t frames;    /* frames decoded */
    int ready;        /* decoded; the reader may take it */
    int short_read;   /* fewer frames than the chunk spans */
    int sf_failed;    /* ... and libsndfile reported an error */
    uint64_t clamped; /* samples beyond float's range (file_readf) */
} par_slot;

typedef struct par_decoder par_decoder;

struct file_par {
    int k, started, channels, nslots, format;
    int64_t start, total; /* the first frame decoded, the frames in the file */
    int64_t chunk_frames, nchunks;
    par_slot *slots;
    par_decoder *dec;

    pthread_mutex_t mu;
    pthread_cond_t ready; /* a slot was decoded */
    pthread_cond_t space; /* the reader let a slot go, or quit */
    int64_t next_assign;  /* the next chunk a decoder takes */
    int64_t next_take;    /* the chunk the reader reads from */
    int64_t limit;        /* chunks worth decoding: nchunks, or up to a short one */
    int quit;

    /* the reader's own (no lock): where it is in chunk next_take */
    size_t off;
    int have; /* slot of next_take acquired */
    int ended;
};

struct par_decoder {
    file_par *p;
    SNDFILE *sf;
    pthread_t thread;
};

sf_count_t file_readf(SNDFILE *sf, int format, int channels, float *dst, sf_count_t frames, uint64_t *clamped)
{
    enum { SCRATCH_DOUBLES = 4096 }; /* 32 KB of stack, a step's doubles */
    double buf[SCRATCH_DOUBLES];
    sf_count_t done = 0, step = SCRATCH_DOUBLES / (channels > 0 ? channels : 1), got = 0;
    if ((format & SF_FORMAT_SUBMASK) != SF_FORMAT_DOUBLE || step < 1)
        return sf_readf_float(sf, dst, frames);
    while (done < frames) {
        sf_count_t want = frames - done < step ? frames - done : step;
        float *out = dst + (size_t)done * (size_t)channels;
        if ((got = sf_readf_double(sf, buf, want)) <= 0)
            break;
        for (size_t i = 0; i < (size_t)got * (size_t)channels; i++) {
            double v = buf[i];
            /* NaN and the infinities stay as they are: source_read counts and zeroes them */
            if (isfinite(v) && fabs(v) > FLT_MAX) {
                out[i] = v > 0 ? FLT_MAX : -FLT_MAX;
                (*clamped)++;
            } else {
                out[i] = (float)v;
            }
        }
        done += got;
        if (got < want)
            break;
    }
    return done > 0 ? done : got;
}

int file_par_eligible(int format)
{
    switch (format & SF_FORMAT_TYPEMASK) {
    case SF_FORMAT_WAV: case SF_FORMAT_WAVEX: case SF_FORMAT_W64: case SF_FORMAT_RF64:
    case SF_FORMAT_AIFF: case SF_FORMAT_AU: case SF_FORMAT_CAF: case SF_FORMAT_RAW:
        break;
    default:
        return 0;
    }
    switch (format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8: case SF_FORMAT_PCM_U8: case SF_FORMAT_PCM_16: case SF_FORMAT_PCM_24:
    case SF_FORMAT_PCM_32: case SF_FORMAT_FLOAT: case SF_FORMAT_DOUBLE: case SF_FORMAT_ULAW:
    case SF_FORMAT_ALAW:
        return 1;
    default:
        return 0;
    }
}

int file_par_threads(int readers, long cpus)
{
    if (readers > 0)
        return readers;
    /* half the cores, the other half for the FFT; more than 4 gains little (one reader
     * thread still copies every sample out) */
    cpus /= 2;
    return cpus < 1 ? 1 : cpus > 4 ? 4 : (int)cpus;
}

/* Chunk c into its slot; the slot is the decoder's until ready is set. */
static void decode_chunk(par_decoder *d, int64_t c)
{
    file_par *p = d->p;
    par_slot *s = &p->slots[c % p->nslots];
    int64_t first = p->start + c * p->chunk_frames;
    int64_t want = p->total - first < p->chunk_frames ? p->total - first : p->chunk_frames;
    sf_count_t n = 0, got;
    uint64_t clamped = 0;

    if (sf_seek(d->sf, (sf_count_t)first, SEEK_SET) == (sf_count_t)first) {
        while (n < want && (got = file_readf(d->sf, p->format, p->channels, s->buf + (size_t)n * (size_t)p->channels,
                                             (sf_count_t)(want - n), &clamped)) > 0)
            n += got;
    }
    pthread_mutex_lock(&p->mu);
    s->frames = (size_t)n;
    s->clamped = clamped;
    s->short_read = n < want;
    s->sf_failed = n < want && sf_error(d->sf) != SF_ERR_NO_ERROR;
    s->ready = 1;
    if (s->short_read && p->limit > c + 1)
        p->limit = c + 1; /* the stream ends in this chunk: what lies after is not read */
    pthread_cond_broadcast(&p->ready);
    pthread_mutex_unlock(&p->mu);
}

static void *decoder_main(void *arg)
{
    par_decoder *d = arg;
    file_par *p = d->p;
    for (;;) {
        int64_t c;
        pthread_mutex_lock(&p->mu);
        while (!p->quit && p->next_assign < p->limit && p->next_assign >= p->next_take + p->nslots)
            pthread_cond_wait(&p->space, &p->mu);
        if (p->quit || p->next_assign >= p->limit) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        c = p->next_assign++;
        p->slots[c % p->nslots].chunk = c;
        pthread_mutex_unlock(&p->mu);
        decode_chunk(d, c);
    }
    return NULL;
}

/* Stops the decoders (the first `started` of them run), closes the handles, frees p. */
static void par_free(file_par *p, int started)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->space);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < started; i++)
        pthread_join(p->dec[i].thread, NULL);
    for (int i = 0; p->dec && i < p->k; i++)
        if (p->dec[i].sf)
            sf_close(p->dec[i].sf);
    for (int i = 0; p->slots && i < p->nslots; i++)
        free(p->slots[i].buf);
    free(p->slots);
    free(p->dec);
    pthread_cond_destroy(&p->ready);
    pthread_cond_destroy(&p->space);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* The same file as when it was opened, and the same stream: a handle that disagrees would
 * not decode the frames the serial path reads. */
static SNDFILE *reopen(const char *path, const struct stat *was, const SF_INFO *in)
{
    struct stat now;
    SF_INFO info;
    SNDFILE *sf;
    if (stat(path, &now) != 0 || now.st_dev != was->st_dev || now.st_ino != was->st_ino ||
        now.st_size != was->st_size || now.st_mtime != was->st_mtime)
        return NULL;
    info = *in; /* raw samples: the format, rate and channels go in */
    if ((in->format & SF_FORMAT_TYPEMASK) != SF_FORMAT_RAW)
        memset(&info, 0, sizeof info);
    if (!(sf = sf_open(path, SFM_READ, &info)))
        return NULL;
    if (info.frames != in->frames || info.channels != in->channels || info.format != in->format ||
        info.samplerate != in->samplerate) {
        sf_close(sf);
        return NULL;
    }
    return sf;
}

file_par *file_par_start(const char *path, const struct stat *sb, const SF_INFO *in, int64_t start,
                         int threads, int64_t chunk_frames)
{
    file_par *p;
    int started = 0;
    if (threads < 1 || start < 0 || start >= in->frames || in->channels < 1)
        return NULL;
    if (chunk_frames < 1)
        chunk_frames = (int64_t)(PAR_CHUNK_FLOATS / (unsigned)in->channels);
    if (chunk_frames < 1)
        chunk_frames = 1;
    if (chunk_frames > (int64_t)(PAR_MAX_CHUNK_FLOATS / (unsigned)in->channels))
        chunk_frames = (int64_t)(PAR_MAX_CHUNK_FLOATS / (unsigned)in->channels);
    if (chunk_frames < 1 || !(p = calloc(1, sizeof *p)))
        return NULL;
    p->k = threads;
    p->channels = in->channels;
    p->format = in->format;
    p->start = start;
    p->total = in->frames;
    p->chunk_frames = chunk_frames;
    p->nchunks = (in->frames - start + chunk_frames - 1) / chunk_frames;
    p->limit = p->nchunks;
    p->nslots = 2 * threads;
    if (p->nslots > p->nchunks)
        p->nslots = (int)p->nchunks;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->ready, NULL);
    pthread_cond_init(&p->space, NULL);
    if (!(p->slots = calloc((size_t)p->nslots, sizeof *p->slots)) || !(p->dec = calloc((size_t)p->k, sizeof *p->dec)))
        goto fail;
    for (int i = 0; i < p->nslots; i++) {
        p->slots[i].chunk = -1;
        if (!(p->slots[i].buf = malloc((size_t)chunk_frames * (size_t)in->channels * sizeof(float))))
            goto fail;
    }
    for (int i = 0; i < p->k; i++) {
        p->dec[i].p = p;
        if (!(p->dec[i].sf = reopen(path, sb, in)))
            goto fail;
    }
    for (; started < p->k; started++)
        if (pthread_create(&p->dec[started].thread, NULL, decoder_main, &p->dec[started]) != 0)
            break;
    if (started == 0)
        goto fail;
    p->started = started;
    return p;

fail:
    par_free(p, started);
    return NULL;
}

size_t file_par_read(file_par *p, float *dst, size_t max_frames, int *sf_failed, uint64_t *clamped)
{
    size_t n = 0;
    while (!p->ended && max_frames > 0) {
        par_slot *s = &p->slots[p->next_take % p->nslots];
        if (!p->have) {
            pthread_mutex_lock(&p->mu);
            while (!(s->ready && s->chunk == p->next_take))
                pthread_cond_wait(&p->ready, &p->mu);
            pthread_mutex_unlock(&p->mu);
            p->have = 1;
            p->off = 0;
            *clamped += s->clamped;
        }
        n = s->frames - p->off < max_frames ? s->frames - p->off : max_frames;
        memcpy(dst, s->buf + p->off * (size_t)p->channels, n * (size_t)p->channels * sizeof *dst);
        p->off += n;
        if (p->off < s->frames)
            break;
        /* the chunk is done: its slot goes back to the decoders */
        if (s->short_read) {
            p->ended = 1;
            *sf_failed = s->sf_failed;
        }
        pthread_mutex_lock(&p->mu);
        s->ready = 0;
        s->chunk = -1;
        p->next_take++;
        if (p->next_take >= p->nchunks)
            p->ended = 1;
        pthread_cond_broadcast(&p->space);
        pthread_mutex_unlock(&p->mu);
        p->have = 0;
        if (n > 0)
            break;
    }
    return n;
}

void file_par_close(file_par *p)
{
    if (p)
        par_free(p, p->started);
}
