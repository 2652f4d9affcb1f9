#include "colormap.h"

#include <stddef.h>
#include <stdio.h>
#include <strings.h>

#include "colormap_tables.h"

#define GRAY_ID (COLORMAP_TABLE_COUNT - 1)

int colormap_count(void)
{
    return COLORMAP_TABLE_COUNT;
}

const char *colormap_name(int id)
{
    if (id < 0 || id >= COLORMAP_TABLE_COUNT)
        return NULL;
    return colormap_table_names[id];
}

int colormap_parse(const char *name, int *id, sp_errinfo *ei)
{
    char list[256];
    size_t pos = 0;
    if (!id)
        return sp_fail(ei, SP_EINVAL, "colormap_parse: bad arguments");
    for (int i = 0; name && i < COLORMAP_TABLE_COUNT; i++) {
        if (strcasecmp(name, colormap_table_names[i]) == 0) {
            *id = i;
            return SP_OK;
        }
    }
    list[0] = 0;
    for (int i = 0; i < COLORMAP_TABLE_COUNT && pos < sizeof list; i++)
        pos += (size_t)snprintf(list + pos, sizeof list - pos, "%s%s", i ? ", " : "", colormap_table_names[i]);
    return sp_fail(ei, SP_EINVAL, SP_FIELD("colormap") " %s: unknown colour map (use one of: %s)",
                   name ? name : "(null)", list);
}

const uint8_t (*colormap_lut(int id))[3]
{
    if (id < 0 || id >= COLORMAP_TABLE_COUNT)
        return NULL;
    return colormap_tables[id];
}

void colormap_rgb(int id, float t01, uint8_t rgb[3])
{
    const uint8_t(*lut)[3] = colormap_lut(id);
    int i;
    if (!lut)
        lut = colormap_tables[GRAY_ID];
    /* !(t > 0) also catches NaN */
    if (!(t01 > 0.0f))
        i = 0;
    else if (t01 >= 1.0f)
        i = COLORMAP_LUT_SIZE - 1;
    else
        i = (int)(t01 * (COLORMAP_LUT_SIZE - 1) + 0.5f);
    rgb[0] = lut[i][0];
    rgb[1] = lut[i][1];
    rgb[2] = lut[i][2];
}
