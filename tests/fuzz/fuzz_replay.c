/* fuzz_replay: runs the fuzz target once on each file named, and on every file of each
 * directory named (sorted by name, not recursive), without libFuzzer: CI replays the corpus
 * under gcc's AddressSanitizer with it. A sanitizer report or a broken contract aborts;
 * otherwise it prints how many inputs ran and exits 0 (1 when an argument cannot be read
 * or nothing ran).
 *   fuzz_replay tests/fuzz/corpus [more files or directories] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

/* Reads the whole file (malloc'd, exactly its size, so that ASan sees a read past the end). */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc(n > 0 ? (size_t)n : 1)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        *len = (size_t)n;
    fclose(f);
    return buf;
}

static int replay_file(const char *path)
{
    size_t len = 0;
    unsigned char *data = slurp(path, &len);
    if (!data) {
        perror(path);
        return -1;
    }
    printf("Running: %s\n", path); /* as libFuzzer says it: the last line names a crash's input */
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Every regular file of dir; the count run, or -1. */
static int replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, visible, by_name), ran = 0, bad = 0;
    if (n < 0) {
        perror(dir);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            if (replay_file(path) == 0)
                ran++;
            else
                bad = 1;
        }
        free(names[i]);
    }
    free(names);
    return bad ? -1 : ran;
}

int main(int argc, char **argv)
{
    int total = 0, failed = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        int n = stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode) ? replay_dir(argv[i])
                                                                 : (replay_file(argv[i]) == 0 ? 1 : -1);
        if (n < 0)
            failed = 1;
        else
            total += n;
    }
    printf("fuzz_replay: %d inputs replayed\n", total);
    if (total == 0)
        fprintf(stderr, "fuzz_replay: no inputs (is the corpus there?)\n");
    return failed || total == 0;
}
