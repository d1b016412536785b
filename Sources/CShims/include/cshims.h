#ifndef IMGBENCH_CSHIMS_H
#define IMGBENCH_CSHIMS_H

// Typed wrappers for the C calls Swift cannot make itself: libcurl's variadic setopt/getinfo, and
// libjpeg/libpng decoding and encoding, whose error handling longjmps out of the library (libjpeg's
// default handler would call exit()).

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>
#include <zlib.h>  // deflate for HdrHistogram's compressed encoding (histograms.json)
#include "tls_identity.h"  // serve --tls's throwaway CA and certificate (libcrypto)

// MARK: - curl

CURLcode ib_curl_easy_set_long(CURL *handle, CURLoption option, long value);
CURLcode ib_curl_easy_set_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ib_curl_easy_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode ib_curl_easy_set_pointer(CURL *handle, CURLoption option, void *value);

typedef size_t (*ib_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*ib_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);
CURLcode ib_curl_easy_set_write_function(CURL *handle, ib_curl_write_callback callback);
CURLcode ib_curl_easy_set_header_function(CURL *handle, ib_curl_write_callback callback);
CURLcode ib_curl_easy_set_xferinfo_function(CURL *handle, ib_curl_xferinfo_callback callback);

CURLcode ib_curl_easy_get_long(CURL *handle, CURLINFO info, long *value);
CURLcode ib_curl_easy_get_offset(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode ib_curl_easy_get_pointer(CURL *handle, CURLINFO info, void **value);

CURLMcode ib_curl_multi_set_long(CURLM *multi, CURLMoption option, long value);

/// One thread's event loop over many curl multi handles (curl_loop.c): epoll and curl's socket
/// interface. Everything but `ib_curl_loop_wakeup` is called from the loop's thread only.
typedef struct ib_curl_loop ib_curl_loop;
ib_curl_loop *ib_curl_loop_new(void);
void ib_curl_loop_free(ib_curl_loop *loop);
/// Makes the loop drive `multi` (sets its socket and timer callbacks); returns its index, -1 on
/// failure. The multi must be cleaned up on the loop's thread, before `ib_curl_loop_free`.
int ib_curl_loop_attach(ib_curl_loop *loop, CURLM *multi);
/// Stops driving the multi at `index` (its timer is forgotten); call before cleaning it up.
void ib_curl_loop_detach(ib_curl_loop *loop, int index);
/// Has `easy`'s connections open and close their sockets through the loop, so that an idle
/// keep-alive connection stays in its epoll set; for every easy handle of an attached multi.
void ib_curl_loop_adopt(ib_curl_loop *loop, CURL *easy);
/// How many epoll_ctl calls the loop made for curl's sockets; callable from any thread.
uint64_t ib_curl_loop_epoll_changes(ib_curl_loop *loop);
/// Asks the loop's thread to count the sockets where its registrations and the kernel's epoll set
/// disagree (one watched by nobody: its transfer would wait for its timeout); callable from any
/// thread. `ib_curl_loop_checked_registrations` answers -2 until the count is in (-1: the set
/// could not be read).
void ib_curl_loop_check_registrations(ib_curl_loop *loop);
int ib_curl_loop_checked_registrations(ib_curl_loop *loop);
/// Makes a waiting `ib_curl_loop_run_once` return; callable from any thread.
void ib_curl_loop_wakeup(ib_curl_loop *loop);
/// Waits up to `max_wait_ms` for socket activity, a multi's timer or a wake-up, drives curl for
/// each, and writes the indices of the multis it drove to `touched` (at most `capacity`, each
/// once); returns how many, or -1 if epoll failed.
int ib_curl_loop_run_once(ib_curl_loop *loop, int max_wait_ms, int *touched, int capacity);

// MARK: - images

/// Result codes shared by the image calls below.
typedef enum {
    IB_IMAGE_OK = 0,
    IB_IMAGE_CORRUPT = 1,      // the library reported an error while reading
    IB_IMAGE_UNSUPPORTED = 2,  // valid data the decoder does not handle (e.g. 12-bit JPEG, CMYK)
    IB_IMAGE_TOO_LARGE = 3,    // header promises more pixels than the caller's limit
    IB_IMAGE_NO_MEMORY = 4,
    IB_IMAGE_OVER_BUDGET = 5,  // the decode would allocate more than control->max_bytes (needed set)
    IB_IMAGE_STOPPED = 6,      // control->should_stop said stop part-way; the output is unusable
} ib_image_status;

#include "decode_control.h"  // ib_decode_control: every decode's memory budget and stop

/// Header facts, read without decoding pixels.
typedef struct {
    uint32_t width;
    uint32_t height;
    int components;    // channels in the file (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA/CMYK)
    int bit_depth;     // 8 for JPEG; 1..16 for PNG
    int progressive;   // JPEG only
    int has_alpha;
    int lossless;      // WebP only (VP8L)
    int frames;        // AVIF: images in the file; 0 where unknown
} ib_image_info;

/// What a decode produced (ib_jpeg_decode_fill, ib_gif_decode_rgba).
typedef struct {
    uint32_t source_width, source_height;  // in the file
    uint32_t width, height;                // written to output
    int warnings;                          // libjpeg's recoverable-damage warnings
    int frames;                            // GIF: frames in the file
    int scans;                             // ib_jpeg_decode_preview: scans shown (0: none yet)
} ib_decode_report;

/// A message buffer for the library's error text (NUL-terminated, truncated to fit).
#define IB_ERROR_CAPACITY 200

int ib_jpeg_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error);

/// Decodes a JPEG to RGBA8 at 1/scale_denom of its size (scale_denom 1, 2, 4 or 8: libjpeg's DCT
/// scaling, the cheap way to decode a big photo for a small cell). `output` must hold
/// out_width*out_height*4 bytes, where the size comes from ib_jpeg_scaled_size. Counts libjpeg's
/// warnings (recoverable damage) in *warnings.
int ib_jpeg_scaled_size(const uint8_t *data, size_t length, int scale_denom,
                        uint32_t *out_width, uint32_t *out_height, char *error);
int ib_jpeg_decode_rgba(const uint8_t *data, size_t length, int scale_denom,
                        uint8_t *output, size_t output_capacity, int *warnings,
                        ib_decode_control *control, char *error);

/// Encodes 8-bit pixels (components 1 = gray, 3 = RGB) to a malloc'd JPEG; free with ib_free.
int ib_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int components,
                   int quality, int progressive, uint8_t **out, size_t *out_length, char *error);

int ib_png_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error);

/// Decodes any PNG (palette, gray, gray+alpha, RGB, RGBA; 1..16 bits) to RGBA8, exactly: 16-bit
/// samples are scaled with rounding, gray is replicated, missing alpha is 255. No gamma change.
/// The caller charges the output buffer; the control stops it between rows.
int ib_png_decode_rgba(const uint8_t *data, size_t length, uint8_t *output,
                       size_t output_capacity, ib_decode_control *control, char *error);

/// A non-interlaced PNG straight to a cell of target_width × target_height shown aspect-fill
/// (png_stream.c): libpng's progressive reader is fed the data in chunks, each row is expanded to
/// RGBA8 as ib_png_decode_rgba does and goes through the box filter as it comes, so no full-size
/// bitmap exists; feeding stops after the image's last row. Output equals ib_png_decode_rgba
/// followed by ib_box_filter_rgba. `output` holds target_width * target_height * 4 bytes;
/// IB_IMAGE_UNSUPPORTED for an interlaced file (the caller decodes it whole). report->width and
/// height are the output's size, source_width and height the file's.
int ib_png_decode_fill(const uint8_t *data, size_t length, uint32_t target_width,
                       uint32_t target_height, uint8_t *output, size_t output_capacity,
                       ib_decode_report *report, ib_decode_control *control, char *error);

/// Encodes to a malloc'd PNG; free with ib_free. `bit_depth` is 8 or 16 (16-bit samples are
/// big-endian pairs, as PNG stores them). `color_type` is a PNG_COLOR_TYPE_* value.
int ib_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int color_type,
                  int bit_depth, int compression_level, uint8_t **out, size_t *out_length,
                  char *error);

// MARK: - aspect fill (declared first: the WebP decoder takes a fill geometry)

typedef struct ib_fill_geometry ib_fill_geometry;

// MARK: - WebP (libwebp)

/// Header facts; an animated WebP is IB_IMAGE_UNSUPPORTED.
int ib_webp_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error);
/// Decodes to RGBA8. With a geometry, libwebp crops to its rectangle and scales to its output
/// size while decoding (no full-size bitmap); `output` holds out_width*out_height*4 bytes, or
/// width*height*4 without one.
/// A lossless (VP8L) file's full-size ARGB is charged first; the data goes to libwebp's
/// incremental decoder in chunks, the control polled between them.
int ib_webp_decode_rgba(const uint8_t *data, size_t length, const ib_fill_geometry *geometry,
                        uint8_t *output, size_t output_capacity, ib_decode_control *control,
                        char *error);
/// RGB (channels 3) or RGBA (4) to a malloc'd WebP, lossy at `quality` (0-100) or lossless.
int ib_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                   float quality, int lossless, uint8_t **out, size_t *out_length, char *error);
/// libwebp's decoder version, 0xMMmmpp.
int ib_webp_version(void);

// MARK: - AVIF (libavif, dav1d to decode, libaom to encode)

int ib_avif_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error);
/// Decodes the first image to RGBA8 (8- to 12-bit sources, alpha kept), on one thread. Refuses
/// (IB_IMAGE_TOO_LARGE) after parsing the container and before decoding when the size exceeds
/// max_pixels; fills *info from the container. The frame's planes (by depth and subsampling,
/// alpha included) and the RGBA output are charged before the frame is decoded; the control is
/// polled before and after it (one dav1d frame cannot be interrupted: the budget bounds it).
int ib_avif_decode_rgba(const uint8_t *data, size_t length, uint64_t max_pixels, uint8_t *output,
                        size_t output_capacity, ib_image_info *info, ib_decode_control *control,
                        char *error);
/// The first image straight to a cell of target_width × target_height shown aspect-fill
/// (avif_fill.c): the frame's planes are converted to RGBA a band of rows at a time into the box
/// filter, so no full-size RGBA exists; the same pixels as ib_avif_decode_rgba then
/// ib_box_filter_rgba. Charges the planes, the band and the cell; the stop is polled per band too.
int ib_avif_decode_fill(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t target_width,
                        uint32_t target_height, uint8_t *output, size_t output_capacity, ib_image_info *info,
                        ib_decode_report *report, ib_decode_control *control, char *error);
/// RGB/RGBA 8-bit to a malloc'd 4:2:0 AVIF at `depth` bits (8 or 10), one quantizer (0 best to
/// 63), libaom at `speed` (0 slowest to 10 fastest); alpha is lossless.
int ib_avif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int depth,
                   int quantizer, int speed, uint8_t **out, size_t *out_length, char *error);
const char *ib_avif_version(void);
/// 1 when dav1d_default_settings, as libavif finds it, gives settings without dav1d's stderr
/// logger (avif.c replaces it), 0 otherwise.
int ib_dav1d_logger_silenced(void);
/// The AV1 codecs libavif was built with and their versions, e.g. "dav1d [dec]:1.0.0, aom ...".
void ib_avif_codecs(char *text, size_t capacity);

// MARK: - GIF (giflib)

/// The logical screen's size (the canvas the first frame is drawn on).
int ib_gif_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error);
/// Decodes the first frame onto a transparent canvas of the screen's size and counts every frame
/// (later frames' data is skipped, not decompressed) into report->frames. A frame larger than
/// max_pixels is refused before its rows are decompressed, its size in report->source_width/height.
/// The caller charges the canvas; the control is polled per row.
int ib_gif_decode_rgba(const uint8_t *data, size_t length, uint64_t max_pixels, uint8_t *output,
                       size_t output_capacity, ib_decode_report *report, ib_decode_control *control,
                       char *error);
/// Reduces RGB8 to at most `colors` (≤ 256) colours with giflib's median cut: one index per pixel,
/// the palette as RGB triples, its size in *palette_size.
int ib_gif_quantize(const uint8_t *rgb, uint32_t width, uint32_t height, int colors, uint8_t *indices,
                    uint8_t *palette, int *palette_size, char *error);
/// `frames` frames of width*height palette indices (frame after frame) to a malloc'd GIF89a with
/// one global palette; `transparent` is an index or -1; each frame shows for `delay_centiseconds`.
int ib_gif_encode(const uint8_t *indices, int frames, uint32_t width, uint32_t height, const uint8_t *palette,
                  int palette_size, int transparent, int delay_centiseconds, uint8_t **out, size_t *out_length,
                  char *error);
const char *ib_gif_version(void);

// MARK: - aspect fill

/// Where an image lands in a cell shown aspect-fill: the output size (never larger than the source)
/// and the centred source rectangle that maps onto it.
struct ib_fill_geometry {
    uint32_t out_width, out_height;
    uint32_t crop_x, crop_y, crop_width, crop_height;
};

void ib_fill_geometry_for(uint32_t source_width, uint32_t source_height, uint32_t target_width,
                          uint32_t target_height, ib_fill_geometry *geometry);

/// A box filter fed one source row at a time (rows of the crop, top to bottom, each starting at
/// the crop's left edge), so a decoder can filter rows as it produces them. `scratch` holds
/// ib_fill_scratch_count(geometry) values; each output pixel is the rounded mean of the source
/// pixels its span covers.
typedef struct {
    ib_fill_geometry geometry;
    uint32_t *columns;
    uint32_t *column_ends;
    uint8_t *output;
    uint32_t row, out_row, span_start;
    int avx2;  // the CPU has AVX2: rows go through the filter compiled for it
} ib_fill;

size_t ib_fill_scratch_count(const ib_fill_geometry *geometry);
void ib_fill_begin(ib_fill *fill, const ib_fill_geometry *geometry, uint32_t *scratch, uint8_t *output);
void ib_fill_row(ib_fill *fill, const uint8_t *row);
/// The whole-bitmap form: `source` is RGBA8 rows of `source_width` pixels.
void ib_box_filter_rgba(const uint8_t *source, uint32_t source_width, const ib_fill_geometry *geometry,
                        uint32_t *scratch, uint8_t *output);


/// Decodes a JPEG straight to a cell of target_width × target_height shown aspect-fill: the
/// largest DCT scale (1/2, 1/4, 1/8) that keeps at least the target size, then each decoded row
/// goes through the box filter as it comes, so the full bitmap never exists. Refuses
/// (IB_IMAGE_TOO_LARGE) before allocating when the header promises more than max_pixels.
/// `output` must hold target_width * target_height * 4 bytes. The control's budget is libjpeg's
/// max_memory_to_use (a progressive file's coefficients are what exceed it: IB_IMAGE_OVER_BUDGET),
/// and its stop is polled from libjpeg's progress monitor.
///
/// The DCT scale denominator ib_jpeg_decode_fill picks: the largest 1/d (d in 1, 2, 4, 8) whose
/// output still covers the target, so the box filter has real pixels to average.
int ib_jpeg_scale_for(uint32_t source_width, uint32_t source_height, uint32_t target_width,
                      uint32_t target_height);
int ib_jpeg_decode_fill(const uint8_t *data, size_t length, uint32_t target_width,
                        uint32_t target_height, uint64_t max_pixels, uint8_t *output,
                        size_t output_capacity, ib_decode_report *report,
                        ib_decode_control *control, char *error);

/// Where the scans of a (possibly truncated) JPEG end: walks the markers of data[0..<length]
/// (segment lengths, 0xFF00 stuffing, RSTn and 0xFF fill bytes in entropy-coded data) and returns
/// how many scans are complete, writing the first `capacity` of their ends to `ends` (NULL when
/// capacity is 0; the count may exceed it): the offset of the marker after each scan's
/// entropy-coded data (its first 0xFF, fill bytes included). A scan is complete once that
/// marker's code byte has arrived, so a whole baseline file has 1 and any part of one without its
/// EOI has 0; jpeg_simple_progression gives colour files 10 scans, gray ones 6. -1 when the data
/// does not start with SOI (0 while fewer than 2 bytes leave that open). Reads nothing outside
/// the data.
int ib_jpeg_scan_ends(const uint8_t *data, size_t length, size_t *ends, int capacity);

/// ib_jpeg_decode_fill for the bytes of a JPEG received so far: decodes data[0..<length] up to
/// the end of its last complete scan (ib_jpeg_scan_ends) in libjpeg's buffered-image mode, the
/// image as that scan leaves it, into the same cell, size and crop as ib_jpeg_decode_fill, whose
/// output it equals once every scan is in. report->scans is the scan shown; 0 (IB_IMAGE_OK,
/// output untouched) while no scan is complete. The cut end of the data is not a warning;
/// damage within it is, and errors are the usual statuses. Refuses (IB_IMAGE_TOO_LARGE) before
/// allocating when the header promises more than max_pixels. Keeps every coefficient of the
/// image (as a progressive decode does), a baseline file's too.
int ib_jpeg_decode_preview(const uint8_t *data, size_t length, uint32_t target_width,
                           uint32_t target_height, uint64_t max_pixels, uint8_t *output,
                           size_t output_capacity, ib_decode_report *report,
                           ib_decode_control *control, char *error);

// MARK: - instruction counting

/// Calls body(context). Nothing else: it exists so callgrind can count only what runs inside it
/// (`valgrind --tool=callgrind --toggle-collect=ib_measured`, scripts/instruction-check).
void ib_measured(void (*body)(void *), void *context);

void ib_free(void *pointer);

/// Library versions, for reports.
const char *ib_libpng_version(void);
int ib_libjpeg_version(void);

/// glibc's malloc_trim(0): gives the free heap of every arena back to the kernel (Server/ConnectionGuard.swift).
int ib_malloc_trim(void);

#endif
