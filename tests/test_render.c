/* test_render: draws synthetic spectrograms (sines through the real window + CPU FFT),
 * writes them as PNG, decodes the files with libpng and checks the picture: the sine's
 * row on every scale, axes and labels present, the colour bar against the colour map,
 * the maximum over frames when frames outnumber pixels, bounded accumulation, drawing in
 * parts against the whole picture, errors; the canvas helpers (canvas.h) that the
 * renderer and the window share. */
#include <dirent.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canvas.h"
#include "check.h"
#include "colormap.h"
#include "fft.h"
#include "png_write.h"
#include "render.h"
#include "test_util.h"
#include "window.h"

#define RATE 48000.0
#define N 4096
#define HOP 1024
#define BINS (N / 2 + 1)
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* dB spectra of nframes frames of a sine (amplitude amp, frequency hz) through a hann
 * window and the CPU FFT, as the analysis makes them. */
static float *sine_db(double hz, double amp, size_t nframes)
{
    size_t len = (nframes - 1) * HOP + N;
    float *sig = malloc(len * sizeof *sig), *win = malloc(N * sizeof *win);
    float *db = malloc(nframes * BINS * sizeof *db);
    window_spec ws = window_spec_default();
    fft_plan *plan;
    for (size_t i = 0; i < len; i++)
        sig[i] = (float)(amp * sin(2 * M_PI * hz * (double)i / RATE));
    window_fill(&ws, N, win, NULL);
    plan = tu_plan(FFT_BACKEND_CPU, N, HOP, win, 64);
    for (size_t f = 0; plan && f < nframes; f += 64) {
        size_t nb = nframes - f < 64 ? nframes - f : 64;
        CHECK(fft_stft_db(plan, sig + f * HOP, nb, db + f * BINS) == SP_OK);
    }
    fft_plan_destroy(plan);
    free(sig);
    free(win);
    return db;
}

/* Decodes a PNG file to RGBA with libpng; NULL when it cannot. */
static uint8_t *read_png(const char *path, int *w, int *h)
{
    png_image img;
    uint8_t *buf;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        return NULL;
    img.format = PNG_FORMAT_RGBA;
    buf = malloc(PNG_IMAGE_SIZE(img));
    if (!buf || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        free(buf);
        png_image_free(&img);
        return NULL;
    }
    *w = (int)img.width;
    *h = (int)img.height;
    return buf;
}

static const uint8_t *px(const uint8_t *img, int w, int x, int y)
{
    return img + ((size_t)y * (size_t)w + (size_t)x) * 4;
}

/* The colour map level (0..255) whose colour is nearest to the pixel. */
static int level_of(const uint8_t *p, int cmap)
{
    const uint8_t(*lut)[3] = colormap_lut(cmap);
    int best = 0, bestd = 1 << 30;
    for (int i = 0; i < 256; i++) {
        int d = (p[0] - lut[i][0]) * (p[0] - lut[i][0]) + (p[1] - lut[i][1]) * (p[1] - lut[i][1]) +
                (p[2] - lut[i][2]) * (p[2] - lut[i][2]);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
    }
    return best;
}

/* Pixels differing from the background in a rectangle. */
static int ink(const uint8_t *img, int w, int x0, int y0, int x1, int y1)
{
    const uint8_t *bg = px(img, w, 0, 0);
    int count = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = px(img, w, x, y);
            count += p[0] != bg[0] || p[1] != bg[1] || p[2] != bg[2];
        }
    return count;
}

/* The sine's row: on each scale the brightest row of the plot is the one holding hz. */
static void test_sine_row(freq_scale scale, double hz, const char *name)
{
    render_config cfg = render_config_default();
    render *r = NULL;
    sp_errinfo ei;
    char path[256];
    float *db = sine_db(hz, 0.5, 120);
    uint8_t *img;
    int w, h;
    cfg.width = 800;
    cfg.height = 500;
    cfg.scale = scale;
    cfg.title = name;
    CHECK(render_create(&cfg, RATE, N, N / 2 / RATE, HOP / RATE, 1, 120, &r, &ei) == SP_OK);
    if (!r) {
        fprintf(stderr, "render_create: %s\n", ei.msg);
        free(db);
        return;
    }
    CHECK(render_add(r, 0, 0, 120, db) == SP_OK);
    tu_path(path, sizeof path, "sine.png");
    CHECK_MSG(render_write_png(r, path, &ei) == SP_OK, "%s", ei.msg);
    img = read_png(path, &w, &h);
    CHECK(img && w == 800 && h == 500);
    if (img) {
        render_rect p = render_plot_rect(r, 0);
        double u = scale_to_unit(render_scale(r), hz);
        int expect = p.y + (int)floor((1 - u) * p.h), best = -1, sum = 0, nbest = 0;
        /* each row's level, summed over the middle columns */
        for (int y = p.y; y < p.y + p.h; y++) {
            int s = 0;
            for (int x = p.x + p.w / 4; x < p.x + 3 * p.w / 4; x++)
                s += level_of(px(img, w, x, y), cfg.colormap);
            if (s > best) {
                best = s;
                sum = y;
                nbest = 1;
            } else if (s == best) {
                sum += y;
                nbest++;
            }
        }
        CHECK_MSG(abs(sum / nbest - expect) <= 1, "%s: brightest row %d, expected %d (%g Hz)", name, sum / nbest,
                  expect, hz);
        /* a -6 dBFS sine reads about (120-6)/120 of the colour range */
        CHECK_MSG(best / (p.w / 2) >= 235 && best / (p.w / 2) <= 250, "%s: peak level %d", name, best / (p.w / 2));
        /* axes and labels: ink in the left margin, under the plot and in the title row */
        CHECK(ink(img, w, 0, p.y, p.x - 2, p.y + p.h) > 200);
        CHECK(ink(img, w, p.x, p.y + p.h + 2, p.x + p.w, h) > 200);
        CHECK(ink(img, w, 0, 0, w, p.y - 2) > 200);
        /* the background stays dark */
        CHECK(px(img, w, 0, 0)[0] < 40 && px(img, w, w - 1, h - 1)[1] < 40);
        free(img);
    }
    render_destroy(r);
    free(db);
}

/* A transform's rows (render_config.columns): column `loud` of 12 at 0 dB, the rest at the
 * floor; the bright rows are exactly that column's share of the panel, bottom up, and the
 * axis has its labels (ink left of the panel). */
static void test_columns(size_t loud, int notes)
{
    enum { COLS = 12, FRAMES = 50 };
    render_config cfg = render_config_default();
    double hz[COLS];
    float db[FRAMES * COLS];
    render *r = NULL;
    sp_errinfo ei = {{0}};
    char path[256];
    uint8_t *img;
    int w, h;
    for (size_t c = 0; c < COLS; c++)
        hz[c] = 440.0 * pow(2.0, ((double)c - 9.0) / 12.0); /* C4 .. B4 */
    for (size_t i = 0; i < (size_t)FRAMES * COLS; i++)
        db[i] = i % COLS == loud ? 0.0f : -200.0f;
    cfg.width = 600;
    cfg.height = 400;
    cfg.columns = COLS;
    cfg.col_hz = hz;
    cfg.col_notes = notes;
    CHECK_MSG(render_create(&cfg, RATE, N, N / 2 / RATE, HOP / RATE, 1, FRAMES, &r, &ei) == SP_OK, "%s", ei.msg);
    if (!r)
        return;
    CHECK(render_add(r, 0, 0, FRAMES, db) == SP_OK);
    tu_path(path, sizeof path, "columns.png");
    CHECK_MSG(render_write_png(r, path, &ei) == SP_OK, "%s", ei.msg);
    img = read_png(path, &w, &h);
    CHECK(img != NULL);
    if (img) {
        render_rect p = render_plot_rect(r, 0);
        int x = p.x + p.w / 2;
        for (int y = p.y; y < p.y + p.h; y++) {
            double lo = (1.0 - (double)(y - p.y + 1) / p.h) * COLS, hi = (1.0 - (double)(y - p.y) / p.h) * COLS;
            int in = (double)loud < hi - 1e-9 && (double)loud + 1 > lo + 1e-9; /* the row overlaps the column */
            int level = level_of(px(img, w, x, y), cfg.colormap);
            CHECK_MSG(in ? level == 255 : level == 0, "column %zu, row %d: level %d", loud, y - p.y, level);
        }
        CHECK(ink(img, w, 0, p.y, p.x - 2, p.y + p.h) > 100);
        free(img);
    }
    render_destroy(r);
}

/* A picture of one channel and no frames drawn with cfg, written as tmp/NAME and read
 * back (NULL on failure, checked); *r is the renderer (the caller destroys it). */
static uint8_t *empty_picture(const render_config *cfg, const char *name, render **r, int *w)
{
    sp_errinfo ei;
    char path[256];
    uint8_t *rgba;
    int h;
    *r = NULL;
    CHECK(render_create(cfg, RATE, N, 0.0, HOP / RATE, 1, -1, r, &ei) == SP_OK);
    if (!*r)
        return NULL;
    tu_path(path, sizeof path, name);
    CHECK(render_write_png(*r, path, &ei) == SP_OK);
    rgba = read_png(path, w, &h);
    CHECK(rgba != NULL);
    return rgba;
}

static void test_colorbar(const char *cmap_name)
{
    render_config cfg = render_config_default();
    render *r = NULL;
    sp_errinfo ei;
    uint8_t *rgba;
    int w;
    cfg.width = 640;
    cfg.height = 400;
    CHECK(colormap_parse(cmap_name, &cfg.colormap, &ei) == SP_OK);
    rgba = empty_picture(&cfg, "bar.png", &r, &w);
    if (rgba) {
        render_rect b = render_colorbar_rect(r);
        const uint8_t(*lut)[3] = colormap_lut(cfg.colormap);
        int bad = 0, x = b.x + b.w / 2;
        CHECK(b.h > 100 && b.x + b.w < w);
        for (int y = 0; y < b.h; y++) {
            const uint8_t *p = px(rgba, w, x, b.y + y);
            int i = (int)lround((1.0 - (double)y / (b.h - 1)) * 255);
            bad += p[0] != lut[i][0] || p[1] != lut[i][1] || p[2] != lut[i][2];
        }
        CHECK_MSG(bad == 0, "%s: %d colour bar rows off the map", cmap_name, bad);
        CHECK(memcmp(px(rgba, w, x, b.y), lut[255], 3) == 0);
        CHECK(memcmp(px(rgba, w, x, b.y + b.h - 1), lut[0], 3) == 0);
        /* dB labels to the right of the bar */
        CHECK(ink(rgba, w, b.x + b.w + 2, b.y, w, b.y + b.h) > 100);
        free(rgba);
    }
    render_destroy(r);
}

/* A tall picture's colour bar has labels up to its top (its ticks were once capped
 * counting from the bottom, leaving the loud end bare). */
static void test_colorbar_tall(void)
{
    render_config cfg = render_config_default();
    render *r = NULL;
    uint8_t *rgba;
    int w;
    cfg.width = 640;
    cfg.height = 8000;
    rgba = empty_picture(&cfg, "tall.png", &r, &w);
    if (rgba) {
        render_rect b = render_colorbar_rect(r);
        CHECK(b.h > 4000);
        CHECK_MSG(ink(rgba, w, b.x + b.w + 2, b.y, w, b.y + b.h / 10) > 50,
                  "no dB labels on the top tenth of a %d px colour bar", b.h);
        free(rgba);
    }
    render_destroy(r);
}

/* One loud frame among `total` quiet ones must show: each column is the max of its frames. */
static void test_max_of_frames(int64_t hint, size_t total, size_t loud_at)
{
    render_config cfg = render_config_default();
    render *r = NULL;
    sp_errinfo ei;
    float *quiet = sine_db(3000, 0.5e-4, 1), *loud = sine_db(3000, 0.5, 1);
    float *block = malloc(256 * BINS * sizeof *block);
    uint8_t *rgba;
    size_t cols = 0, cap = 0;
    uint64_t fpc = 0, frames = 0;
    cfg.width = 800;
    cfg.height = 500;
    CHECK(render_create(&cfg, RATE, N, N / 2 / RATE, HOP / RATE, 1, hint, &r, &ei) == SP_OK);
    if (!r)
        goto done;
    for (size_t f = 0; f < total; f += 256) {
        size_t nb = total - f < 256 ? total - f : 256;
        for (size_t i = 0; i < nb; i++)
            memcpy(block + i * BINS, f + i == loud_at ? loud : quiet, BINS * sizeof *block);
        CHECK(render_add(r, 0, f, nb, block) == SP_OK);
    }
    CHECK(render_accum_info(r, 0, &cols, &cap, &fpc, &frames) == SP_OK);
    CHECK(frames == total);
    CHECK_MSG(cols <= cap && cap <= (size_t)8 * (size_t)render_plot_rect(r, 0).w + 1, "%zu columns of %zu", cols, cap);
    CHECK(fpc > 1);
    rgba = malloc((size_t)cfg.width * cfg.height * 4);
    CHECK(render_draw(r, rgba, &ei) == SP_OK);
    {
        render_rect p = render_plot_rect(r, 0);
        int y = p.y + (int)floor((1 - scale_to_unit(render_scale(r), 3000)) * p.h), bright = 0, where = -1;
        int expect_x = p.x + (int)((double)loud_at * p.w / (double)total);
        for (int x = p.x; x < p.x + p.w; x++) {
            int lv = level_of(px(rgba, cfg.width, x, y), cfg.colormap);
            if (lv > 200) {
                bright++;
                where = x;
            }
        }
        /* the loud frame lights exactly one pixel column, where it belongs; the quiet
         * frames (-92 dB) stay dark */
        CHECK_MSG(bright == 1 && abs(where - expect_x) <= 1, "%d bright columns, at %d, expected %d", bright, where,
                  expect_x);
        CHECK(level_of(px(rgba, cfg.width, p.x + 2, y), cfg.colormap) < 80);
    }
    free(rgba);
done:
    render_destroy(r);
    free(block);
    free(quiet);
    free(loud);
}

/* Fewer frames than pixels: frames are stretched, each over about w/frames columns. */
static void test_stretch(void)
{
    render_config cfg = render_config_default();
    render *r = NULL;
    sp_errinfo ei;
    float *quiet = sine_db(3000, 0.5e-4, 1), *loud = sine_db(3000, 0.5, 1);
    uint8_t *rgba = malloc(800 * 500 * 4);
    cfg.width = 800;
    cfg.height = 500;
    CHECK(render_create(&cfg, RATE, N, N / 2 / RATE, HOP / RATE, 1, 10, &r, &ei) == SP_OK);
    for (int f = 0; r && f < 10; f++)
        CHECK(render_add(r, 0, (uint64_t)f, 1, f == 4 ? loud : quiet) == SP_OK);
    if (r && render_draw(r, rgba, &ei) == SP_OK) {
        render_rect p = render_plot_rect(r, 0);
        int y = p.y + (int)floor((1 - scale_to_unit(render_scale(r), 3000)) * p.h), bright = 0, first = -1;
        for (int x = p.x; x < p.x + p.w; x++)
            if (level_of(px(rgba, 800, x, y), cfg.colormap) > 200) {
                bright++;
                if (first < 0)
                    first = x;
            }
        CHECK_MSG(abs(bright - p.w / 10) <= 1 && abs(first - (p.x + 4 * p.w / 10)) <= 1, "%d bright from %d",
                  bright, first);
    }
    render_destroy(r);
    free(rgba);
    free(quiet);
    free(loud);
}

static void test_stereo(void)
{
    render_config cfg = render_config_default();
    render *r = NULL;
    sp_errinfo ei;
    float *a = sine_db(1000, 0.5, 64), *b = sine_db(6000, 0.25, 64);
    char path[256];
    cfg.width = 900;
    cfg.height = 600;
    cfg.scale = FREQ_SCALE_LOG;
    cfg.title = "stereo \xe2\x80\x94 48000 Hz, N=4096, hop=1024, hann, cpu";
    CHECK(render_create(&cfg, RATE, N, N / 2 / RATE, HOP / RATE, 2, 64, &r, &ei) == SP_OK);
    if (!r)
        goto done;
    CHECK(render_add(r, 0, 0, 64, a) == SP_OK);
    CHECK(render_add(r, 1, 0, 64, b) == SP_OK);
    CHECK(render_add(r, 2, 0, 1, b) == SP_EINVAL);
    {
        render_rect p0 = render_plot_rect(r, 0), p1 = render_plot_rect(r, 1);
        CHECK(p0.h == p1.h && p1.y > p0.y + p0.h && p1.y + p1.h <= render_colorbar_rect(r).y + render_colorbar_rect(r).h);
    }
    tu_path(path, sizeof path, "stereo.png");
    CHECK_MSG(render_write_png(r, path, &ei) == SP_OK, "%s", ei.msg);
    {
        int w, h;
        uint8_t *img = read_png(path, &w, &h);
        CHECK(img != NULL);
        if (img) {
            for (int c = 0; c < 2; c++) {
                render_rect p = render_plot_rect(r, c);
                double hz = c ? 6000 : 1000;
                int y = p.y + (int)floor((1 - scale_to_unit(render_scale(r), hz)) * p.h);
                CHECK(level_of(px(img, w, p.x + p.w / 2, y), cfg.colormap) > 220);
            }
            free(img);
        }
    }
done:
    render_destroy(r);
    free(a);
    free(b);
}

/* panel_labels: a line per panel, top to bottom, drawn even over the only panel (the
 * window's --compare); panels past the lines and a config without them: "ch N" where
 * there are several, nothing over a single panel. The label's box holds title-white text. */
static void test_panel_labels(void)
{
    static const struct {
        const char *labels;
        int channels;
        const char *want[3];
    } cases[] = {
        {.labels = "A: take1.wav\nB: take2.wav", .channels = 2, .want = {"A: take1.wav", "B: take2.wav"}},
        {.labels = "B \xe2\x88\x92 A", .channels = 1, .want = {"B \xe2\x88\x92 A"}},
        {.labels = "left", .channels = 3, .want = {"left", "ch 1", "ch 2"}},
        {.labels = NULL, .channels = 2, .want = {"ch 0", "ch 1"}},
        {.labels = NULL, .channels = 1, .want = {""}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        render_config cfg = render_config_default();
        render *r = NULL;
        sp_errinfo ei;
        char buf[64], own[64];
        uint8_t *img;
        cfg.width = 640;
        cfg.height = 480;
        snprintf(own, sizeof own, "%s", cases[i].labels ? cases[i].labels : "");
        cfg.panel_labels = cases[i].labels ? own : NULL; /* copied: changed after create */
        CHECK(render_create(&cfg, RATE, N, 0.0, HOP / RATE, cases[i].channels, 8, &r, &ei) == SP_OK);
        if (!r)
            continue;
        memset(own, 'x', sizeof own - 1);
        img = malloc((size_t)cfg.width * (size_t)cfg.height * 4);
        CHECK(img && render_draw(r, img, &ei) == SP_OK);
        for (int c = 0; c < cases[i].channels && img; c++) {
            render_rect b = render_label_rect(r, c);
            int white = 0;
            render_label_text(r, c, buf, sizeof buf);
            CHECK_MSG(strcmp(buf, cases[i].want[c]) == 0, "case %zu panel %d: \"%s\"", i, c, buf);
            CHECK(buf[0] ? b.w > 0 && b.h > 0 : b.w == 0 && b.h == 0);
            for (int y = b.y; y < b.y + b.h; y++)
                for (int x = b.x; x < b.x + b.w; x++)
                    white += px(img, cfg.width, x, y)[0] > 200 && px(img, cfg.width, x, y)[2] > 200;
            CHECK_MSG(buf[0] ? white > 10 : white == 0, "case %zu panel %d: %d white pixels", i, c, white);
        }
        free(img);
        render_destroy(r);
    }
}

/* Drawing in parts (the window's scrolling picture) gives render_draw's pixels: columns
 * drawn one by one with render_draw_column into a larger image, the rest with
 * render_draw_area (keep_panels) after render_set_time, against a whole render_draw of
 * the same frames, one frame per pixel column. Every frame differs (a falling level) so
 * a column out of place shows. render_draw_area must write its area and nothing else. */
static void test_parts(int channels, freq_scale scale)
{
    render_config cfg = render_config_default();
    render *whole = NULL, *parts = NULL;
    sp_errinfo ei;
    float *base = sine_db(2000, 0.5, 1), *db = malloc(BINS * sizeof *db);
    int W = 900, H = 560, pad = 37; /* parts are drawn into a wider image, at its top-left */
    size_t pitch = (size_t)(W + pad) * 4;
    uint8_t *a = malloc((size_t)W * H * 4), *b = malloc(pitch * (size_t)H);
    double t0 = 61.5, dt = HOP / RATE;
    cfg.width = W;
    cfg.height = H;
    cfg.scale = scale;
    cfg.colormap = colormap_count() - 1;
    cfg.title = "parts";
    CHECK(render_create(&cfg, RATE, N, 0.0, 1.0, channels, 1, &parts, &ei) == SP_OK);
    if (!parts)
        goto done;
    {
        render_rect p = render_plot_rect(parts, 0), last = render_plot_rect(parts, channels - 1);
        render_rect all = {0, 0, W, H}, band = {0, last.y + last.h + 1, W, H - (last.y + last.h + 1)};
        int cols = p.w, same = 1, kept = 1;
        CHECK(render_create(&cfg, RATE, N, t0, dt, channels, cols, &whole, &ei) == SP_OK);
        if (!whole)
            goto done;
        memset(b, 0x5a, pitch * (size_t)H);
        for (int c = 0; c < channels; c++)
            for (int i = 0; i < cols; i++) {
                for (int k = 0; k < BINS; k++)
                    db[k] = base[k] - (float)((i * 7 + c * 13) % 61);
                CHECK(render_add(whole, c, (uint64_t)i, 1, db) == SP_OK);
                render_draw_column(parts, db, b + (size_t)render_plot_rect(parts, c).y * pitch + (size_t)(p.x + i) * 4,
                                   pitch);
            }
        CHECK(render_draw(whole, a, &ei) == SP_OK);
        /* over the panels, the columns alone except in the channel labels' boxes */
        for (int c = 0; c < channels; c++) {
            render_rect pc = render_plot_rect(parts, c), lb = render_label_rect(parts, c);
            int inside = 0, outside = 0;
            CHECK(channels > 1 ? lb.w > 0 && lb.h > 0 : lb.w == 0 && lb.h == 0);
            for (int y = pc.y; y < pc.y + pc.h; y++)
                for (int x = pc.x; x < pc.x + pc.w; x++) {
                    int differ = memcmp(a + ((size_t)y * W + (size_t)x) * 4, b + (size_t)y * pitch + (size_t)x * 4, 4);
                    if (x >= lb.x && x < lb.x + lb.w && y >= lb.y && y < lb.y + lb.h)
                        inside += differ != 0;
                    else
                        outside += differ != 0;
                }
            CHECK_MSG(outside == 0 && (channels == 1 || inside > 20), "channel %d: %d label pixels in the box, %d out",
                      c, inside, outside);
        }
        CHECK(render_set_time(parts, t0, dt, cols) == SP_OK);
        CHECK(render_set_time(parts, t0, 0.0, cols) == SP_EINVAL);
        CHECK(render_draw_area(parts, b, pitch, all, 1, &ei) == SP_OK);
        for (int y = 0; y < H; y++) {
            same &= memcmp(a + (size_t)y * W * 4, b + (size_t)y * pitch, (size_t)W * 4) == 0;
            for (int x = W; x < W + pad; x++)
                kept &= b[(size_t)y * pitch + (size_t)x * 4] == 0x5a;
        }
        CHECK_MSG(same, "%d channel(s): the picture in parts differs from render_draw's", channels);
        CHECK_MSG(kept, "render_draw_area wrote outside the picture");

        /* the time band alone, over a poisoned copy: its pixels and only those change */
        for (int y = 0; y < H; y++)
            memset(b + (size_t)y * pitch, y >= band.y ? 0x33 : 0x5a, (size_t)W * 4);
        CHECK(render_draw_area(parts, b, pitch, band, 1, &ei) == SP_OK);
        same = kept = 1;
        for (int y = 0; y < H; y++) {
            const uint8_t *ra = a + (size_t)y * W * 4, *rb = b + (size_t)y * pitch;
            if (y >= band.y)
                same &= memcmp(ra, rb, (size_t)W * 4) == 0;
            else
                for (int x = 0; x < W * 4; x++)
                    kept &= rb[x] == 0x5a;
        }
        CHECK_MSG(same, "the time band differs from render_draw's");
        CHECK_MSG(kept, "render_draw_area wrote outside its area");

        /* an area across panels, without keep_panels: the frames added are drawn */
        {
            render_rect mid = {p.x - 30, p.y + p.h / 3, p.w / 2, last.y + last.h - p.y};
            memset(b, 0x5a, pitch * (size_t)H);
            CHECK(render_draw_area(whole, b, pitch, mid, 0, &ei) == SP_OK);
            same = kept = 1;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int in = x >= mid.x && x < mid.x + mid.w && y >= mid.y && y < mid.y + mid.h;
                    const uint8_t *pa = a + ((size_t)y * W + (size_t)x) * 4;
                    const uint8_t *pb = b + (size_t)y * pitch + (size_t)x * 4;
                    if (in)
                        same &= memcmp(pa, pb, 4) == 0;
                    else
                        kept &= pb[0] == 0x5a && pb[3] == 0x5a;
                }
            CHECK_MSG(same, "an area over the panels differs from render_draw's");
            CHECK_MSG(kept, "render_draw_area wrote outside its area");
        }
        CHECK(render_draw_area(NULL, b, pitch, all, 0, &ei) == SP_EINVAL);
        CHECK(render_draw_area(parts, b, (size_t)W * 4 - 4, all, 0, &ei) == SP_EINVAL);
    }
done:
    render_destroy(whole);
    render_destroy(parts);
    free(base);
    free(db);
    free(a);
    free(b);
}

static int temp_left(const char *parent, const char *base)
{
    char prefix[256];
    DIR *d = opendir(parent);
    struct dirent *e;
    int found = 0;
    snprintf(prefix, sizeof prefix, ".%s.", base);
    while (d && (e = readdir(d)))
        found += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return found;
}

static void test_errors(void)
{
    render_config cfg = render_config_default();
    render *r = NULL;
    sp_errinfo ei;
    char path[256], sub[256];
    int id;
    freq_scale s;

    CHECK(colormap_parse("rainbow", &id, &ei) == SP_EINVAL && strstr(ei.msg, "viridis"));
    CHECK(scale_parse("cubic", &s, &ei) == SP_EINVAL && strstr(ei.msg, "linear"));
    /* --size and --db-range are the command line's (app/cli.c): e2e_cli.py checks them */

    cfg.width = 640;
    cfg.height = 400;
    cfg.colormap = 42;
    CHECK(render_create(&cfg, RATE, N, 0, 0.01, 1, -1, &r, &ei) == SP_EINVAL && !r);
    cfg.colormap = 0;
    cfg.fmax = 30000; /* above Nyquist: clipped to it, as the peaks and the tone band are */
    CHECK(render_create(&cfg, RATE, N, 0, 0.01, 1, -1, &r, &ei) == SP_OK && r);
    CHECK(r && render_scale(r)->fmax == RATE / 2.0);
    render_destroy(r);
    r = NULL;
    cfg.fmax = 0;
    cfg.fmin = 5000;
    cfg.fmax = 4000;
    CHECK(render_create(&cfg, RATE, N, 0, 0.01, 1, -1, &r, &ei) == SP_EINVAL && strstr(ei.msg, SP_FIELD("fmin")));
    cfg.fmin = cfg.fmax = 0;
    cfg.db_lo = 0;
    cfg.db_hi = -10;
    CHECK(render_create(&cfg, RATE, N, 0, 0.01, 1, -1, &r, &ei) == SP_EINVAL);
    cfg.db_lo = -120;
    cfg.db_hi = 0;
    cfg.width = 50;
    CHECK(render_create(&cfg, RATE, N, 0, 0.01, 1, -1, &r, &ei) == SP_EINVAL && strstr(ei.msg, SP_FIELD("size")));
    cfg.width = 640;
    cfg.font = "/nonexistent/font.ttf";
    CHECK(render_create(&cfg, RATE, N, 0, 0.01, 1, -1, &r, &ei) == SP_EIO && strstr(ei.msg, "/nonexistent/font.ttf"));
    cfg.font = NULL;
    CHECK(render_add(NULL, 0, 0, 1, NULL) == SP_EINVAL);
    render_destroy(NULL);

    CHECK(render_create(&cfg, RATE, N, 0, 0.01, 1, -1, &r, &ei) == SP_OK);
    if (!r)
        return;
    /* a directory that does not exist */
    CHECK(render_write_png(r, "/nonexistent-spectro-dir/out.png", &ei) == SP_EIO);
    CHECK(strstr(ei.msg, "/nonexistent-spectro-dir/out.png") != NULL);
    /* the target is a directory: the temporary is written, the rename fails, the
     * temporary must go */
    tu_path(sub, sizeof sub, "adir");
    CHECK(mkdir(sub, 0755) == 0);
    CHECK(render_write_png(r, sub, &ei) == SP_EIO && strstr(ei.msg, sub));
    CHECK(temp_left(tu_tmpdir(), "adir") == 0);
    CHECK(rmdir(sub) == 0);
    /* a good write leaves the file and no temporary */
    tu_path(path, sizeof path, "ok.png");
    CHECK(render_write_png(r, path, &ei) == SP_OK && access(path, F_OK) == 0);
    CHECK(temp_left(tu_tmpdir(), "ok.png") == 0);
    unlink(path);
    CHECK(png_write_rgba(path, NULL, 10, 10, &ei) == SP_EINVAL);
    render_destroy(r);
}

/* png_write: pictures of many shapes read back by libpng's own reader (which checks every
 * chunk's CRC and the data stream's Adler-32) pixel for pixel. The data is deflated in strips
 * of 64 rows at once: heights below, at and across a strip, noise (nothing to compress),
 * flat runs, translucent pixels (stored as RGBA), data past one chunk. */
static void test_png_round_trip(void)
{
    static const int sizes[][2] = {{1, 1}, {7, 1}, {3, 63}, {5, 64}, {5, 65}, {37, 200}, {1920, 130}, {2, 1000},
                                   {1920, 1000}}; /* the last: data in several 1 MB chunks */
    char path[512];
    uint64_t seed = 12345;
    tu_path(path, sizeof path, "round.png");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int alpha = 0; alpha < 2; alpha++) {
            int w = sizes[k][0], h = sizes[k][1], rw = 0, rh = 0;
            size_t n = (size_t)w * (size_t)h * 4;
            uint8_t *img = malloc(n), *back;
            sp_errinfo ei = {{0}};
            for (size_t i = 0; i < n; i++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                /* noise in the top half, runs of one colour below */
                img[i] = (i / 4) / (size_t)w < (size_t)h / 2 ? (uint8_t)(seed >> 56) : (uint8_t)((i / 4) / 97 * 31 + i % 4);
                if (i % 4 == 3)
                    img[i] = alpha && i % 3 == 0 ? (uint8_t)(seed >> 40) : 255;
            }
            CHECK(png_write_rgba(path, img, w, h, &ei) == SP_OK);
            back = read_png(path, &rw, &rh);
            CHECK_MSG(back && rw == w && rh == h, "%dx%d%s read back", w, h, alpha ? " RGBA" : "");
            if (back && rw == w && rh == h)
                CHECK_MSG(memcmp(back, img, n) == 0, "%dx%d%s: pixels differ", w, h, alpha ? " RGBA" : "");
            free(back);
            free(img);
        }
    }
    unlink(path);
}

/* canvas.h: fills, blends and outlines stay inside the clip, inside a larger image
 * (pitch), and blend with rounding. */
static void test_canvas(void)
{
    enum { W = 12, H = 9, PAD = 3 }; /* rows PAD pixels longer than the image */
    size_t pitch = (W + PAD) * 4;
    uint8_t *px = calloc(H * pitch, 1);
    const rgb8 red = {200, 0, 0}, white = {255, 255, 255};
    canvas c = canvas_make(px, W, H, pitch);
    int inside = 0;
    CHECK(px && c.clip.x == 0 && c.clip.y == 0 && c.clip.w == W && c.clip.h == H);
    if (!px)
        return;
    canvas_fill(&c, -5, -5, 100, 100, red); /* the whole image, not the padding */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W + PAD; x++) {
            const uint8_t *p = px + (size_t)y * pitch + (size_t)x * 4;
            CHECK_MSG(x < W ? p[0] == 200 && p[3] == 255 : p[0] == 0 && p[3] == 0, "fill at %d, %d", x, y);
        }
    c.clip.x = 2, c.clip.y = 3, c.clip.w = 4, c.clip.h = 2;
    canvas_blend(&c, 0, 0, W, H, white, 128); /* (200 * 127 + 255 * 128 + 127) / 255 = 228 */
    canvas_outline(&c, 4, 4, 5, 5, white);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = px + (size_t)y * pitch + (size_t)x * 4;
            int in = x >= 2 && x < 6 && y >= 3 && y < 5;
            int on = in && y == 4 && x >= 4; /* the outline's top row, clipped */
            inside += in;
            CHECK_MSG(p[0] == (on ? 255 : in ? 228 : 200) && p[1] == (on ? 255 : in ? 128 : 0) && p[3] == 255,
                      "pixel %d, %d: %d %d %d %d", x, y, p[0], p[1], p[2], p[3]);
        }
    CHECK(inside == 8);
    CHECK(canvas_text_width(NULL, "x") == 0);
    free(px);
}

int main(void)
{
    if (tu_tmpdir_make("render") != 0)
        return 1;
    test_sine_row(FREQ_SCALE_LINEAR, 3000, "linear 3 kHz");
    test_sine_row(FREQ_SCALE_LOG, 3000, "log 3 kHz");
    test_sine_row(FREQ_SCALE_MEL, 3000, "mel 3 kHz");
    test_sine_row(FREQ_SCALE_LOG, 8 * RATE / N, "log 93.75 Hz (rows narrower than bins)");
    test_sine_row(FREQ_SCALE_MEL, 20 * RATE / N, "mel 234.375 Hz");
    test_sine_row(FREQ_SCALE_LINEAR, 1500 * RATE / N, "linear 17578 Hz");
    test_columns(0, 2);
    test_columns(7, 0);
    test_columns(11, 1);
    test_colorbar("viridis");
    test_colorbar("magma");
    test_colorbar("gray");
    test_colorbar_tall();
    {
        /* more channels than a picture stacks: one line naming the option */
        render_config cfg = render_config_default();
        render *r = NULL;
        sp_errinfo ei = {{0}};
        CHECK(render_create(&cfg, RATE, N, 0.0, HOP / RATE, RENDER_MAX_CHANNELS + 1, -1, &r, &ei) == SP_EINVAL);
        CHECK_MSG(r == NULL && strstr(ei.msg, SP_FIELD("channel")), "%s", ei.msg);
    }
    test_max_of_frames(10000, 10000, 6789);  /* hint known */
    test_max_of_frames(-1, 10000, 1234);     /* unknown length */
    test_max_of_frames(-1, 300000, 299000);  /* bounded memory: many merges */
    test_max_of_frames(1000, 100000, 50000); /* hint far too small */
    test_stretch();
    test_stereo();
    test_panel_labels();
    test_parts(1, FREQ_SCALE_LINEAR);
    test_parts(2, FREQ_SCALE_LOG);
    test_parts(3, FREQ_SCALE_MEL);
    test_errors();
    test_png_round_trip();
    test_canvas();
    tu_tmpdir_remove();
    return check_done("test_render");
}
