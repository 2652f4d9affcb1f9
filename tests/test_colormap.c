/* test_colormap: names, parsing, the published end points, clamping. */
#include <string.h>

#include "check.h"
#include "colormap.h"

int main(void)
{
    sp_errinfo ei;
    int id = -1;
    uint8_t rgb[3];
    const uint8_t(*lut)[3];

    CHECK(colormap_count() == 7);
    CHECK(colormap_parse("viridis", &id, &ei) == SP_OK && id == COLORMAP_VIRIDIS);
    for (int i = 0; i < colormap_count(); i++) {
        CHECK(colormap_parse(colormap_name(i), &id, &ei) == SP_OK && id == i);
        CHECK(colormap_lut(i) != NULL);
    }
    CHECK(colormap_parse("MAGMA", &id, &ei) == SP_OK && strcmp(colormap_name(id), "magma") == 0);
    ei.msg[0] = 0;
    CHECK(colormap_parse("jet", &id, &ei) == SP_EINVAL);
    CHECK(strstr(ei.msg, "jet") && strstr(ei.msg, "viridis") && strstr(ei.msg, "cividis") && strstr(ei.msg, "gray"));
    CHECK(colormap_parse(NULL, &id, &ei) == SP_EINVAL);
    CHECK(colormap_name(-1) == NULL && colormap_name(7) == NULL && colormap_lut(99) == NULL);

    /* matplotlib's end points, rounded to 8 bits: viridis #440154 .. #fde725 */
    lut = colormap_lut(COLORMAP_VIRIDIS);
    CHECK(lut[0][0] == 68 && lut[0][1] == 1 && lut[0][2] == 84);
    CHECK(lut[255][0] == 253 && lut[255][1] == 231 && lut[255][2] == 37);
    /* magma runs from near black to near white, inferno ends in yellow */
    colormap_parse("magma", &id, &ei);
    colormap_rgb(id, 0.0f, rgb);
    CHECK(rgb[0] < 5 && rgb[1] < 5 && rgb[2] < 10);
    colormap_rgb(id, 1.0f, rgb);
    CHECK(rgb[0] > 245 && rgb[1] > 245 && rgb[2] > 180);
    colormap_parse("gray", &id, &ei);
    for (int i = 0; i < 256; i++)
        CHECK(colormap_lut(id)[i][0] == i && colormap_lut(id)[i][2] == i);
    colormap_rgb(id, 0.5f, rgb);
    CHECK(rgb[0] == 128);
    colormap_rgb(id, -3.0f, rgb);
    CHECK(rgb[0] == 0);
    colormap_rgb(id, 7.0f, rgb);
    CHECK(rgb[0] == 255);
    colormap_rgb(id, NAN, rgb);
    CHECK(rgb[0] == 0);
    /* every sequential map runs from dark to light in luminance (perceptual maps are
     * monotonic); the diverging rdbu runs dark blue, white, dark red: ColorBrewer's ends */
    for (int m = 0; m < colormap_count(); m++) {
        const uint8_t(*l)[3] = colormap_lut(m);
        double y0 = 0.2126 * l[0][0] + 0.7152 * l[0][1] + 0.0722 * l[0][2];
        double y1 = 0.2126 * l[255][0] + 0.7152 * l[255][1] + 0.0722 * l[255][2];
        double ym = 0.2126 * l[128][0] + 0.7152 * l[128][1] + 0.0722 * l[128][2];
        if (strcmp(colormap_name(m), "rdbu") == 0)
            CHECK(l[0][0] == 0x05 && l[0][2] == 0x61 && l[255][0] == 0x67 && l[255][2] == 0x1f && ym > 240 &&
                  ym > y0 + 150 && ym > y1 + 150);
        else
            CHECK_MSG(y1 > y0 + 100, "%s", colormap_name(m));
    }
    return check_done("test_colormap");
}
