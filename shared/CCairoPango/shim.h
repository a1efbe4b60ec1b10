#ifndef BACKPLANE_CCAIROPANGO_SHIM_H
#define BACKPLANE_CCAIROPANGO_SHIM_H
#include <cairo.h>
#include <cairo-pdf.h>

// The few Pango calls the renderer makes, declared here rather than through <pango/pangocairo.h>:
// Pango's pkg-config flags carry -pthread, which SwiftPM refuses with a warning. These are the
// stable public signatures of Pango 1.x (pango/pango-layout.h, pango-font.h, pangocairo.h).
typedef struct _PangoLayout PangoLayout;
typedef struct _PangoFontDescription PangoFontDescription;
typedef struct {
    int x;
    int y;
    int width;
    int height;
} PangoRectangle;

enum { BACKPLANE_PANGO_SCALE = 1024 };
enum { BACKPLANE_PANGO_WRAP_WORD_CHAR = 2 };
enum { BACKPLANE_PANGO_ELLIPSIZE_END = 3 };

PangoLayout *pango_cairo_create_layout(cairo_t *cr);
void pango_cairo_show_layout(cairo_t *cr, PangoLayout *layout);
void pango_layout_set_width(PangoLayout *layout, int width);
void pango_layout_set_height(PangoLayout *layout, int height);
void pango_layout_set_wrap(PangoLayout *layout, int wrap);
void pango_layout_set_ellipsize(PangoLayout *layout, int ellipsize);
void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *desc);
void pango_layout_get_extents(PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect);
PangoFontDescription *pango_font_description_from_string(const char *str);
void pango_font_description_set_absolute_size(PangoFontDescription *desc, double size);
void pango_font_description_free(PangoFontDescription *desc);
void g_object_unref(void *object);
#endif
