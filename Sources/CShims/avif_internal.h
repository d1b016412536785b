#ifndef IMGBENCH_AVIF_INTERNAL_H
#define IMGBENCH_AVIF_INTERNAL_H

// What avif.c shares with avif_fill.c. Not part of the module's public header.

#include <avif/avif.h>
#include "cshims.h"

/// An avifResult as a status, libavif's diagnostic as the message.
int ib_avif_status(avifResult result, const avifDiagnostics *diag, char *error);

/// Bytes of a frame's YUV (and alpha) planes at its depth and subsampling: what dav1d allocates.
uint64_t ib_avif_plane_bytes(uint32_t width, uint32_t height, int depth, int yuv_format, int has_alpha);

/// Parses, refuses over max_pixels, charges the planes plus output_bytes(width, height, context)
/// (0 from it: the caller's buffer is too small, IB_IMAGE_NO_MEMORY), polls the stop, decodes the
/// first frame into decoder->image and polls the stop again. *info from the container.
int ib_avif_decode_frame(avifDecoder *decoder, const uint8_t *data, size_t length, uint64_t max_pixels,
                         uint64_t (*output_bytes)(uint32_t width, uint32_t height, void *context), void *context,
                         ib_image_info *info, ib_decode_control *control, char *error);

#endif
