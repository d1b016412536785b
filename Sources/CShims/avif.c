#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <avif/avif.h>
#include <dav1d/dav1d.h>
#include <dlfcn.h>
#include <pthread.h>
#include "cshims.h"
#include "avif_internal.h"

// libavif parses the container (ISOBMFF boxes) and hands the AV1 payload to a codec: dav1d for
// decoding on Debian, libaom for encoding. Errors are avifResult codes, with a diagnostic text.
// A decode runs on one thread (maxThreads 1), as one worker of the strategy under test: the
// strategy's concurrency, not the codec's, is what is being measured.

// dav1d writes every damaged OBU it meets to stderr through its default logger, and libavif 0.11
// leaves that logger in place: a run fed damaged AVIF (--faults, a hostile server) would print
// over the progress line, and the error is already typed and counted. libavif takes dav1d's
// settings from dav1d_default_settings; this definition is found before libdav1d's by the dynamic
// linker (the executable is searched first), calls dav1d's own, and removes the logger (dav1d
// logs nothing without one).
static void (*ib_dav1d_defaults)(Dav1dSettings *);
static void ib_dav1d_find_defaults(void) {
    ib_dav1d_defaults = (void (*)(Dav1dSettings *))dlsym(RTLD_NEXT, "dav1d_default_settings");
}

void dav1d_default_settings(Dav1dSettings *settings) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ib_dav1d_find_defaults);
    if (!ib_dav1d_defaults) {
        // libdav1d is loaded (libavif needs it), so this cannot happen; settings left unset would.
        fprintf(stderr, "imgbench: dav1d_default_settings not found in libdav1d\n");
        abort();
    }
    ib_dav1d_defaults(settings);
    settings->logger.callback = NULL;
}

int ib_dav1d_logger_silenced(void) {
    // What libavif gets: the definition the dynamic linker finds first.
    void (*defaults)(Dav1dSettings *) = (void (*)(Dav1dSettings *))dlsym(RTLD_DEFAULT, "dav1d_default_settings");
    if (!defaults) return 0;
    Dav1dSettings settings;
    memset(&settings, 0xA5, sizeof settings);
    defaults(&settings);
    return settings.logger.callback == NULL && settings.n_threads == 0 && ib_dav1d_defaults != NULL;
}

int ib_avif_status(avifResult result, const avifDiagnostics *diag, char *error) {
    if (result == AVIF_RESULT_OK) return IB_IMAGE_OK;
    if (error) {
        if (diag && diag->error[0]) snprintf(error, IB_ERROR_CAPACITY, "%s: %s", avifResultToString(result), diag->error);
        else snprintf(error, IB_ERROR_CAPACITY, "%s", avifResultToString(result));
    }
    switch (result) {
    case AVIF_RESULT_NO_CODEC_AVAILABLE:
    case AVIF_RESULT_NOT_IMPLEMENTED:
    case AVIF_RESULT_NO_AV1_ITEMS_FOUND:
        return IB_IMAGE_UNSUPPORTED;
    case AVIF_RESULT_OUT_OF_MEMORY:
        return IB_IMAGE_NO_MEMORY;
    default:
        return IB_IMAGE_CORRUPT;
    }
}

// Parses the container only: the header's size is known before any pixel is decoded.
static avifResult ib_avif_parse(avifDecoder *decoder, const uint8_t *data, size_t length) {
    decoder->maxThreads = 1;
    decoder->ignoreExif = AVIF_TRUE;
    decoder->ignoreXMP = AVIF_TRUE;
    // Parsing allocates nothing in proportion to the image: its size is checked against ours
    // after parsing, before the frame is decoded. (libavif's own limit, 16384², stays in force.)
    avifResult result = avifDecoderSetIOMemory(decoder, data, length);
    if (result != AVIF_RESULT_OK) return result;
    return avifDecoderParse(decoder);
}

static void ib_avif_fill_info(const avifDecoder *decoder, ib_image_info *info) {
    memset(info, 0, sizeof *info);
    info->width = decoder->image->width;
    info->height = decoder->image->height;
    info->bit_depth = (int)decoder->image->depth;
    info->has_alpha = decoder->alphaPresent;
    info->components = decoder->alphaPresent ? 4 : 3;
    info->frames = decoder->imageCount;
}

int ib_avif_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error) {
    if (error) error[0] = 0;
    avifDecoder *decoder = avifDecoderCreate();
    if (!decoder) return IB_IMAGE_NO_MEMORY;
    avifResult result = ib_avif_parse(decoder, data, length);
    if (result == AVIF_RESULT_OK) ib_avif_fill_info(decoder, info);
    int status = ib_avif_status(result, &decoder->diag, error);
    avifDecoderDestroy(decoder);
    return status;
}

uint64_t ib_avif_plane_bytes(uint32_t width, uint32_t height, int depth, int yuv_format, int has_alpha) {
    uint64_t luma = (uint64_t)width * height, sample = depth > 8 ? 2 : 1;
    uint64_t chroma_width = width, chroma_height = height;
    if (yuv_format == AVIF_PIXEL_FORMAT_YUV420 || yuv_format == AVIF_PIXEL_FORMAT_YUV422) chroma_width = (width + 1) / 2;
    if (yuv_format == AVIF_PIXEL_FORMAT_YUV420) chroma_height = (height + 1) / 2;
    uint64_t chroma = yuv_format == AVIF_PIXEL_FORMAT_YUV400 ? 0 : 2 * chroma_width * chroma_height;
    return (luma + chroma + (has_alpha ? luma : 0)) * sample;
}

int ib_avif_decode_frame(avifDecoder *decoder, const uint8_t *data, size_t length, uint64_t max_pixels,
                         uint64_t (*output_bytes)(uint32_t width, uint32_t height, void *context), void *context,
                         ib_image_info *info, ib_decode_control *control, char *error) {
    if (error) error[0] = 0;
    avifResult result = ib_avif_parse(decoder, data, length);
    if (result != AVIF_RESULT_OK) return ib_avif_status(result, &decoder->diag, error);
    ib_avif_fill_info(decoder, info);
    uint64_t pixels = (uint64_t)info->width * info->height;
    if (pixels == 0 || (max_pixels > 0 && pixels > max_pixels)) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "%ux%u", info->width, info->height);
        return pixels == 0 ? IB_IMAGE_CORRUPT : IB_IMAGE_TOO_LARGE;
    }
    uint64_t output = output_bytes(info->width, info->height, context);
    if (output == 0) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "output buffer too small");
        return IB_IMAGE_NO_MEMORY;
    }
    // dav1d decodes a whole frame into planes of the image's size, and one frame cannot be
    // interrupted: the budget is what bounds it, charged here from what parsing told.
    int status = ib_decode_charge(control, output + ib_avif_plane_bytes(info->width, info->height, info->bit_depth,
                                                                         decoder->image->yuvFormat, info->has_alpha));
    if (status == IB_IMAGE_OK && ib_decode_should_stop(control)) status = IB_IMAGE_STOPPED;
    if (status != IB_IMAGE_OK) return status;
    result = avifDecoderNextImage(decoder);
    if (result != AVIF_RESULT_OK) return ib_avif_status(result, &decoder->diag, error);
    if (ib_decode_should_stop(control)) return IB_IMAGE_STOPPED;
    // The frame decoded may differ from what the container announced (a lying header).
    if (decoder->image->width != info->width || decoder->image->height != info->height) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "frame size differs from the header's");
        return IB_IMAGE_CORRUPT;
    }
    return IB_IMAGE_OK;
}

// The whole image's RGBA, if the caller's buffer holds it (0: it does not).
static uint64_t ib_avif_rgba_bytes(uint32_t width, uint32_t height, void *context) {
    uint64_t bytes = (uint64_t)width * height * 4;
    return bytes <= *(size_t *)context ? bytes : 0;
}

int ib_avif_decode_rgba(const uint8_t *data, size_t length, uint64_t max_pixels, uint8_t *output,
                        size_t output_capacity, ib_image_info *info, ib_decode_control *control,
                        char *error) {
    avifDecoder *decoder = avifDecoderCreate();
    if (!decoder) return IB_IMAGE_NO_MEMORY;
    int status = ib_avif_decode_frame(decoder, data, length, max_pixels, ib_avif_rgba_bytes, &output_capacity, info,
                                      control, error);
    if (status == IB_IMAGE_OK) {
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, decoder->image);
        rgb.format = AVIF_RGB_FORMAT_RGBA;
        rgb.depth = 8;
        rgb.pixels = output;
        rgb.rowBytes = info->width * 4;
        status = ib_avif_status(avifImageYUVToRGB(decoder->image, &rgb), &decoder->diag, error);
    }
    avifDecoderDestroy(decoder);
    return status;
}

int ib_avif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int depth,
                   int quantizer, int speed, uint8_t **out, size_t *out_length, char *error) {
    if (error) error[0] = 0;
    avifImage *image = avifImageCreate(width, height, (uint32_t)depth, AVIF_PIXEL_FORMAT_YUV420);
    if (!image) return IB_IMAGE_NO_MEMORY;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.depth = 8;
    rgb.pixels = (uint8_t *)pixels;
    rgb.rowBytes = width * (uint32_t)channels;
    avifResult result = avifImageRGBToYUV(image, &rgb);
    avifEncoder *encoder = NULL;
    avifRWData output = AVIF_DATA_EMPTY;
    if (result == AVIF_RESULT_OK) {
        encoder = avifEncoderCreate();
        if (!encoder) { avifImageDestroy(image); return IB_IMAGE_NO_MEMORY; }
        encoder->maxThreads = 1;
        encoder->speed = speed;
        encoder->minQuantizer = quantizer;
        encoder->maxQuantizer = quantizer;
        encoder->minQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
        encoder->maxQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
        result = avifEncoderWrite(encoder, image, &output);
    }
    int status = ib_avif_status(result, encoder ? &encoder->diag : NULL, error);
    if (status == IB_IMAGE_OK) {
        *out = malloc(output.size);
        if (*out) {
            memcpy(*out, output.data, output.size);
            *out_length = output.size;
        } else {
            status = IB_IMAGE_NO_MEMORY;
        }
    }
    avifRWDataFree(&output);
    if (encoder) avifEncoderDestroy(encoder);
    avifImageDestroy(image);
    return status;
}

const char *ib_avif_version(void) { return avifVersion(); }

void ib_avif_codecs(char *text, size_t capacity) {
    char versions[256];
    avifCodecVersions(versions);
    snprintf(text, capacity, "%s", versions);
}
