#include "sink_table.h"

#include <string.h>

static int path_is_dash(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

static int always(const char *path)
{
    (void)path;
    return 1;
}

static int never(const char *path)
{
    (void)path;
    return 0;
}

/* The order is the order of the calls (sink_table.h): the dump first, so it finishes last. */
static const sink_kind KINDS[] = {
    {.name = "dump", .option = "--dump", .create = sink_dump_create, .writes_stdout = path_is_dash,
     .writes_spectra = 1},
    {.name = "average", .option = "--dump", .create = sink_average_create, .writes_stdout = path_is_dash},
    {.name = "bands", .option = "--dump", .create = sink_bands_create, .writes_stdout = path_is_dash},
    {.name = "png", .option = "--png", .create = sink_png_create, .writes_stdout = never, .reduces = 1},
    {.name = "average-png", .option = "--png", .create = sink_average_png_create, .writes_stdout = never},
    {.name = "peaks", .option = "--peaks", .create = sink_peaks_create, .writes_stdout = always, .reduces = 1},
    {.name = "tone", .option = "--tone", .create = sink_tone_create, .writes_stdout = always},
};

sink_measure sink_measure_default(void)
{
    sink_measure m;
    memset(&m, 0, sizeof m);
    m.average = MEASURE_MEAN;
    m.band_lo = -1.0;
    m.band_hi = -1.0;
    return m;
}

int sink_kind_count(void)
{
    return (int)(sizeof KINDS / sizeof KINDS[0]);
}

const sink_kind *sink_kind_at(int i)
{
    return i >= 0 && i < sink_kind_count() ? &KINDS[i] : NULL;
}

const sink_kind *sink_kind_find(const char *name)
{
    for (int i = 0; name && i < sink_kind_count(); i++)
        if (strcmp(KINDS[i].name, name) == 0)
            return &KINDS[i];
    return NULL;
}

void sink_destroy(sink *s)
{
    if (s && s->ops && s->ops->destroy)
        s->ops->destroy(s->self);
    if (s)
        s->ops = NULL;
}
