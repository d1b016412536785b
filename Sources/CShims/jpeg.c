#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
#include "cshims.h"
#include "jpeg_internal.h"  // the error manager, shared with jpeg_progressive.c

void ib_jpeg_error_exit(j_common_ptr cinfo) {
    ib_jpeg_error *err = (ib_jpeg_error *)cinfo->err;
    if (err->message) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        snprintf(err->message, IB_ERROR_CAPACITY, "%s", text);
    }
    longjmp(err->jump, 1);
}

// Warnings (damaged but decodable data) are counted in num_warnings, never printed.
void ib_jpeg_silent(j_common_ptr cinfo) { (void)cinfo; }

int ib_jpeg_status_for(int msg_code) {
    switch (msg_code) {
    case JERR_BAD_PRECISION:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_BAD_J_COLORSPACE:
    case JERR_NO_ARITH_TABLE:
        return IB_IMAGE_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
        return IB_IMAGE_NO_MEMORY;
    default:
        return IB_IMAGE_CORRUPT;
    }
}

void ib_jpeg_setup_errors(struct jpeg_decompress_struct *cinfo, ib_jpeg_error *err,
                          char *message) {
    cinfo->err = jpeg_std_error(&err->base);
    err->base.error_exit = ib_jpeg_error_exit;
    err->base.output_message = ib_jpeg_silent;
    err->message = message;
    err->control = NULL;
    err->stopped = 0;
    if (message) message[0] = 0;
}

// libjpeg calls it per row of input absorbed (a progressive file's whole input is absorbed in
// jpeg_start_decompress) and per jpeg_read_scanlines call: a clock read per row at most.
static void ib_jpeg_progress(j_common_ptr cinfo) {
    ib_jpeg_error *err = (ib_jpeg_error *)cinfo->client_data;
    if (ib_decode_should_stop(err->control)) {
        err->stopped = 1;
        longjmp(err->jump, 1);
    }
}

void ib_jpeg_setup_control(struct jpeg_decompress_struct *cinfo, ib_jpeg_error *err, ib_decode_control *control) {
    err->control = control;
    if (!control) return;
    if (control->max_bytes > 0) cinfo->mem->max_memory_to_use = (long)control->max_bytes;
    if (control->should_stop) {
        err->progress.progress_monitor = ib_jpeg_progress;
        cinfo->client_data = err;
        cinfo->progress = &err->progress;
    }
}

int ib_jpeg_failure(struct jpeg_decompress_struct *cinfo, ib_jpeg_error *err) {
    if (err->stopped) return IB_IMAGE_STOPPED;
    if (err->base.msg_code == JERR_NO_BACKING_STORE && err->control) {
        // Only whole-image buffers (a progressive file's coefficients) ask for a backing store:
        // what they need is 2 bytes per coefficient of every component, in whole iMCU rows.
        uint64_t needed = 0;
        for (int i = 0; i < cinfo->num_components && cinfo->comp_info; i++) {
            const jpeg_component_info *c = &cinfo->comp_info[i];
            uint64_t columns = (c->width_in_blocks + c->h_samp_factor - 1) / c->h_samp_factor * c->h_samp_factor;
            uint64_t rows = (c->height_in_blocks + c->v_samp_factor - 1) / c->v_samp_factor * c->v_samp_factor;
            needed += columns * rows * DCTSIZE2 * sizeof(JCOEF);
        }
        err->control->needed = needed > err->control->max_bytes ? needed : err->control->max_bytes + 1;
        return IB_IMAGE_OVER_BUDGET;
    }
    return ib_jpeg_status_for(err->base.msg_code);
}

int ib_jpeg_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error) {
    struct jpeg_decompress_struct cinfo;
    ib_jpeg_error err;
    ib_jpeg_setup_errors(&cinfo, &err, error);
    if (setjmp(err.jump)) {
        int status = ib_jpeg_status_for(err.base.msg_code);
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    info->width = cinfo.image_width;
    info->height = cinfo.image_height;
    info->components = cinfo.num_components;
    info->bit_depth = cinfo.data_precision;
    info->progressive = cinfo.progressive_mode ? 1 : 0;
    info->has_alpha = 0;
    jpeg_destroy_decompress(&cinfo);
    return IB_IMAGE_OK;
}

int ib_jpeg_prepare(struct jpeg_decompress_struct *cinfo, int scale_denom, char *error) {
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "CMYK JPEG is not supported");
        return IB_IMAGE_UNSUPPORTED;
    }
    cinfo->out_color_space = JCS_EXT_RGBA;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)(scale_denom > 0 ? scale_denom : 1);
    return IB_IMAGE_OK;
}

int ib_jpeg_scaled_size(const uint8_t *data, size_t length, int scale_denom,
                        uint32_t *out_width, uint32_t *out_height, char *error) {
    struct jpeg_decompress_struct cinfo;
    ib_jpeg_error err;
    ib_jpeg_setup_errors(&cinfo, &err, error);
    if (setjmp(err.jump)) {
        int status = ib_jpeg_status_for(err.base.msg_code);
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    int status = ib_jpeg_prepare(&cinfo, scale_denom, error);
    if (status == IB_IMAGE_OK) {
        jpeg_calc_output_dimensions(&cinfo);
        *out_width = cinfo.output_width;
        *out_height = cinfo.output_height;
    }
    jpeg_destroy_decompress(&cinfo);
    return status;
}

int ib_jpeg_decode_rgba(const uint8_t *data, size_t length, int scale_denom,
                        uint8_t *output, size_t output_capacity, int *warnings,
                        ib_decode_control *control, char *error) {
    struct jpeg_decompress_struct cinfo;
    ib_jpeg_error err;
    ib_jpeg_setup_errors(&cinfo, &err, error);
    if (setjmp(err.jump)) {
        int status = ib_jpeg_failure(&cinfo, &err);
        if (status == IB_IMAGE_OVER_BUDGET) control->needed += output_capacity;
        if (warnings) *warnings = (int)err.base.num_warnings;
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    ib_jpeg_setup_control(&cinfo, &err, control);
    // The caller's full-size output counts against the same budget: libjpeg gets what is left.
    if (control && control->max_bytes > 0) {
        cinfo.mem->max_memory_to_use = (long)(control->max_bytes > output_capacity ? control->max_bytes - output_capacity : 1);
    }
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    int status = ib_jpeg_prepare(&cinfo, scale_denom, error);
    if (status != IB_IMAGE_OK) {
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 4;
    if (stride * cinfo.output_height > output_capacity) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "output buffer too small");
        jpeg_destroy_decompress(&cinfo);
        return IB_IMAGE_NO_MEMORY;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = output + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    if (warnings) *warnings = (int)err.base.num_warnings;
    jpeg_destroy_decompress(&cinfo);
    return IB_IMAGE_OK;
}

int ib_jpeg_scale_for(uint32_t source_width, uint32_t source_height, uint32_t target_width,
                      uint32_t target_height) {
    int denominator = 1;
    for (int candidate = 2; candidate <= 8; candidate *= 2) {
        uint32_t width = (source_width + candidate - 1) / candidate;
        uint32_t height = (source_height + candidate - 1) / candidate;
        if (width >= target_width && height >= target_height) denominator = candidate;
    }
    return denominator;
}

int ib_jpeg_fill_pass(struct jpeg_decompress_struct *cinfo, uint32_t target_width,
                      uint32_t target_height, uint8_t *output, size_t output_capacity,
                      ib_fill_geometry *geometry, char *error) {
    ib_fill_geometry_for(cinfo->output_width, cinfo->output_height, target_width, target_height, geometry);
    if ((size_t)geometry->out_width * geometry->out_height * 4 > output_capacity) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "output buffer too small");
        return IB_IMAGE_NO_MEMORY;
    }
    // Only the crop is decoded: columns outside it are not inverse-transformed or colour
    // converted (jpeg_crop_scanline widens the window to whole iMCUs), rows above and below it
    // are entropy-decoded and dropped (jpeg_skip_scanlines), so damage anywhere is still seen.
    // Chroma upsampling treats the window's edges as the image's, so a column next to a cut can
    // differ by one level from a full decode's.
    JDIMENSION window_x = geometry->crop_x, window_width = geometry->crop_width;
    if (window_width < cinfo->output_width) jpeg_crop_scanline(cinfo, &window_x, &window_width);
    // In the image pool, so an error's longjmp frees them with the decompressor. Rows are read
    // in the decoder's natural batch (2 for 4:2:0 chroma), which spares libjpeg a copy per row.
    int batch = cinfo->rec_outbuf_height > 0 ? cinfo->rec_outbuf_height : 1;
    JSAMPARRAY rows = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                   cinfo->output_width * 4, (JDIMENSION)batch);
    uint32_t *scratch = (*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                   ib_fill_scratch_count(geometry) * sizeof(uint32_t));
    ib_fill fill;
    ib_fill_begin(&fill, geometry, scratch, output);
    size_t window_offset = (size_t)(geometry->crop_x - window_x) * 4;
    if (geometry->crop_y > 0) jpeg_skip_scanlines(cinfo, geometry->crop_y);
    for (uint32_t y = 0; y < geometry->crop_height;) {
        JDIMENSION wanted = geometry->crop_height - y < (uint32_t)batch ? geometry->crop_height - y : (JDIMENSION)batch;
        JDIMENSION got = jpeg_read_scanlines(cinfo, rows, wanted);
        if (got == 0) break;  // cannot happen with a memory source; never spin
        for (JDIMENSION k = 0; k < got; k++) ib_fill_row(&fill, rows[k] + window_offset);
        y += got;
    }
    return IB_IMAGE_OK;
}

int ib_jpeg_open_for_cell(struct jpeg_decompress_struct *cinfo, uint32_t target_width, uint32_t target_height,
                          uint64_t max_pixels, ib_decode_report *report, char *error) {
    jpeg_read_header(cinfo, TRUE);
    report->source_width = cinfo->image_width;
    report->source_height = cinfo->image_height;
    if ((uint64_t)cinfo->image_width * cinfo->image_height > max_pixels) return IB_IMAGE_TOO_LARGE;
    int scale = ib_jpeg_scale_for(cinfo->image_width, cinfo->image_height, target_width, target_height);
    return ib_jpeg_prepare(cinfo, scale, error);
}

int ib_jpeg_decode_fill(const uint8_t *data, size_t length, uint32_t target_width,
                        uint32_t target_height, uint64_t max_pixels, uint8_t *output,
                        size_t output_capacity, ib_decode_report *report,
                        ib_decode_control *control, char *error) {
    struct jpeg_decompress_struct cinfo;
    ib_jpeg_error err;
    ib_jpeg_setup_errors(&cinfo, &err, error);
    memset(report, 0, sizeof *report);
    if (setjmp(err.jump)) {
        int status = ib_jpeg_failure(&cinfo, &err);
        report->warnings = (int)err.base.num_warnings;
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    ib_jpeg_setup_control(&cinfo, &err, control);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    int status = ib_jpeg_open_for_cell(&cinfo, target_width, target_height, max_pixels, report, error);
    if (status != IB_IMAGE_OK) {
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_start_decompress(&cinfo);
    ib_fill_geometry geometry;
    status = ib_jpeg_fill_pass(&cinfo, target_width, target_height, output, output_capacity,
                               &geometry, error);
    if (status != IB_IMAGE_OK) {
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    if (cinfo.output_scanline < cinfo.output_height)
        jpeg_skip_scanlines(&cinfo, cinfo.output_height - cinfo.output_scanline);
    jpeg_finish_decompress(&cinfo);
    report->width = geometry.out_width;
    report->height = geometry.out_height;
    report->warnings = (int)err.base.num_warnings;
    jpeg_destroy_decompress(&cinfo);
    return IB_IMAGE_OK;
}

void ib_free(void *pointer) { free(pointer); }

int ib_libjpeg_version(void) {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
    return LIBJPEG_TURBO_VERSION_NUMBER;
#else
    return JPEG_LIB_VERSION;
#endif
}
