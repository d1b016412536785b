#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include "cshims.h"

// libwebp reports errors as status codes (no longjmp). Its decoder can crop and scale while it
// decodes, so a photo for a small cell never exists at full size: the fill geometry goes straight
// into WebPDecoderConfig's options. A lossy decode's memory is then a few rows; a lossless one
// (VP8L) keeps the whole image as ARGB inside libwebp, which is charged before it starts.

/// Input per incremental call when the decode can be stopped: a stop is seen within one chunk's
/// decoding, and a lossless decode, which re-reads from its last saved row when it runs out of
/// data, does not resume too often.
#define IB_WEBP_CHUNK (256 * 1024)

// libwebp's incremental decoder over the caller's bytes, fed a growing prefix (WebPIUpdate copies
// nothing), the control polled between chunks.
static VP8StatusCode ib_webp_decode_chunked(const uint8_t *data, size_t length, WebPDecoderConfig *config,
                                            ib_decode_control *control, int *stopped) {
    WebPIDecoder *decoder = WebPIDecode(NULL, 0, config);
    if (!decoder) return VP8_STATUS_OUT_OF_MEMORY;
    VP8StatusCode code = VP8_STATUS_NOT_ENOUGH_DATA;
    for (size_t fed = 0; fed < length;) {
        if (ib_decode_should_stop(control)) {
            *stopped = 1;
            break;
        }
        fed += length - fed < IB_WEBP_CHUNK ? length - fed : IB_WEBP_CHUNK;
        code = WebPIUpdate(decoder, data, fed);
        if (code != VP8_STATUS_SUSPENDED) break;
    }
    WebPIDelete(decoder);
    // All the data and still waiting for more: what WebPDecode calls a truncated file.
    return code == VP8_STATUS_SUSPENDED ? VP8_STATUS_NOT_ENOUGH_DATA : code;
}

static int ib_webp_status(VP8StatusCode code, const char *what, char *error) {
    static const char *names[] = {"ok", "out of memory", "invalid parameter", "bitstream error",
                                  "unsupported feature", "suspended", "user abort", "not enough data"};
    const char *name = (unsigned)code < sizeof names / sizeof *names ? names[code] : "unknown error";
    if (error) snprintf(error, IB_ERROR_CAPACITY, "%s: %s", what, name);
    switch (code) {
    case VP8_STATUS_OK: return IB_IMAGE_OK;
    case VP8_STATUS_OUT_OF_MEMORY: return IB_IMAGE_NO_MEMORY;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return IB_IMAGE_UNSUPPORTED;
    default: return IB_IMAGE_CORRUPT;
    }
}

int ib_webp_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error) {
    if (error) error[0] = 0;
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, length, &features);
    if (code != VP8_STATUS_OK) return ib_webp_status(code, "WebP header", error);
    memset(info, 0, sizeof *info);
    info->width = (uint32_t)features.width;
    info->height = (uint32_t)features.height;
    info->has_alpha = features.has_alpha;
    info->components = features.has_alpha ? 4 : 3;
    info->bit_depth = 8;
    info->lossless = features.format == 2;
    info->frames = features.has_animation ? 0 : 1;  // an animation's frame count needs the demuxer
    if (features.has_animation) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "animated WebP");
        return IB_IMAGE_UNSUPPORTED;
    }
    return IB_IMAGE_OK;
}

int ib_webp_decode_rgba(const uint8_t *data, size_t length, const ib_fill_geometry *geometry,
                        uint8_t *output, size_t output_capacity, ib_decode_control *control,
                        char *error) {
    if (error) error[0] = 0;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return ib_webp_status(VP8_STATUS_INVALID_PARAM, "WebP", error);
    VP8StatusCode code = WebPGetFeatures(data, length, &config.input);
    if (code != VP8_STATUS_OK) return ib_webp_status(code, "WebP header", error);
    uint32_t width = (uint32_t)config.input.width, height = (uint32_t)config.input.height;
    if (geometry) {
        if (geometry->crop_width != width || geometry->crop_height != height) {
            config.options.use_cropping = 1;
            config.options.crop_left = (int)geometry->crop_x;
            config.options.crop_top = (int)geometry->crop_y;
            config.options.crop_width = (int)geometry->crop_width;
            config.options.crop_height = (int)geometry->crop_height;
        }
        if (geometry->out_width != geometry->crop_width || geometry->out_height != geometry->crop_height) {
            config.options.use_scaling = 1;
            config.options.scaled_width = (int)geometry->out_width;
            config.options.scaled_height = (int)geometry->out_height;
        }
        width = geometry->out_width;
        height = geometry->out_height;
    }
    if ((size_t)width * height * 4 > output_capacity) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "output buffer too small");
        return IB_IMAGE_NO_MEMORY;
    }
    // VP8L decodes into a full-size ARGB buffer (plus a few rows of cache) whatever the output's
    // size; a lossy image's alpha is decoded whole too: its plane, and the 8-bit pixels of its
    // own lossless stream, a byte a pixel each.
    uint64_t pixels = (uint64_t)config.input.width * (uint64_t)config.input.height;
    uint64_t whole = config.input.format == 2 ? pixels * 4 : config.input.has_alpha ? pixels * 2 : 0;
    if (whole > 0) {
        int status = ib_decode_charge(control, whole + output_capacity);
        if (status != IB_IMAGE_OK) return status;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = output;
    config.output.u.RGBA.stride = (int)width * 4;
    config.output.u.RGBA.size = output_capacity;
    int stopped = 0;
    code = control && control->should_stop ? ib_webp_decode_chunked(data, length, &config, control, &stopped)
                                           : WebPDecode(data, length, &config);
    if (stopped) {
        WebPFreeDecBuffer(&config.output);
        return IB_IMAGE_STOPPED;
    }
    WebPFreeDecBuffer(&config.output);  // frees nothing of ours: the memory is external
    return ib_webp_status(code, "WebP", error);
}

int ib_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                   float quality, int lossless, uint8_t **out, size_t *out_length, char *error) {
    if (error) error[0] = 0;
    uint8_t *encoded = NULL;
    int stride = (int)width * channels;
    size_t size;
    if (channels == 4) {
        size = lossless ? WebPEncodeLosslessRGBA(pixels, (int)width, (int)height, stride, &encoded)
                        : WebPEncodeRGBA(pixels, (int)width, (int)height, stride, quality, &encoded);
    } else {
        size = lossless ? WebPEncodeLosslessRGB(pixels, (int)width, (int)height, stride, &encoded)
                        : WebPEncodeRGB(pixels, (int)width, (int)height, stride, quality, &encoded);
    }
    if (size == 0 || !encoded) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "WebP encoding failed");
        WebPFree(encoded);
        return IB_IMAGE_CORRUPT;
    }
    // Callers free with ib_free (free()), so hand back malloc'd memory.
    *out = malloc(size);
    if (!*out) { WebPFree(encoded); return IB_IMAGE_NO_MEMORY; }
    memcpy(*out, encoded, size);
    *out_length = size;
    WebPFree(encoded);
    return IB_IMAGE_OK;
}

int ib_webp_version(void) { return WebPGetDecoderVersion(); }
