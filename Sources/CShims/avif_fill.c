#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <avif/avif.h>
#include "cshims.h"
#include "avif_internal.h"

// An AVIF for a small cell without a full-size RGBA bitmap: dav1d's frame (the planes, which no
// API lets us avoid) is converted to RGBA a band of rows at a time, each band's rows going
// through the box filter. libavif 0.11 converts whole images only, so each band is a view of the
// frame: the same image struct with its plane pointers moved down and its height cut. Chroma
// upsampling (4:2:0, 4:2:2) reads neighbouring chroma rows, so each band is converted with a
// margin of rows above and below that are not used: the rows used equal the whole conversion's.

#define IB_AVIF_BAND 64    // rows used per band
#define IB_AVIF_MARGIN 4   // rows converted beyond each side of a band (2 chroma rows of 4:2:0)
// Rows a band's buffer holds: its rows, both margins, and one more, since the top is moved up to
// an even row (4:2:0 chroma pairs) and can start a row above its margin. Without that row a band
// whose start minus the margin was odd wrote one row past the buffer (heap corruption).
#define IB_AVIF_BAND_ROWS (IB_AVIF_BAND + 2 * IB_AVIF_MARGIN + 1)

typedef struct {
    uint32_t target_width, target_height;
    size_t output_capacity;
    ib_fill_geometry geometry;
} ib_avif_cell;

// The cell's output, the band (with its margins) and the filter's sums.
static uint64_t ib_avif_cell_bytes(uint32_t width, uint32_t height, void *context) {
    ib_avif_cell *cell = (ib_avif_cell *)context;
    ib_fill_geometry_for(width, height, cell->target_width, cell->target_height, &cell->geometry);
    uint64_t out = (uint64_t)cell->geometry.out_width * cell->geometry.out_height * 4;
    if (out > cell->output_capacity) return 0;
    return out + (uint64_t)width * IB_AVIF_BAND_ROWS * 4
        + ib_fill_scratch_count(&cell->geometry) * sizeof(uint32_t);
}

// Rows [top, bottom) of `image` as an image of their own (no copy: the planes are the frame's).
// `top` is a multiple of the chroma's vertical subsampling, so the chroma rows line up.
static avifImage ib_avif_rows(const avifImage *image, uint32_t top, uint32_t bottom) {
    avifImage band = *image;
    band.height = bottom - top;
    uint32_t chroma_shift = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV420 ? 1 : 0;
    for (int plane = 0; plane < AVIF_PLANE_COUNT_YUV; plane++) {
        if (!image->yuvPlanes[plane]) continue;
        uint32_t row = plane == AVIF_CHAN_Y ? top : top >> chroma_shift;
        band.yuvPlanes[plane] = image->yuvPlanes[plane] + (size_t)row * image->yuvRowBytes[plane];
    }
    if (image->alphaPlane) band.alphaPlane = image->alphaPlane + (size_t)top * image->alphaRowBytes;
    return band;
}

static int ib_avif_fill_rows(avifDecoder *decoder, const ib_fill_geometry *g, uint8_t *output,
                             ib_decode_control *control, char *error) {
    const avifImage *image = decoder->image;
    size_t stride = (size_t)image->width * 4;
    uint8_t *band = malloc(stride * IB_AVIF_BAND_ROWS);
    uint32_t *scratch = malloc(ib_fill_scratch_count(g) * sizeof(uint32_t));
    int status = band && scratch ? IB_IMAGE_OK : IB_IMAGE_NO_MEMORY;
    ib_fill fill;
    if (status == IB_IMAGE_OK) ib_fill_begin(&fill, g, scratch, output);
    uint32_t end = g->crop_y + g->crop_height;
    for (uint32_t y = g->crop_y; status == IB_IMAGE_OK && y < end; y += IB_AVIF_BAND) {
        if (ib_decode_should_stop(control)) {
            status = IB_IMAGE_STOPPED;
            break;
        }
        uint32_t last = y + IB_AVIF_BAND < end ? y + IB_AVIF_BAND : end;
        uint32_t top = (y > IB_AVIF_MARGIN ? y - IB_AVIF_MARGIN : 0) & ~1u;
        uint32_t bottom = last + IB_AVIF_MARGIN < image->height ? last + IB_AVIF_MARGIN : image->height;
        if (bottom - top > IB_AVIF_BAND_ROWS) {  // cannot happen with the bounds above; never write past the band
            if (error) snprintf(error, IB_ERROR_CAPACITY, "band of %u rows exceeds its buffer", bottom - top);
            status = IB_IMAGE_CORRUPT;
            break;
        }
        avifImage rows = ib_avif_rows(image, top, bottom);
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, &rows);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.pixels = band;
        rgb.rowBytes = (uint32_t)stride;
        status = ib_avif_status(avifImageYUVToRGB(&rows, &rgb), &decoder->diag, error);
        for (uint32_t row = y; status == IB_IMAGE_OK && row < last; row++) {
            ib_fill_row(&fill, band + (size_t)(row - top) * stride + (size_t)g->crop_x * 4);
        }
    }
    free(band);
    free(scratch);
    return status;
}

int ib_avif_decode_fill(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t target_width,
                        uint32_t target_height, uint8_t *output, size_t output_capacity, ib_image_info *info,
                        ib_decode_report *report, ib_decode_control *control, char *error) {
    memset(report, 0, sizeof *report);
    avifDecoder *decoder = avifDecoderCreate();
    if (!decoder) return IB_IMAGE_NO_MEMORY;
    ib_avif_cell cell = {target_width, target_height, output_capacity, {0}};
    int status = ib_avif_decode_frame(decoder, data, length, max_pixels, ib_avif_cell_bytes, &cell, info, control, error);
    report->source_width = info->width;
    report->source_height = info->height;
    if (status == IB_IMAGE_OK) status = ib_avif_fill_rows(decoder, &cell.geometry, output, control, error);
    if (status == IB_IMAGE_OK) {
        report->width = cell.geometry.out_width;
        report->height = cell.geometry.out_height;
    }
    avifDecoderDestroy(decoder);
    return status;
}
