// The live-text stack's per-pixel loops (see CFrameKernels.h). Written for the
// compiler's loop vectoriser: `restrict` pointers, inner loops over contiguous pixels
// with integer reductions. Package.swift compiles this target with -O2 in every build.
#include "CFrameKernels.h"

#include <string.h>

static inline int min_int(int a, int b) { return a < b ? a : b; }
static inline int max_int(int a, int b) { return a > b ? a : b; }

void lector_pick_samples(const uint8_t *restrict source, size_t stride, int step, int width, int height,
                         uint8_t *restrict out) {
    if (width <= 0 || height <= 0) return;
    for (int y = 0; y < height; y++) {
        const uint8_t *restrict row = source + (size_t)y * stride;
        uint8_t *restrict target = out + (size_t)y * (size_t)width;
        if (step == 2) {
            for (int x = 0; x < width; x++) target[x] = row[2 * x];  // a constant step vectorises
        } else {
            for (int x = 0; x < width; x++) target[x] = row[(size_t)x * (size_t)step];
        }
    }
}

void lector_detrend(const float *restrict values, int count, int radius, float *restrict scratch,
                    float *restrict flat, float *restrict out) {
    if (count <= 0) return;
    scratch[0] = 0;
    for (int index = 0; index < count; index++) scratch[index + 1] = scratch[index] + values[index];
    for (int index = 0; index < count; index++) {
        int low = max_int(0, index - radius), high = min_int(count, index + radius + 1);
        flat[index] = values[index] - (scratch[high] - scratch[low]) / (float)(high - low);
    }
    for (int index = 0; index < count; index++) {
        float left = flat[max_int(index - 1, 0)], right = flat[min_int(index + 1, count - 1)];
        out[index] = (left + 2 * flat[index] + right) / 4;
    }
}

void lector_luma_profile_sums(const uint8_t *restrict image, size_t stride, int width, int height,
                              uint32_t *restrict column_sums, uint32_t *restrict row_sums) {
    if (width <= 0 || height <= 0) return;
    memset(column_sums, 0, (size_t)width * sizeof *column_sums);
    for (int y = 0; y < height; y++) {
        const uint8_t *restrict row = image + (size_t)y * stride;
        uint32_t sum = 0;
        for (int x = 0; x < width; x++) {
            uint32_t value = row[x];
            column_sums[x] += value;
            sum += value;
        }
        row_sums[y] = sum;
    }
}

void lector_profile_offset_costs(const float *restrict reference, const float *restrict moved, int count, int radius,
                                 float *restrict costs) {
    for (int offset = -radius; offset <= radius; offset++) {
        int start = max_int(0, -offset), end = min_int(count, count - offset);
        float cost = 0;
        // In index order, as the Swift code summed: the same float result.
        for (int index = start; index < end; index++) {
            float difference = reference[index] - moved[index + offset];
            cost += difference < 0 ? -difference : difference;
        }
        costs[offset + radius] = cost / (float)(end - start);
    }
}

// Adds the integer parts of `count` mean pixels to one block's sum.
static inline uint32_t integer_sum(const uint16_t *restrict mean, int count) {
    uint32_t sum = 0;
    for (int x = 0; x < count; x++) sum += (uint32_t)(mean[x] >> 8);
    return sum;
}

// Pixels of the mean left as they are (their source is outside the frame): only summed.
static void sum_row_span(const uint16_t *restrict target, int from, int to, int side, uint32_t *restrict sums) {
    int x = from;
    while (x < to) {
        int block_end = min_int(to, (x / side + 1) * side);
        sums[x / side] += integer_sum(target + x, block_end - x);
        x = block_end;
    }
}

void lector_stack_fold(uint16_t *restrict mean, const uint8_t *restrict frame, size_t stride, int width, int height,
                       int dx, int dy, int32_t weight, int side,
                       uint32_t *restrict block_sums, int32_t *restrict block_differences) {
    if (width <= 0 || height <= 0 || side <= 0) return;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    memset(block_sums, 0, (size_t)blocks_wide * (size_t)blocks_high * sizeof *block_sums);
    memset(block_differences, 0, (size_t)blocks_wide * (size_t)blocks_high * sizeof *block_differences);
    // Reference pixels (x, y) whose source (x + dx, y + dy) lies in the frame.
    int x_start = max_int(0, -dx), x_end = min_int(width, width - dx);
    for (int y = 0; y < height; y++) {
        uint32_t *restrict sums = block_sums + (size_t)(y / side) * (size_t)blocks_wide;
        int32_t *restrict differences = block_differences + (size_t)(y / side) * (size_t)blocks_wide;
        uint16_t *restrict target = mean + (size_t)y * (size_t)width;
        int source_y = y + dy;
        if (source_y < 0 || source_y >= height || x_start >= x_end) {
            sum_row_span(target, 0, width, side, sums);
            continue;
        }
        // row[x + dx] is the source of reference pixel x, for x_start <= x < x_end.
        const uint8_t *restrict row = frame + (size_t)source_y * stride;
        sum_row_span(target, 0, x_start, side, sums);
        int x = x_start;
        while (x < x_end) {
            int block_end = min_int(x_end, (x / side + 1) * side);
            int32_t difference = 0;
            uint32_t sum = 0;
            for (int i = x; i < block_end; i++) {
                int32_t sample = (int32_t)row[i + dx] << 8;
                int32_t old = target[i];
                int32_t delta = sample - old;
                difference += delta;
                // |delta| <= 65280 and weight <= 32768: the product fits int32. The shift
                // of a negative product is arithmetic (as Swift's >> on Int32).
                int32_t updated = old + ((delta * weight) >> 15);
                target[i] = (uint16_t)updated;
                sum += (uint32_t)(updated >> 8);
            }
            differences[x / side] += difference;
            sums[x / side] += sum;
            x = block_end;
        }
        sum_row_span(target, x_end, width, side, sums);
    }
}

int lector_stack_block_summary(const uint32_t *restrict block_sums, const int32_t *restrict block_differences,
                               int width, int height, int side, int64_t limit, uint8_t *restrict means) {
    if (width <= 0 || height <= 0 || side <= 0) return 0;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    int changed = 0;
    for (int by = 0; by < blocks_high; by++) {
        uint32_t rows = (uint32_t)min_int(side, height - by * side);
        for (int bx = 0; bx < blocks_wide; bx++) {
            uint32_t columns = (uint32_t)min_int(side, width - bx * side);
            size_t index = (size_t)by * (size_t)blocks_wide + (size_t)bx;
            means[index] = (uint8_t)(block_sums[index] / (rows * columns));
            int64_t difference = block_differences[index];
            if ((difference < 0 ? -difference : difference) > limit) changed++;
        }
    }
    return changed;
}

void lector_stack_read_out(const uint16_t *restrict mean, int width, int height, int dx, int dy,
                           uint8_t *restrict out, size_t out_stride) {
    if (width <= 0 || height <= 0) return;
    int x_start = min_int(max_int(dx, 0), width), x_end = max_int(min_int(width + dx, width), x_start);
    for (int y = 0; y < height; y++) {
        int reference_y = min_int(max_int(y - dy, 0), height - 1);
        const uint16_t *restrict source = mean + (size_t)reference_y * (size_t)width;
        uint8_t *restrict target = out + (size_t)y * out_stride;
        // source[x - dx] for x_start <= x < x_end lies within the row.
        for (int x = x_start; x < x_end; x++) target[x] = (uint8_t)((source[x - dx] + 128) >> 8);
        if (x_start > 0) memset(target, (uint8_t)((source[0] + 128) >> 8), (size_t)x_start);
        if (x_end < width) memset(target + x_end, (uint8_t)((source[width - 1] + 128) >> 8), (size_t)(width - x_end));
    }
}
