#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>
#include "cshims.h"

// giflib, record by record: the first frame is decoded onto a transparent canvas of the logical
// screen's size (what a feed shows before an animation starts); every later frame is counted and
// its compressed data skipped, never decompressed. giflib reports errors as codes, no longjmp.

typedef struct {
    const uint8_t *data;
    size_t length, offset;
} ib_gif_source;

/// Frames counted at most (a file with more reports this many).
#define IB_GIF_MAX_FRAMES 10000

static int ib_gif_read(GifFileType *gif, GifByteType *out, int count) {
    ib_gif_source *source = (ib_gif_source *)gif->UserData;
    size_t left = source->length - source->offset;
    size_t n = (size_t)count < left ? (size_t)count : left;
    memcpy(out, source->data + source->offset, n);
    source->offset += n;
    return (int)n;
}

static int ib_gif_fail(int code, char *error) {
    const char *text = GifErrorString(code);
    if (error) snprintf(error, IB_ERROR_CAPACITY, "GIF: %s", text ? text : "unknown error");
    return code == D_GIF_ERR_NOT_ENOUGH_MEM ? IB_IMAGE_NO_MEMORY : IB_IMAGE_CORRUPT;
}

static GifFileType *ib_gif_open(ib_gif_source *source, const uint8_t *data, size_t length, int *status, char *error) {
    *source = (ib_gif_source){data, length, 0};
    int code = 0;
    GifFileType *gif = DGifOpen(source, ib_gif_read, &code);
    if (!gif) *status = ib_gif_fail(code, error);
    return gif;
}

static void ib_gif_close(GifFileType *gif) {
    int code;
    DGifCloseFile(gif, &code);
}

int ib_gif_read_info(const uint8_t *data, size_t length, ib_image_info *info, char *error) {
    if (error) error[0] = 0;
    ib_gif_source source;
    int status = IB_IMAGE_OK;
    GifFileType *gif = ib_gif_open(&source, data, length, &status, error);
    if (!gif) return status;
    memset(info, 0, sizeof *info);
    info->width = (uint32_t)gif->SWidth;
    info->height = (uint32_t)gif->SHeight;
    info->components = 4;
    info->bit_depth = 8;
    info->has_alpha = 1;  // the canvas outside the first frame, and a transparent index, are clear
    ib_gif_close(gif);
    return IB_IMAGE_OK;
}

// The first frame's rows, onto the canvas (clipped to it), through its colour map.
static int ib_gif_draw(GifFileType *gif, int transparent, uint64_t max_pixels, uint8_t *output, uint32_t width,
                       uint32_t height, ib_decode_report *report, ib_decode_control *control, char *error) {
    const GifImageDesc *frame = &gif->Image;
    const ColorMapObject *map = frame->ColorMap ? frame->ColorMap : gif->SColorMap;
    if (!map) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "GIF: no colour map");
        return IB_IMAGE_CORRUPT;
    }
    if (frame->Width <= 0 || frame->Height <= 0) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "GIF: empty frame");
        return IB_IMAGE_CORRUPT;
    }
    // A frame may claim to be larger than the screen; its rows are decompressed even where they
    // are clipped, so it is held to the same limit.
    if ((uint64_t)frame->Width * (uint64_t)frame->Height > max_pixels) {
        report->source_width = (uint32_t)frame->Width;
        report->source_height = (uint32_t)frame->Height;
        if (error) snprintf(error, IB_ERROR_CAPACITY, "GIF: frame of %dx%d", frame->Width, frame->Height);
        return IB_IMAGE_TOO_LARGE;
    }
    GifPixelType *line = malloc((size_t)frame->Width);
    if (!line) return IB_IMAGE_NO_MEMORY;
    // Interlaced frames send rows in four passes: every 8th from 0, every 8th from 4, every 4th
    // from 2, every 2nd from 1.
    static const int starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
    int passes = frame->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int start = frame->Interlace ? starts[pass] : 0, step = frame->Interlace ? steps[pass] : 1;
        for (int row = start; row < frame->Height; row += step) {
            if (ib_decode_should_stop(control)) {
                free(line);
                return IB_IMAGE_STOPPED;
            }
            if (DGifGetLine(gif, line, frame->Width) == GIF_ERROR) {
                free(line);
                return ib_gif_fail(gif->Error, error);
            }
            long y = (long)frame->Top + row;
            if (y < 0 || y >= (long)height) continue;
            for (int column = 0; column < frame->Width; column++) {
                long x = (long)frame->Left + column;
                if (x < 0 || x >= (long)width || line[column] == transparent) continue;
                uint8_t *pixel = output + ((size_t)y * width + (size_t)x) * 4;
                if (line[column] >= map->ColorCount) continue;  // outside the map: left clear
                const GifColorType *color = &map->Colors[line[column]];
                pixel[0] = color->Red; pixel[1] = color->Green; pixel[2] = color->Blue; pixel[3] = 255;
            }
        }
    }
    free(line);
    return IB_IMAGE_OK;
}

int ib_gif_decode_rgba(const uint8_t *data, size_t length, uint64_t max_pixels, uint8_t *output,
                       size_t output_capacity, ib_decode_report *report, ib_decode_control *control,
                       char *error) {
    if (error) error[0] = 0;
    ib_gif_source source;
    int status = IB_IMAGE_OK;
    GifFileType *gif = ib_gif_open(&source, data, length, &status, error);
    if (!gif) return status;
    uint32_t width = (uint32_t)gif->SWidth, height = (uint32_t)gif->SHeight;
    *report = (ib_decode_report){width, height, width, height, 0, 0};
    if ((size_t)width * height * 4 > output_capacity) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "output buffer too small");
        ib_gif_close(gif);
        return IB_IMAGE_NO_MEMORY;
    }
    memset(output, 0, (size_t)width * height * 4);
    int transparent = NO_TRANSPARENT_COLOR, count = 0, drawn = 0;
    GifRecordType record;
    do {
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) { status = ib_gif_fail(gif->Error, error); break; }
        if (record == IMAGE_DESC_RECORD_TYPE) {
            // giflib keeps a record (and a colour map copy) of every frame it has read until the
            // file is closed: a file of endless tiny frames stops being counted here.
            if (count >= IB_GIF_MAX_FRAMES) break;
            if (DGifGetImageDesc(gif) == GIF_ERROR) { status = ib_gif_fail(gif->Error, error); break; }
            if (count++ == 0) {
                status = ib_gif_draw(gif, transparent, max_pixels, output, width, height, report, control, error);
                if (status != IB_IMAGE_OK) break;
                drawn = 1;
            } else {
                int size;
                GifByteType *block;
                if (DGifGetCode(gif, &size, &block) == GIF_ERROR) { status = ib_gif_fail(gif->Error, error); break; }
                while (block) {
                    if (DGifGetCodeNext(gif, &block) == GIF_ERROR) { status = ib_gif_fail(gif->Error, error); break; }
                }
                if (status != IB_IMAGE_OK) break;
            }
        } else if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *extension;
            if (DGifGetExtension(gif, &code, &extension) == GIF_ERROR) { status = ib_gif_fail(gif->Error, error); break; }
            if (code == GRAPHICS_EXT_FUNC_CODE && count == 0 && extension && extension[0] == 4) {
                // giflib fills the block only for the standard 4-byte extension (else GIF_ERROR).
                GraphicsControlBlock graphics = {DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
                if (DGifExtensionToGCB(extension[0], extension + 1, &graphics) == GIF_OK) transparent = graphics.TransparentColor;
            }
            while (extension) {
                if (DGifGetExtensionNext(gif, &extension) == GIF_ERROR) { status = ib_gif_fail(gif->Error, error); break; }
            }
            if (status != IB_IMAGE_OK) break;
        }
    } while (record != TERMINATE_RECORD_TYPE);
    // A file damaged after its first frame still shows that frame, as browsers do: the frames
    // counted so far stand.
    if (status != IB_IMAGE_OK && status != IB_IMAGE_NO_MEMORY && status != IB_IMAGE_STOPPED && drawn) status = IB_IMAGE_OK;
    report->frames = count;
    ib_gif_close(gif);
    if (status == IB_IMAGE_OK && count == 0) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "GIF: no frame");
        return IB_IMAGE_CORRUPT;
    }
    return status;
}

int ib_gif_quantize(const uint8_t *rgb, uint32_t width, uint32_t height, int colors, uint8_t *indices,
                    uint8_t *palette, int *palette_size, char *error) {
    if (error) error[0] = 0;
    size_t count = (size_t)width * height;
    GifByteType *planes = malloc(count * 3);
    GifColorType map[256];
    if (!planes) return IB_IMAGE_NO_MEMORY;
    for (size_t i = 0; i < count; i++) {
        planes[i] = rgb[i * 3]; planes[count + i] = rgb[i * 3 + 1]; planes[2 * count + i] = rgb[i * 3 + 2];
    }
    int size = colors;
    int result = GifQuantizeBuffer(width, height, &size, planes, planes + count, planes + 2 * count, indices, map);
    free(planes);
    if (result == GIF_ERROR) {
        if (error) snprintf(error, IB_ERROR_CAPACITY, "GIF: quantizing failed");
        return IB_IMAGE_CORRUPT;
    }
    for (int i = 0; i < size; i++) {
        palette[i * 3] = map[i].Red; palette[i * 3 + 1] = map[i].Green; palette[i * 3 + 2] = map[i].Blue;
    }
    *palette_size = size;
    return IB_IMAGE_OK;
}

typedef struct {
    uint8_t *data;
    size_t length, capacity;
} ib_gif_sink;

static int ib_gif_write(GifFileType *gif, const GifByteType *chunk, int count) {
    ib_gif_sink *sink = (ib_gif_sink *)gif->UserData;
    if (sink->length + (size_t)count > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity * 2 : 65536;
        while (capacity < sink->length + (size_t)count) capacity *= 2;
        uint8_t *grown = realloc(sink->data, capacity);
        if (!grown) return 0;
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->length, chunk, (size_t)count);
    sink->length += (size_t)count;
    return count;
}

int ib_gif_encode(const uint8_t *indices, int frames, uint32_t width, uint32_t height, const uint8_t *palette,
                  int palette_size, int transparent, int delay_centiseconds, uint8_t **out, size_t *out_length,
                  char *error) {
    if (error) error[0] = 0;
    int map_size = 2;
    while (map_size < palette_size) map_size *= 2;  // a GIF colour map has 2^n entries
    GifColorType colors[256] = {{0}};
    for (int i = 0; i < palette_size && i < 256; i++) {
        colors[i] = (GifColorType){palette[i * 3], palette[i * 3 + 1], palette[i * 3 + 2]};
    }
    ColorMapObject *map = GifMakeMapObject(map_size, colors);
    GifPixelType *row = malloc(width > 0 ? width : 1);
    ib_gif_sink sink = {NULL, 0, 0};
    int code = 0;
    GifFileType *gif = map && row ? EGifOpen(&sink, ib_gif_write, &code) : NULL;
    int ok = gif != NULL;
    if (ok) {
        EGifSetGifVersion(gif, true);
        ok = EGifPutScreenDesc(gif, (int)width, (int)height, GifBitSize(map_size), 0, map) != GIF_ERROR;
    }
    for (int frame = 0; ok && frame < frames; frame++) {
        GraphicsControlBlock control = {DISPOSE_DO_NOT, false, delay_centiseconds, transparent};
        GifByteType extension[4];
        size_t length = EGifGCBToExtension(&control, extension);
        ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) != GIF_ERROR
            && EGifPutImageDesc(gif, 0, 0, (int)width, (int)height, false, NULL) != GIF_ERROR;
        const uint8_t *pixels = indices + (size_t)frame * width * height;
        for (uint32_t y = 0; ok && y < height; y++) {
            // EGifPutLine masks the row in place: it gets a copy, not the caller's const pixels.
            memcpy(row, pixels + (size_t)y * width, width);
            ok = EGifPutLine(gif, row, (int)width) != GIF_ERROR;
        }
    }
    if (gif) {
        if (!ok) code = gif->Error;
        int close_code = 0;
        if (EGifCloseFile(gif, &close_code) == GIF_ERROR && ok) { ok = 0; code = close_code; }
    }
    GifFreeMapObject(map);
    free(row);
    if (!ok) {
        free(sink.data);
        const char *text = GifErrorString(code);
        if (error) snprintf(error, IB_ERROR_CAPACITY, "GIF encoding failed: %s", text ? text : "unknown error");
        return IB_IMAGE_CORRUPT;
    }
    *out = sink.data;
    *out_length = sink.length;
    return IB_IMAGE_OK;
}

// giflib has no run-time version call: the headers built against.
#define IB_STRING(x) #x
#define IB_VERSION(a, b, c) IB_STRING(a) "." IB_STRING(b) "." IB_STRING(c)
const char *ib_gif_version(void) { return IB_VERSION(GIFLIB_MAJOR, GIFLIB_MINOR, GIFLIB_RELEASE); }
