/* test_scale: parsing, the mappings and their inverses, tick choice and labels. */
#include <string.h>

#include "check.h"
#include "scale.h"

static void check_ticks(const scale_map *m, double len, double gap)
{
    scale_tick t[512];
    int n = scale_ticks(m, len, gap, t, 512), labeled = 0;
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        CHECK_MSG(t[i].hz >= m->fmin * (1 - 1e-9) && t[i].hz <= m->fmax * (1 + 1e-9), "tick %g Hz", t[i].hz);
        CHECK(t[i].u >= -1e-9 && t[i].u <= 1 + 1e-9);
        CHECK((t[i].labeled != 0) == (t[i].label[0] != 0));
        if (!t[i].labeled)
            continue;
        labeled++;
        for (int j = 0; j < i; j++)
            if (t[j].labeled)
                CHECK_MSG(fabs(t[i].u - t[j].u) * len >= gap - 1e-6, "%s and %s too close", t[i].label, t[j].label);
    }
    CHECK_MSG(labeled >= 3, "%s %g..%g: %d labels", scale_name(m->kind), m->fmin, m->fmax, labeled);
}

static int has_label(const scale_map *m, double len, double gap, const char *label)
{
    scale_tick t[512];
    int n = scale_ticks(m, len, gap, t, 512);
    for (int i = 0; i < n; i++)
        if (t[i].labeled && strcmp(t[i].label, label) == 0)
            return 1;
    return 0;
}

int main(void)
{
    sp_errinfo ei;
    freq_scale s;
    scale_map m;
    char buf[32];

    CHECK(scale_parse("linear", &s, &ei) == SP_OK && s == FREQ_SCALE_LINEAR);
    CHECK(scale_parse("LOG", &s, &ei) == SP_OK && s == FREQ_SCALE_LOG);
    CHECK(scale_parse("mel", &s, &ei) == SP_OK && s == FREQ_SCALE_MEL);
    CHECK(scale_parse("bark", &s, &ei) == SP_EINVAL && strstr(ei.msg, "bark") && strstr(ei.msg, "mel"));
    CHECK(strcmp(scale_name(FREQ_SCALE_LOG), "log") == 0);

    CHECK_CLOSE(scale_hz_to_mel(1000), 999.9855, 1e-3); /* HTK */
    CHECK_CLOSE(scale_mel_to_hz(scale_hz_to_mel(4321)), 4321, 1e-6);
    CHECK_CLOSE(scale_log_default_fmin(44100, 4096), 20, 0);
    CHECK_CLOSE(scale_log_default_fmin(44100, 256), 44100.0 / 256, 1e-9);

    CHECK(scale_map_init(&m, FREQ_SCALE_LOG, 0, 20000, &ei) == SP_EINVAL);
    CHECK(scale_map_init(&m, FREQ_SCALE_LINEAR, 100, 100, &ei) == SP_EINVAL);
    CHECK(scale_map_init(&m, FREQ_SCALE_LINEAR, -1, 100, &ei) == SP_EINVAL);
    /* a range the axis cannot tell apart (its tick loop once never ended) */
    CHECK(scale_map_init(&m, FREQ_SCALE_LINEAR, 1000, 1000.0000000000002, &ei) == SP_EINVAL &&
          strstr(ei.msg, "narrow"));
    CHECK(scale_map_init(&m, FREQ_SCALE_MEL, 1000, 1000.0000000000002, &ei) == SP_EINVAL);
    /* a tall axis: the labelled ticks reach both ends (they once stopped at 512 ticks
     * counted from fmin, leaving the top of the axis bare) */
    CHECK(scale_map_init(&m, FREQ_SCALE_LINEAR, 0, 5600, &ei) == SP_OK);
    {
        scale_tick t[512];
        int n = scale_ticks(&m, 16384, 2, t, 512);
        double top = 0;
        CHECK(n > 0 && n <= 512);
        for (int i = 0; i < n; i++)
            if (t[i].labeled && t[i].u > top)
                top = t[i].u;
        CHECK_MSG(top > 0.9, "highest labelled tick at %.3f of the axis", top);
    }

    for (int k = 0; k < 3; k++) {
        double fmin = k == FREQ_SCALE_LOG ? 20 : 0;
        CHECK(scale_map_init(&m, (freq_scale)k, fmin, 22050, &ei) == SP_OK);
        CHECK_CLOSE(scale_to_unit(&m, fmin), 0, 1e-12);
        CHECK_CLOSE(scale_to_unit(&m, 22050), 1, 1e-12);
        for (double u = 0; u <= 1; u += 0.125)
            CHECK_CLOSE(scale_to_unit(&m, scale_from_unit(&m, u)), u, 1e-12);
        check_ticks(&m, 400, 20);
        check_ticks(&m, 1000, 25);
        check_ticks(&m, 60, 18);
    }
    CHECK(scale_map_init(&m, FREQ_SCALE_LINEAR, 0, 22050, &ei) == SP_OK);
    CHECK_CLOSE(scale_to_unit(&m, 11025), 0.5, 1e-12);
    CHECK(has_label(&m, 900, 25, "0 Hz") && has_label(&m, 900, 25, "10 kHz"));
    CHECK(scale_map_init(&m, FREQ_SCALE_LOG, 20, 20000, &ei) == SP_OK);
    CHECK_CLOSE(scale_to_unit(&m, 632.4555), 0.5, 1e-6); /* geometric middle */
    CHECK(has_label(&m, 900, 25, "100 Hz") && has_label(&m, 900, 25, "1 kHz") && has_label(&m, 900, 25, "10 kHz"));
    CHECK(scale_map_init(&m, FREQ_SCALE_MEL, 0, 8000, &ei) == SP_OK);
    CHECK(has_label(&m, 600, 25, "0 Hz") && has_label(&m, 600, 25, "1 kHz"));

    scale_format_hz(0, buf, sizeof buf);
    CHECK(strcmp(buf, "0 Hz") == 0);
    scale_format_hz(440, buf, sizeof buf);
    CHECK(strcmp(buf, "440 Hz") == 0);
    scale_format_hz(2500, buf, sizeof buf);
    CHECK(strcmp(buf, "2.5 kHz") == 0);
    scale_format_hz(22050, buf, sizeof buf);
    CHECK(strcmp(buf, "22.05 kHz") == 0);
    scale_format_hz(12.5, buf, sizeof buf);
    CHECK(strcmp(buf, "12.5 Hz") == 0);
    return check_done("test_scale");
}
