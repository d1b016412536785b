#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>
#include "cshims.h"
#include "png_internal.h"

// The full libpng API (not the simplified one) so that 16-bit and gray images decode to exact 8-bit
// values with no gamma conversion, and so errors carry libpng's message. libpng's errors longjmp.

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
} ib_png_source;

static void ib_png_error(png_structp png, png_const_charp text) {
    ib_png_errors *errors = (ib_png_errors *)png_get_error_ptr(png);
    if (errors && errors->message) snprintf(errors->message, IB_ERROR_CAPACITY, "%s", text);
    png_longjmp(png, 1);
}

static void ib_png_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void ib_png_read(png_structp png, png_bytep out, png_size_t count) {
    ib_png_source *source = (ib_png_source *)png_get_io_ptr(png);
    if (source->length - source->offset < count) {
        png_error(png, "unexpected end of data (truncated PNG)");
    }
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

int ib_png_create(png_structp *png, png_infop *info, ib_png_errors *errors, char *error) {
    errors->message = error;
    *png = png_create_read_struct(PNG_LIBPNG_VER_STRING, errors, ib_png_error, ib_png_warning);
    if (!*png) return IB_IMAGE_NO_MEMORY;
    *info = png_create_info_struct(*png);
    if (!*info) {
        png_destroy_read_struct(png, NULL, NULL);
        return IB_IMAGE_NO_MEMORY;
    }
    // Our own limits are checked by the caller from the header; lift libpng's 1M-pixel default
    // row limit so a legitimately wide image is not refused here.
    png_set_user_limits(*png, 0x7fffffff, 0x7fffffff);
    return IB_IMAGE_OK;
}

static int ib_png_begin(png_structp *png, png_infop *info, ib_png_source *source,
                        ib_png_errors *errors, const uint8_t *data, size_t length, char *error) {
    if (error) error[0] = 0;
    if (length < 8 || png_sig_cmp(data, 0, 8) != 0) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "not a PNG signature");
        return IB_IMAGE_CORRUPT;
    }
    source->data = data;
    source->length = length;
    source->offset = 0;
    int status = ib_png_create(png, info, errors, error);
    if (status == IB_IMAGE_OK) png_set_read_fn(*png, source, ib_png_read);
    return status;
}

int ib_png_set_rgba8(png_structp png, png_infop info, char *error) {
    int color = png_get_color_type(png, info);
    png_set_expand(png);                 // palette to RGB, gray < 8 bits to 8, tRNS to alpha
    png_set_scale_16(png);               // 16 to 8 bits, rounded
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(color & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS)) {
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    }
    // Interlace handling before the update, as libpng requires (a no-op for other images).
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)png_get_image_width(png, info) * 4) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "unexpected row layout");
        return IB_IMAGE_UNSUPPORTED;
    }
    return IB_IMAGE_OK;
}

int ib_png_read_info(const uint8_t *data, size_t length, ib_image_info *out, char *error) {
    png_structp png = NULL;
    png_infop info = NULL;
    ib_png_source source;
    ib_png_errors errors;
    int status = ib_png_begin(&png, &info, &source, &errors, data, length, error);
    if (status != IB_IMAGE_OK) return status;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return IB_IMAGE_CORRUPT;
    }
    png_read_info(png, info);
    int color = png_get_color_type(png, info);
    out->width = png_get_image_width(png, info);
    out->height = png_get_image_height(png, info);
    out->components = png_get_channels(png, info);
    out->bit_depth = png_get_bit_depth(png, info);
    out->progressive = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    out->has_alpha = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    png_destroy_read_struct(&png, &info, NULL);
    return IB_IMAGE_OK;
}

int ib_png_decode_rgba(const uint8_t *data, size_t length, uint8_t *output,
                       size_t output_capacity, ib_decode_control *control, char *error) {
    png_structp png = NULL;
    png_infop info = NULL;
    ib_png_source source;
    ib_png_errors errors;
    int status = ib_png_begin(&png, &info, &source, &errors, data, length, error);
    if (status != IB_IMAGE_OK) return status;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return IB_IMAGE_CORRUPT;
    }
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    size_t stride = (size_t)width * 4;
    if (stride * height > output_capacity) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "output buffer too small");
        png_destroy_read_struct(&png, &info, NULL);
        return IB_IMAGE_NO_MEMORY;
    }
    int passes = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE ? 7 : 1;
    status = ib_png_set_rgba8(png, info, error);
    if (status != IB_IMAGE_OK) {
        png_destroy_read_struct(&png, &info, NULL);
        return status;
    }
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) {
            // A row at a time is where a decode of a hostile file can be stopped.
            if (ib_decode_should_stop(control)) {
                png_destroy_read_struct(&png, &info, NULL);
                return IB_IMAGE_STOPPED;
            }
            png_read_row(png, output + stride * y, NULL);
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return IB_IMAGE_OK;
}

typedef struct {
    uint8_t *data;
    size_t length;
    size_t capacity;
} ib_png_sink;

static void ib_png_write(png_structp png, png_bytep chunk, png_size_t count) {
    ib_png_sink *sink = (ib_png_sink *)png_get_io_ptr(png);
    if (sink->length + count > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity * 2 : 65536;
        while (capacity < sink->length + count) capacity *= 2;
        uint8_t *grown = realloc(sink->data, capacity);
        if (!grown) png_error(png, "out of memory");
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->length, chunk, count);
    sink->length += count;
}

static void ib_png_flush(png_structp png) { (void)png; }

int ib_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int color_type,
                  int bit_depth, int compression_level, uint8_t **out, size_t *out_length,
                  char *error) {
    ib_png_errors errors = {error};
    ib_png_sink sink = {NULL, 0, 0};
    if (error) error[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, ib_png_error,
                                              ib_png_warning);
    if (!png) return IB_IMAGE_NO_MEMORY;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return IB_IMAGE_NO_MEMORY;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(sink.data);
        return IB_IMAGE_CORRUPT;
    }
    png_set_write_fn(png, &sink, ib_png_write, ib_png_flush);
    png_set_compression_level(png, compression_level);
    png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    int channels = png_get_channels(png, info);
    size_t stride = (size_t)width * (size_t)channels * (size_t)(bit_depth / 8);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + stride * y));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = sink.data;
    *out_length = sink.length;
    return IB_IMAGE_OK;
}

const char *ib_libpng_version(void) { return PNG_LIBPNG_VER_STRING; }
