#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
#include "cshims.h"
#include "jpeg_internal.h"

// Progressive display: a progressive JPEG shown at its first complete scan while the rest
// downloads, then refined (as Nuke and PINRemoteImage do). ib_jpeg_scan_ends finds where scans end
// in the bytes so far, without libjpeg; ib_jpeg_decode_preview decodes the prefix up to the last of
// those ends in libjpeg's buffered-image mode, into the same cell ib_jpeg_decode_fill fills.

// Walks the markers as libjpeg reads them: every marker but SOI, EOI, RSTn and TEM has a two-byte
// length; a scan's entropy-coded data follows its SOS segment and runs to the first marker that
// is not RSTn (0xFF 0x00 is a stuffed 0xFF, and any run of 0xFF before a marker is fill). Reads
// only data[0..<length]; stops at the end of the data, EOI, or anything it cannot step over.
static int ib_jpeg_walk_scans(const uint8_t *data, size_t length, size_t *ends, int capacity,
                              size_t *last) {
    if (length < 2) return length == 0 || data[0] == 0xFF ? 0 : -1;
    if (data[0] != 0xFF || data[1] != 0xD8) return -1;
    int count = 0;
    size_t p = 2;
    for (;;) {
        // The next marker. Like libjpeg, step over bytes that are not 0xFF (damage), fill bytes,
        // and 0xFF 0x00 outside a scan.
        uint8_t code = 0;
        while (code == 0) {
            const uint8_t *ff = p < length ? memchr(data + p, 0xFF, length - p) : NULL;
            if (!ff) return count;
            p = (size_t)(ff - data);
            while (p < length && data[p] == 0xFF) p++;
            if (p == length) return count;
            code = data[p++];
        }
        if (code == 0xD8 || code == 0xD9) return count;       // a second SOI (libjpeg fails), EOI
        if ((code >= 0xD0 && code <= 0xD7) || code == 0x01) continue;  // RSTn, TEM: no length
        if (length - p < 2) return count;
        size_t segment = (size_t)data[p] << 8 | data[p + 1];
        if (segment < 2 || length - p < segment) return count;
        p += segment;
        if (code != 0xDA) continue;
        // SOS: the scan is complete once the marker after its entropy-coded data is in.
        for (;;) {
            const uint8_t *ff = p < length ? memchr(data + p, 0xFF, length - p) : NULL;
            if (!ff) return count;
            size_t marker = (size_t)(ff - data);
            p = marker;
            while (p < length && data[p] == 0xFF) p++;
            if (p == length) return count;
            if (data[p] == 0x00 || (data[p] >= 0xD0 && data[p] <= 0xD7)) {
                p++;
                continue;
            }
            if (count == INT_MAX) return count;
            if (count < capacity) ends[count] = marker;
            *last = marker;
            count++;
            p = marker;
            break;
        }
    }
}

int ib_jpeg_scan_ends(const uint8_t *data, size_t length, size_t *ends, int capacity) {
    size_t last = 0;
    return ib_jpeg_walk_scans(data, length, ends, capacity, &last);
}

// The prefix is cut where a marker begins (a scan's end), so running out of it is where the next
// marker would be, not damage: end the data with an EOI, as libjpeg's memory source does, but
// without its warning (JWRN_JPEG_EOF), so report->warnings counts only real damage.
static boolean ib_jpeg_end_of_prefix(j_decompress_ptr cinfo) {
    static const JOCTET eoi[2] = {0xFF, JPEG_EOI};
    cinfo->src->next_input_byte = eoi;
    cinfo->src->bytes_in_buffer = sizeof eoi;
    return TRUE;
}

int ib_jpeg_decode_preview(const uint8_t *data, size_t length, uint32_t target_width,
                           uint32_t target_height, uint64_t max_pixels, uint8_t *output,
                           size_t output_capacity, ib_decode_report *report,
                           ib_decode_control *control, char *error) {
    struct jpeg_decompress_struct cinfo;
    ib_jpeg_error err;
    ib_jpeg_setup_errors(&cinfo, &err, error);
    memset(report, 0, sizeof *report);
    size_t end = 0;
    int complete = ib_jpeg_walk_scans(data, length, NULL, 0, &end);
    if (complete < 0) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "Not a JPEG file: no SOI marker");
        return IB_IMAGE_CORRUPT;
    }
    if (complete == 0) return IB_IMAGE_OK;  // nothing to show yet: scans 0, output untouched
    if (setjmp(err.jump)) {
        int status = ib_jpeg_failure(&cinfo, &err);
        report->warnings = (int)err.base.num_warnings;
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    ib_jpeg_setup_control(&cinfo, &err, control);
    jpeg_mem_src(&cinfo, data, (unsigned long)end);
    cinfo.src->fill_input_buffer = ib_jpeg_end_of_prefix;  // skip_input_data calls it too
    int status = ib_jpeg_open_for_cell(&cinfo, target_width, target_height, max_pixels, report, error);
    if (status != IB_IMAGE_OK) {
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    // Buffered-image mode keeps the whole coefficient image, so every scan in the prefix is
    // absorbed first and one output pass shows them all. jpeg_start_output's scan number only
    // says how far input must have got before rows are emitted; it selects nothing from a buffer
    // input has already refined, hence the cut at a scan's end above.
    cinfo.buffered_image = TRUE;
    jpeg_start_decompress(&cinfo);
    int code;
    do code = jpeg_consume_input(&cinfo);
    while (code != JPEG_REACHED_EOI && code != JPEG_SUSPENDED);  // never suspends: memory source
    jpeg_start_output(&cinfo, cinfo.input_scan_number);
    ib_fill_geometry geometry;
    status = ib_jpeg_fill_pass(&cinfo, target_width, target_height, output, output_capacity,
                               &geometry, error);
    if (status != IB_IMAGE_OK) {
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    // Rows below the crop are left unread: jpeg_finish_output does not need the whole pass, and
    // jpeg_skip_scanlines to the bottom would mark the input finished.
    jpeg_finish_output(&cinfo);
    report->width = geometry.out_width;
    report->height = geometry.out_height;
    report->warnings = (int)err.base.num_warnings;
    report->scans = cinfo.output_scan_number;
    jpeg_destroy_decompress(&cinfo);
    return IB_IMAGE_OK;
}
