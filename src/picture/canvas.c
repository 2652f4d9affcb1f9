/* canvas: clipped pixels and text in an RGBA8888 image (see canvas.h). */
#include "canvas.h"

#include <SDL_ttf.h>
#include <pthread.h>
#include <string.h>

canvas canvas_make(uint8_t *px, int w, int h, size_t pitch)
{
    canvas c;
    c.px = px;
    c.pitch = pitch;
    c.w = w;
    c.h = h;
    c.clip.x = c.clip.y = 0;
    c.clip.w = w;
    c.clip.h = h;
    return c;
}

/* x, y, w, h cut to the clip: [*x0, *x1) x [*y0, *y1); 0 when nothing is left. */
static int clip_box(const canvas *c, int x, int y, int w, int h, int *x0, int *y0, int *x1, int *y1)
{
    const render_rect *k = &c->clip;
    *x0 = x < k->x ? k->x : x;
    *y0 = y < k->y ? k->y : y;
    *x1 = x + w > k->x + k->w ? k->x + k->w : x + w;
    *y1 = y + h > k->y + k->h ? k->y + k->h : y + h;
    return *x0 < *x1 && *y0 < *y1;
}

void canvas_fill(const canvas *c, int x, int y, int w, int h, rgb8 col)
{
    int x0, y0, x1, y1;
    size_t pitch = c->pitch; /* a local: the stores below may alias c */
    uint8_t *first, *p;
    if (!clip_box(c, x, y, w, h, &x0, &y0, &x1, &y1))
        return;
    first = c->px + (size_t)y0 * pitch + (size_t)x0 * 4;
    p = first;
    for (int xx = x0; xx < x1; xx++, p += 4) {
        p[0] = col.r;
        p[1] = col.g;
        p[2] = col.b;
        p[3] = 255;
    }
    for (int yy = y0 + 1; yy < y1; yy++) /* the other rows: copies of the first */
        memcpy(first + (size_t)(yy - y0) * pitch, first, (size_t)(x1 - x0) * 4);
}

void canvas_blend(const canvas *c, int x, int y, int w, int h, rgb8 col, unsigned a)
{
    int x0, y0, x1, y1;
    size_t pitch = c->pitch;
    if (!clip_box(c, x, y, w, h, &x0, &y0, &x1, &y1))
        return;
    for (int yy = y0; yy < y1; yy++) {
        uint8_t *p = c->px + (size_t)yy * pitch + (size_t)x0 * 4;
        for (int xx = x0; xx < x1; xx++, p += 4) {
            p[0] = (uint8_t)((p[0] * (255 - a) + col.r * a + 127) / 255);
            p[1] = (uint8_t)((p[1] * (255 - a) + col.g * a + 127) / 255);
            p[2] = (uint8_t)((p[2] * (255 - a) + col.b * a + 127) / 255);
        }
    }
}

void canvas_outline(const canvas *c, int x, int y, int w, int h, rgb8 col)
{
    canvas_fill(c, x, y, w, 1, col);
    canvas_fill(c, x, y + h - 1, w, 1, col);
    canvas_fill(c, x, y, 1, h, col);
    canvas_fill(c, x + w - 1, y, 1, h, col);
}

static pthread_mutex_t ttf_mu = PTHREAD_MUTEX_INITIALIZER;

void canvas_ttf_lock(void)
{
    pthread_mutex_lock(&ttf_mu);
}

void canvas_ttf_unlock(void)
{
    pthread_mutex_unlock(&ttf_mu);
}

int canvas_text_width(TTF_Font *font, const char *s)
{
    int w = 0, h = 0, ok;
    if (!font || !s || !*s)
        return 0;
    canvas_ttf_lock();
    ok = TTF_SizeUTF8(font, s, &w, &h) == 0;
    canvas_ttf_unlock();
    return ok ? w : 0;
}

void canvas_blit_text(const canvas *c, const SDL_Surface *sf, int x, int y, rgb8 col, int rotate)
{
    int x0 = c->clip.x, y0 = c->clip.y, x1 = c->clip.x + c->clip.w, y1 = c->clip.y + c->clip.h;
    size_t pitch = c->pitch;
    uint8_t *px = c->px;
    for (int sy = 0; sy < sf->h; sy++) {
        const uint32_t *src = (const uint32_t *)((const uint8_t *)sf->pixels + (size_t)sy * (size_t)sf->pitch);
        for (int sx = 0; sx < sf->w; sx++) {
            unsigned a = src[sx] >> 24; /* ARGB8888 */
            int dx = rotate ? x + sy : x + sx, dy = rotate ? y + (sf->w - 1 - sx) : y + sy;
            uint8_t *p;
            if (!a || dx < x0 || dy < y0 || dx >= x1 || dy >= y1)
                continue;
            p = px + (size_t)dy * pitch + (size_t)dx * 4;
            p[0] = (uint8_t)((p[0] * (255 - a) + col.r * a + 127) / 255);
            p[1] = (uint8_t)((p[1] * (255 - a) + col.g * a + 127) / 255);
            p[2] = (uint8_t)((p[2] * (255 - a) + col.b * a + 127) / 255);
        }
    }
}

void canvas_text(const canvas *c, TTF_Font *font, const char *s, int x, int y, rgb8 col, int rotate)
{
    SDL_Color fg = {col.r, col.g, col.b, 255};
    SDL_Surface *sf;
    int tw = 0, th = 0;
    if (!font || !s || !*s)
        return;
    if (c->clip.w < c->w || c->clip.h < c->h) {
        int sized;
        canvas_ttf_lock();
        sized = TTF_SizeUTF8(font, s, &tw, &th) == 0;
        canvas_ttf_unlock();
        int bw = rotate ? th : tw, bh = rotate ? tw : th;
        if (sized &&
            (x >= c->clip.x + c->clip.w || y >= c->clip.y + c->clip.h || x + bw <= c->clip.x || y + bh <= c->clip.y))
            return;
    }
    canvas_ttf_lock();
    sf = TTF_RenderUTF8_Blended(font, s, fg);
    canvas_ttf_unlock();
    if (!sf)
        return;
    canvas_blit_text(c, sf, x, y, col, rotate);
    canvas_ttf_lock(); /* the surface's format is SDL's, shared */
    SDL_FreeSurface(sf);
    canvas_ttf_unlock();
}

void canvas_fit_text(TTF_Font *font, char *s, int max_w)
{
    size_t n = strlen(s);
    if (canvas_text_width(font, s) <= max_w)
        return;
    while (n > 0) {
        do
            n--;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80);
        strcpy(s + n, "\xe2\x80\xa6"); /* U+2026 */
        if (canvas_text_width(font, s) <= max_w)
            return;
    }
    s[0] = 0;
}
