#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>
#include "cshims.h"
#include "jpeg_internal.h"  // the error manager

// The corpus's JPEG encoder, apart from the decoders in jpeg.c.

int ib_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components,
                   int quality, int progressive, uint8_t **out, size_t *out_length, char *error) {
    struct jpeg_compress_struct cinfo;
    ib_jpeg_error err;
    // Both fields must survive a longjmp, so they live in memory the jump does not roll back.
    unsigned char *volatile buffer = NULL;
    unsigned long buffer_length = 0;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = ib_jpeg_error_exit;
    err.base.output_message = ib_jpeg_silent;
    err.message = error;
    if (error) error[0] = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return IB_IMAGE_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    unsigned char *dest = NULL;
    jpeg_mem_dest(&cinfo, &dest, &buffer_length);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    buffer = dest;
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_length = buffer_length;
    return IB_IMAGE_OK;
}
