#ifndef IMGBENCH_JPEG_INTERNAL_H
#define IMGBENCH_JPEG_INTERNAL_H

// What jpeg.c shares with jpeg_progressive.c: the longjmp error manager and the output pass of a
// fill decode. Not part of the module's public header.

#include <stdio.h>
#include <setjmp.h>
#include <jpeglib.h>
#include "cshims.h"

// libjpeg reports fatal errors through error_exit, which by default calls exit(). The standard fix:
// an error manager that longjmps back to the caller, keeping the message for a typed error.
// It also carries the decode's control: a stop polled from libjpeg's progress monitor leaves by
// the same longjmp, with `stopped` set.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char *message;
    ib_decode_control *control;
    struct jpeg_progress_mgr progress;
    // Set by the progress monitor just before its longjmp, read after it: volatile, so the read
    // is from memory, not a value the optimiser kept from before the jump.
    volatile int stopped;
} ib_jpeg_error;

void ib_jpeg_error_exit(j_common_ptr cinfo);
void ib_jpeg_silent(j_common_ptr cinfo);
int ib_jpeg_status_for(int msg_code);
/// After jpeg_create_decompress: the control's budget becomes libjpeg's max_memory_to_use
/// (libjpeg-turbo has no backing store, so a decode that needs more fails with
/// JERR_NO_BACKING_STORE), and its stop is polled by a progress monitor (set only when there is
/// a stop, so a decode without one pays nothing).
void ib_jpeg_setup_control(struct jpeg_decompress_struct *cinfo, ib_jpeg_error *err, ib_decode_control *control);
/// The status of a decode that longjmped: stopped, over the budget (control->needed estimated
/// from the coefficient arrays), or the error's class.
int ib_jpeg_failure(struct jpeg_decompress_struct *cinfo, ib_jpeg_error *err);
void ib_jpeg_setup_errors(struct jpeg_decompress_struct *cinfo, ib_jpeg_error *err, char *message);
int ib_jpeg_prepare(struct jpeg_decompress_struct *cinfo, int scale_denom, char *error);

/// A fill decode's start, once its source is set: reads the header (the source size into
/// `report`), refuses more than max_pixels before anything is allocated, and sets the DCT scale
/// for the cell. Call it inside the caller's setjmp scope: libjpeg's errors longjmp there.
int ib_jpeg_open_for_cell(struct jpeg_decompress_struct *cinfo, uint32_t target_width, uint32_t target_height,
                          uint64_t max_pixels, ib_decode_report *report, char *error);

/// The rows of an output pass (after jpeg_start_decompress, or jpeg_start_output in buffered-image
/// mode) through the aspect-fill box filter into `output`; stops after the crop's last row, the
/// caller finishes the pass. Writes the geometry used; IB_IMAGE_NO_MEMORY if `output` is too small.
int ib_jpeg_fill_pass(struct jpeg_decompress_struct *cinfo, uint32_t target_width,
                      uint32_t target_height, uint8_t *output, size_t output_capacity,
                      ib_fill_geometry *geometry, char *error);

#endif
