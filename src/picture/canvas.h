/* canvas: pixels drawn into an RGBA8888 image (rows top-down, bytes R G B A), clipped to a
 * rectangle: the one set of pixel and text helpers that the renderer (render.c) and the
 * window (src/view) both draw with, so that their parts of a picture come out alike.
 *
 * Text is SDL2_ttf's "blended" rendering (one colour, coverage in alpha) blended into the
 * image. Built with the renderer only (SPECTRO_HAVE_RENDER): the fonts are SDL2_ttf's.
 *
 * Thread safety: a canvas is a plain value; one thread draws into an image at a time.
 */
#ifndef SPECTRO_CANVAS_H
#define SPECTRO_CANVAS_H

#include <stddef.h>
#include <stdint.h>

#include "render.h"

#ifdef __cplusplus
extern "C" {
#endif

struct SDL_Surface; /* SDL2's, as SDL_ttf renders text */
struct _TTF_Font;   /* SDL2_ttf's TTF_Font */

typedef struct {
    uint8_t *px;      /* pixel (0, 0) */
    size_t pitch;     /* bytes from one row to the next (>= w * 4) */
    int w, h;         /* the image */
    render_rect clip; /* only pixels in here are written; within the image */
} canvas;

/* An image of w x h pixels at px, rows pitch bytes apart, all of it writable. */
canvas canvas_make(uint8_t *px, int w, int h, size_t pitch);

/* Opaque colour over x, y, w, h (alpha 255). */
void canvas_fill(const canvas *c, int x, int y, int w, int h, rgb8 col);
/* col at alpha a (0 .. 255) over x, y, w, h; the image's alpha is left alone. */
void canvas_blend(const canvas *c, int x, int y, int w, int h, rgb8 col, unsigned a);
/* A one-pixel frame along the inside of x, y, w, h. */
void canvas_outline(const canvas *c, int x, int y, int w, int h, rgb8 col);

/* The width in pixels of s in font (0 for NULL, "" or a string it cannot measure). */
/* SDL2_ttf and FreeType share one library state between fonts (TTF_Init's count, faces made
 * and freed, SDL's surface formats): every TTF call of the program runs under this lock, so
 * that pictures drawn on several threads at once (a batch's sessions) do not race. The text
 * functions below take it themselves. */
void canvas_ttf_lock(void);
void canvas_ttf_unlock(void);
int canvas_text_width(struct _TTF_Font *font, const char *s);
/* Cuts s (UTF-8, in place) until it fits max_w pixels in font, ending it with an ellipsis;
 * "" when not even that fits. */
void canvas_fit_text(struct _TTF_Font *font, char *s, int max_w);
/* Text already rendered (TTF_RenderUTF8_Blended: ARGB8888, coverage in alpha) blended in
 * colour col with its box's top-left at x, y. rotate: turned 90 degrees counter-clockwise,
 * reading bottom to top. */
void canvas_blit_text(const canvas *c, const struct SDL_Surface *sf, int x, int y, rgb8 col, int rotate);
/* s rendered in font and blitted as canvas_blit_text does; text wholly outside a clip
 * smaller than the image is not rendered at all (a part redrawn often stays cheap). */
void canvas_text(const canvas *c, struct _TTF_Font *font, const char *s, int x, int y, rgb8 col, int rotate);

#ifdef __cplusplus
}
#endif
#endif
