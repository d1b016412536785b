#ifndef IMGBENCH_DECODE_CONTROL_H
#define IMGBENCH_DECODE_CONTROL_H

#include <stdint.h>

/// What bounds one decode beyond the header's pixel count: memory and time. Every decode call
/// takes one (NULL: no budget, never stopped).
/// - `max_bytes`: the most a decode may allocate in proportion to the image (full-size bitmaps,
///   coefficient arrays, frame planes); 0 is no limit. Charged before allocating: a decode over it
///   returns IB_IMAGE_OVER_BUDGET with what it would have needed in `needed`.
/// - `should_stop(context)`: polled during the work (between input chunks, per row or per
///   libjpeg progress call, never per pixel); non-zero ends the decode with IB_IMAGE_STOPPED.
///   It is how a cancelled load or one past its deadline stops decoding a hostile image.
typedef struct {
    uint64_t max_bytes;
    int (*should_stop)(void *context);
    void *context;
    uint64_t needed;
} ib_decode_control;

/// Charges `bytes` against the control's budget: IB_IMAGE_OK, or IB_IMAGE_OVER_BUDGET with
/// control->needed set.
int ib_decode_charge(ib_decode_control *control, uint64_t bytes);
/// 1 when the control says stop now (its callback, if any, returned non-zero).
int ib_decode_should_stop(ib_decode_control *control);

#endif
