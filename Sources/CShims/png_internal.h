#ifndef IMGBENCH_PNG_INTERNAL_H
#define IMGBENCH_PNG_INTERNAL_H

// What png.c shares with png_stream.c: the longjmp error handlers, the read struct's creation and
// the transforms to RGBA8, so the whole-image and streamed decodes give the same pixels. Not part
// of the module's public header.

#include <png.h>
#include "cshims.h"

typedef struct {
    char *message;
} ib_png_errors;

/// A read struct whose errors longjmp with libpng's message in errors->message, and its info.
int ib_png_create(png_structp *png, png_infop *info, ib_png_errors *errors, char *error);

/// After the header: expand to 8-bit RGBA exactly (palette and low bit depths expanded, tRNS to
/// alpha, 16 bits scaled with rounding, gray replicated, missing alpha 255), then updates the
/// info. IB_IMAGE_UNSUPPORTED (with a message) when rows would not be width * 4 bytes.
/// Ends with png_read_update_info, which the progressive reader's info callback may call too.
int ib_png_set_rgba8(png_structp png, png_infop info, char *error);

#endif
