#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>
#include "cshims.h"
#include "png_internal.h"

// A PNG for a small cell without its full-size bitmap: libpng's progressive reader is fed the
// data a chunk at a time, hands back each row expanded to RGBA8 (the transforms of png.c), and the
// row goes straight into the box filter, as JPEG rows do (ib_jpeg_fill_pass). Memory is libpng's
// row buffers and the filter's column sums, whatever the image's height. Between chunks and after
// every row the control may stop the decode; after the image's last row nothing more is fed, so a
// "bomb" whose compressed data runs on past its image is never inflated further.

/// Input handed to libpng per call: small enough that a stop between calls is prompt, large
/// enough that the calls cost nothing next to inflating.
#define IB_PNG_CHUNK 65536

typedef struct {
    ib_decode_control *control;
    uint32_t target_width, target_height;
    uint8_t *output;
    size_t output_capacity;
    ib_decode_report *report;
    char *error;
    int status;    // why a callback ended the decode (a longjmp): IB_IMAGE_OK once the last row is in
    int finished;  // the last row is in
    uint32_t height;
    ib_fill_geometry geometry;
    ib_fill fill;
    uint32_t *scratch;
} ib_png_stream;

// Ends the decode from inside a callback: libpng's own way out is its longjmp, which the feeding
// loop's setjmp catches with the status left here.
static void ib_png_stream_end(png_structp png, ib_png_stream *stream, int status) {
    stream->status = status;
    png_longjmp(png, 1);
}

static void ib_png_stream_info(png_structp png, png_infop info) {
    ib_png_stream *stream = (ib_png_stream *)png_get_progressive_ptr(png);
    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    stream->report->source_width = width;
    stream->report->source_height = height;
    stream->height = height;
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        // Adam7 rows arrive in seven passes: only a whole bitmap can be filtered.
        if (stream->error) snprintf(stream->error, IB_ERROR_CAPACITY, "interlaced PNG");
        ib_png_stream_end(png, stream, IB_IMAGE_UNSUPPORTED);
    }
    ib_fill_geometry_for(width, height, stream->target_width, stream->target_height, &stream->geometry);
    size_t out_bytes = (size_t)stream->geometry.out_width * stream->geometry.out_height * 4;
    if (out_bytes > stream->output_capacity) {
        if (stream->error) snprintf(stream->error, IB_ERROR_CAPACITY, "output buffer too small");
        ib_png_stream_end(png, stream, IB_IMAGE_NO_MEMORY);
    }
    // What grows with the image here: libpng's rows (the raw row and the previous one at up to 8
    // bytes a pixel, and the transformed row), the filter's sums, and the output. Charged before
    // ib_png_set_rgba8: its png_read_update_info allocates libpng's row buffers, so a 50,000,000
    // × 1 PNG of a few kB would otherwise take 800 MB before any charge.
    size_t scratch_count = ib_fill_scratch_count(&stream->geometry);
    uint64_t needed = (uint64_t)width * 8 * 3 + scratch_count * sizeof(uint32_t) + out_bytes;
    int status = ib_decode_charge(stream->control, needed);
    if (status != IB_IMAGE_OK) ib_png_stream_end(png, stream, status);
    status = ib_png_set_rgba8(png, info, stream->error);
    if (status != IB_IMAGE_OK) ib_png_stream_end(png, stream, status);
    stream->scratch = malloc(scratch_count * sizeof(uint32_t));
    if (!stream->scratch) ib_png_stream_end(png, stream, IB_IMAGE_NO_MEMORY);
    ib_fill_begin(&stream->fill, &stream->geometry, stream->scratch, stream->output);
}

static void ib_png_stream_row(png_structp png, png_bytep row, png_uint_32 number, int pass) {
    (void)pass;
    ib_png_stream *stream = (ib_png_stream *)png_get_progressive_ptr(png);
    const ib_fill_geometry *g = &stream->geometry;
    if (row && number >= g->crop_y && number - g->crop_y < g->crop_height) {
        ib_fill_row(&stream->fill, row + (size_t)g->crop_x * 4);
    }
    if (number + 1 >= stream->height) {
        stream->finished = 1;
        ib_png_stream_end(png, stream, IB_IMAGE_OK);
    }
    if (ib_decode_should_stop(stream->control)) ib_png_stream_end(png, stream, IB_IMAGE_STOPPED);
}

// Feeds the data a chunk at a time, polling the stop between chunks. Returns only if the data ran
// out before the last row (a truncated file) or the stop said so; the last row longjmps.
static int ib_png_feed(png_structp png, png_infop info, const uint8_t *data, size_t length,
                       ib_decode_control *control) {
    for (size_t offset = 0; offset < length;) {
        if (ib_decode_should_stop(control)) return IB_IMAGE_STOPPED;
        size_t count = length - offset < IB_PNG_CHUNK ? length - offset : IB_PNG_CHUNK;
        png_process_data(png, info, (png_bytep)(data + offset), count);
        offset += count;
    }
    return IB_IMAGE_CORRUPT;
}

int ib_png_decode_fill(const uint8_t *data, size_t length, uint32_t target_width,
                       uint32_t target_height, uint8_t *output, size_t output_capacity,
                       ib_decode_report *report, ib_decode_control *control, char *error) {
    if (error) error[0] = 0;
    memset(report, 0, sizeof *report);
    if (length < 8 || png_sig_cmp(data, 0, 8) != 0) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "not a PNG signature");
        return IB_IMAGE_CORRUPT;
    }
    // On the heap: the callbacks change it between setjmp and longjmp, and a local changed there
    // would be indeterminate after the jump (C11 7.13.2.1); the pointer itself never changes.
    ib_png_stream *stream = calloc(1, sizeof *stream);
    if (!stream) return IB_IMAGE_NO_MEMORY;
    *stream = (ib_png_stream){control, target_width, target_height, output, output_capacity, report, error,
                              IB_IMAGE_CORRUPT, 0, 0, {0}, {0}, NULL};
    png_structp png = NULL;
    png_infop info = NULL;
    ib_png_errors errors;
    int status = ib_png_create(&png, &info, &errors, error);
    if (status != IB_IMAGE_OK) {
        free(stream);
        return status;
    }
    if (setjmp(png_jmpbuf(png))) {
        // libpng's error (status still CORRUPT), or a callback's end: stop, finish, refusal.
        status = stream->finished && stream->status == IB_IMAGE_OK ? IB_IMAGE_OK : stream->status;
    } else {
        png_set_progressive_read_fn(png, stream, ib_png_stream_info, ib_png_stream_row, NULL);
        status = ib_png_feed(png, info, data, length, control);
        if (status != IB_IMAGE_STOPPED && error) snprintf(error, IB_ERROR_CAPACITY, "unexpected end of data (truncated PNG)");
    }
    png_destroy_read_struct(&png, &info, NULL);
    if (status == IB_IMAGE_OK) {
        report->width = stream->geometry.out_width;
        report->height = stream->geometry.out_height;
    }
    free(stream->scratch);
    free(stream);
    return status;
}
