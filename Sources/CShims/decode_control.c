#include "cshims.h"

// Out of line and tiny: decoders call these once per allocation and once per row or chunk, so
// their cost is a call, and a decode without a control (harness-cost's) pays a NULL test.

int ib_decode_charge(ib_decode_control *control, uint64_t bytes) {
    if (!control || control->max_bytes == 0 || bytes <= control->max_bytes) return IB_IMAGE_OK;
    control->needed = bytes;
    return IB_IMAGE_OVER_BUDGET;
}

int ib_decode_should_stop(ib_decode_control *control) {
    return control && control->should_stop && control->should_stop(control->context) ? 1 : 0;
}
