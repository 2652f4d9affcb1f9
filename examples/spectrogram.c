/* spectrogram: the loudest frequency of every frame of an audio file, through libspectro.
 *
 *   cc examples/spectrogram.c $(pkg-config --cflags --libs spectro) -o spectrogram
 *   ./spectrogram song.wav
 *
 * prints one line per frame, time_s<TAB>peak_hz<TAB>peak_db, the lines `spectro --peaks
 * song.wav` prints (N 4096, hop 1024, hann, the channels' mean). The file is read and
 * analysed a block at a time: memory stays bounded whatever the file's length. */
#include <stdio.h>
#include <stdlib.h>

#include <spectro.h>

#define BLOCK 65536 /* frames read and pushed at a time */

static int fail(const char *what, const spectro_error *err)
{
    fprintf(stderr, "spectrogram: %s: %s\n", what, err->message[0] ? err->message : spectro_strerror(err->code));
    return 1;
}

/* Prints the peaks of the frames waiting in the analyzer, of a stream of `pushed` samples so
 * far (a stream shorter than N gives its one frame, at its samples' centre, at the end). */
static int print_ready(spectro_analyzer *a, size_t ready, size_t bins, uint64_t pushed, spectro_error *err)
{
    float *db = malloc((ready ? ready : 1) * bins * sizeof *db);
    spectro_peak *pk = malloc((ready ? ready : 1) * sizeof *pk);
    uint64_t first = spectro_analyzer_position(a);
    size_t got = 0;
    int rc = db && pk ? SPECTRO_OK : SPECTRO_ENOMEM;
    if (rc == SPECTRO_OK && (rc = spectro_analyzer_read(a, db, ready, &got, err)) == SPECTRO_OK)
        rc = spectro_analyzer_peaks(a, db, got, 0, 0, pk, err);
    for (size_t i = 0; rc == SPECTRO_OK && i < got; i++)
        printf("%.6f\t%.3f\t%.2f\n", spectro_analyzer_input_frame_time(a, pushed, first + i), pk[i].freq_hz,
               pk[i].db);
    free(db);
    free(pk);
    return rc;
}

int main(int argc, char **argv)
{
    spectro_source *src = NULL;
    spectro_analyzer *a = NULL;
    spectro_source_info info;
    spectro_analyzer_info ai;
    spectro_analyzer_config cfg = spectro_analyzer_config_default();
    spectro_error err = {0, ""};
    float *block;
    size_t got, ready;
    uint64_t pushed = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: spectrogram FILE\n");
        return 2;
    }
    if (spectro_source_open(argv[1], NULL, &src, &err) != SPECTRO_OK)
        return fail(argv[1], &err);
    info.size = sizeof info;
    spectro_source_get_info(src, &info);
    cfg.sample_rate = info.sample_rate;
    cfg.channels = info.channels;
    cfg.expected_samples = info.length > 0 ? (uint64_t)info.length : 0;
    if (spectro_analyzer_create(&cfg, &a, &err) != SPECTRO_OK)
        return fail("analyzer", &err);
    ai.size = sizeof ai;
    spectro_analyzer_get_info(a, &ai);
    if (!(block = malloc((size_t)BLOCK * (size_t)info.channels * sizeof *block)))
        return 1;
    do {
        if (spectro_source_read(src, block, BLOCK, &got, &err) != SPECTRO_OK)
            return fail(argv[1], &err);
        pushed += got;
        if ((got ? spectro_analyzer_push(a, block, got, &ready, &err) : spectro_analyzer_finish(a, &ready, &err)) !=
                SPECTRO_OK ||
            print_ready(a, ready, ai.bins, pushed, &err) != SPECTRO_OK)
            return fail(argv[1], &err);
    } while (got > 0);
    free(block);
    spectro_analyzer_destroy(a);
    spectro_source_close(src);
    return fflush(stdout) == 0 ? 0 : 1;
}
