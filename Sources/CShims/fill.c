#include <math.h>
#include <string.h>
#include "cshims.h"

// The aspect-fill geometry: the scale that makes the image cover the target, capped at 1 (no
// upscaling), the output size, and the centred source rectangle that maps onto it.
void ib_fill_geometry_for(uint32_t source_width, uint32_t source_height, uint32_t target_width,
                          uint32_t target_height, ib_fill_geometry *g) {
    if (target_width == 0 || target_height == 0 || source_width == 0 || source_height == 0) {
        *g = (ib_fill_geometry){source_width, source_height, 0, 0, source_width, source_height};
        return;
    }
    double scale = fmin(1.0, fmax((double)target_width / source_width,
                                  (double)target_height / source_height));
    long out_width = lround((double)source_width * scale);
    long out_height = lround((double)source_height * scale);
    out_width = out_width < 1 ? 1 : (out_width > target_width ? target_width : out_width);
    out_height = out_height < 1 ? 1 : (out_height > target_height ? target_height : out_height);
    long crop_width = lround((double)out_width / scale);
    long crop_height = lround((double)out_height / scale);
    if (crop_width > source_width) crop_width = source_width;
    if (crop_height > source_height) crop_height = source_height;
    g->out_width = (uint32_t)out_width;
    g->out_height = (uint32_t)out_height;
    g->crop_width = (uint32_t)crop_width;
    g->crop_height = (uint32_t)crop_height;
    g->crop_x = (source_width - (uint32_t)crop_width) / 2;
    g->crop_y = (source_height - (uint32_t)crop_height) / 2;
}

// The column sums, a zero column after them (see emit_row) and the spans' ends.
size_t ib_fill_scratch_count(const ib_fill_geometry *g) {
    return ((size_t)g->crop_width + 1) * 4 + g->out_width;
}

// Span i of `count` over `length` ends at (i + 1) * length / count: the spans partition the crop,
// each at least one pixel since length >= count.
static uint32_t span_end(uint32_t index, uint32_t length, uint32_t count) {
    return (uint32_t)(((uint64_t)index + 1) * length / count);
}

void ib_fill_begin(ib_fill *f, const ib_fill_geometry *g, uint32_t *scratch, uint8_t *output) {
    f->geometry = *g;
    f->columns = scratch;
    memset(scratch + (size_t)g->crop_width * 4, 0, 4 * sizeof *scratch);
    f->column_ends = scratch + ((size_t)g->crop_width + 1) * 4;
    for (uint32_t x = 0; x < g->out_width; x++)
        f->column_ends[x] = span_end(x, g->crop_width, g->out_width);
    f->output = output;
#if defined(__x86_64__)
    f->avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    f->avx2 = 0;
#endif
    f->row = 0;
    f->out_row = 0;
    f->span_start = 0;
}

typedef uint32_t ib_u32x4 __attribute__((vector_size(16)));
typedef uint8_t ib_u8x4 __attribute__((vector_size(4)));

static inline ib_u32x4 load_pixel(const uint32_t *column) {
    ib_u32x4 v;
    memcpy(&v, column, sizeof v);
    return v;
}

// One output row from the column sums, the four channels of a pixel in one vector. Spans are
// `narrow` or `narrow + 1` columns wide in an irregular order.
// - Ratios under 2 (what a DCT-scaled JPEG leaves): spans of 1 or 2 columns. A span's mean is
//   (first + last + rows) / (2 * rows), which counts a 1-column span's only column twice, so
//   every pixel of the row divides by the same power of two or multiplier, with no branch on the
//   width (a mispredicted branch costs more than the arithmetic).
// - Otherwise the loop adds `narrow` columns and the extra one masked to nothing or kept; the
//   scratch ends with a zero column, so that read stays in bounds.
// Up to 256 pixels a mean is (sum + count / 2) * ceil(2^24 / count) >> 24 in 32 bits: exact,
// since the sum stays below 256 * count (Granlund and Montgomery); larger spans divide.
static inline __attribute__((always_inline)) void emit_row(ib_fill *f, uint32_t rows) {
    const ib_fill_geometry *g = &f->geometry;
    uint8_t *restrict out = f->output + (size_t)f->out_row * g->out_width * 4;
    // Locals, not fields: the stores to `out` could alias *f, and reloading the fields on every
    // pixel cost a tenth of the loop.
    const uint32_t *restrict columns = f->columns;
    const uint32_t *restrict ends = f->column_ends;
    const uint32_t out_width = g->out_width;
    uint32_t narrow = g->crop_width / out_width;
    uint32_t counts[2] = {narrow * rows, (narrow + 1) * rows};
    uint32_t x0 = 0;
    if (narrow == 1 && rows <= 128) {
        uint32_t count = 2 * rows, half = rows;
        if (!(count & (count - 1))) {
            uint32_t shift = (uint32_t)__builtin_ctz(count);
            for (uint32_t ox = 0; ox < out_width; ox++, out += 4) {
                uint32_t x1 = ends[ox];
                ib_u32x4 sum = load_pixel(columns + (size_t)x0 * 4) + load_pixel(columns + (size_t)(x1 - 1) * 4);
                ib_u8x4 mean = __builtin_convertvector((sum + half) >> shift, ib_u8x4);
                memcpy(out, &mean, 4);
                x0 = x1;
            }
        } else {
            uint32_t m = ((1u << 24) + count - 1) / count;
            for (uint32_t ox = 0; ox < out_width; ox++, out += 4) {
                uint32_t x1 = ends[ox];
                ib_u32x4 sum = load_pixel(columns + (size_t)x0 * 4) + load_pixel(columns + (size_t)(x1 - 1) * 4);
                ib_u8x4 mean = __builtin_convertvector(((sum + half) * m) >> 24, ib_u8x4);
                memcpy(out, &mean, 4);
                x0 = x1;
            }
        }
        return;
    }
    if (counts[1] <= 256) {
        uint32_t multipliers[2] = {((1u << 24) + counts[0] - 1) / counts[0], ((1u << 24) + counts[1] - 1) / counts[1]};
        for (uint32_t ox = 0; ox < out_width; ox++, out += 4) {
            uint32_t x1 = ends[ox];
            uint32_t wide = (x1 - x0) - narrow;
            const uint32_t *c = columns + (size_t)x0 * 4;
            ib_u32x4 sum = load_pixel(c);
            for (uint32_t x = 1; x < narrow; x++) sum += load_pixel(c + x * 4);
            sum += load_pixel(c + narrow * 4) & (0u - wide);
            ib_u8x4 mean = __builtin_convertvector(((sum + counts[wide] / 2) * multipliers[wide]) >> 24, ib_u8x4);
            memcpy(out, &mean, 4);
            x0 = x1;
        }
        return;
    }
    for (uint32_t ox = 0; ox < out_width; ox++, out += 4) {
        uint32_t x1 = ends[ox];
        uint64_t sums[4] = {0, 0, 0, 0};
        for (const uint32_t *c = columns + (size_t)x0 * 4, *end = columns + (size_t)x1 * 4; c < end; c += 4)
            for (int k = 0; k < 4; k++) sums[k] += c[k];
        uint64_t count = (uint64_t)(x1 - x0) * rows;
        for (int k = 0; k < 4; k++) out[k] = (uint8_t)((sums[k] + count / 2) / count);
        x0 = x1;
    }
}

static inline __attribute__((always_inline)) void fill_row(ib_fill *f, const uint8_t *row) {
    const ib_fill_geometry *g = &f->geometry;
    if (f->out_row >= g->out_height) return;
    size_t n = (size_t)g->crop_width * 4;
    if (g->out_width == g->crop_width && g->out_height == g->crop_height) {
        // A crop with no scaling (an image smaller than its cell on one side): a copy.
        memcpy(f->output + (size_t)f->out_row++ * n, row, n);
        return;
    }
    uint32_t *columns = f->columns;
    // Sums down the columns first: contiguous, so the compiler vectorises it; the sums across a
    // span are taken once per output row.
    if (f->row == f->span_start) {
        for (size_t i = 0; i < n; i++) columns[i] = row[i];
    } else {
        for (size_t i = 0; i < n; i++) columns[i] += row[i];
    }
    f->row++;
    if (f->row == span_end(f->out_row, g->crop_height, g->out_height)) {
        emit_row(f, f->row - f->span_start);
        f->out_row++;
        f->span_start = f->row;
    }
}

void ib_box_filter_rgba(const uint8_t *source, uint32_t source_width, const ib_fill_geometry *g,
                        uint32_t *scratch, uint8_t *output) {
    ib_fill f;
    ib_fill_begin(&f, g, scratch, output);
    size_t stride = (size_t)source_width * 4;
    const uint8_t *row = source + (size_t)g->crop_y * stride + (size_t)g->crop_x * 4;
    for (uint32_t y = 0; y < g->crop_height; y++, row += stride) ib_fill_row(&f, row);
}

// Compiled twice and chosen per image by the CPU, as libjpeg-turbo chooses its own SIMD: with
// AVX2 (a 32-bit vector multiply, variable shifts, wider adds) the filter takes about 0.7 of the
// baseline x86-64 build's time. Not target_clones: its load-time resolver runs before
// ThreadSanitizer's runtime is up and crashes an instrumented process.
#if defined(__x86_64__)
__attribute__((target("avx2"))) static void fill_row_avx2(ib_fill *f, const uint8_t *row) { fill_row(f, row); }
#endif
static void fill_row_baseline(ib_fill *f, const uint8_t *row) { fill_row(f, row); }

void ib_fill_row(ib_fill *f, const uint8_t *row) {
#if defined(__x86_64__)
    if (f->avx2) {
        fill_row_avx2(f, row);
        return;
    }
#endif
    fill_row_baseline(f, row);
}
