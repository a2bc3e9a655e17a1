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
                       int dx, int dy, int32_t weight, int side, uint32_t *restrict block_sums) {
    if (width <= 0 || height <= 0 || side <= 0) return;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    memset(block_sums, 0, (size_t)blocks_wide * (size_t)blocks_high * sizeof *block_sums);
    // Reference pixels (x, y) whose source (x + dx, y + dy) lies in the frame.
    int x_start = max_int(0, -dx), x_end = min_int(width, width - dx);
    for (int y = 0; y < height; y++) {
        uint32_t *restrict sums = block_sums + (size_t)(y / side) * (size_t)blocks_wide;
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
            uint32_t sum = 0;
            for (int i = x; i < block_end; i++) {
                int32_t sample = (int32_t)row[i + dx] << 8;
                int32_t old = target[i];
                int32_t delta = sample - old;
                // |delta| <= 65280 and weight <= 32768: the product fits int32. The shift
                // of a negative product is arithmetic (as Swift's >> on Int32).
                int32_t updated = old + ((delta * weight) >> 15);
                target[i] = (uint16_t)updated;
                sum += (uint32_t)(updated >> 8);
            }
            sums[x / side] += sum;
            x = block_end;
        }
        sum_row_span(target, x_end, width, side, sums);
    }
}

void lector_stack_block_means(const uint32_t *restrict block_sums, int width, int height, int side, uint8_t *restrict means) {
    if (width <= 0 || height <= 0 || side <= 0) return;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    for (int by = 0; by < blocks_high; by++) {
        uint32_t rows = (uint32_t)min_int(side, height - by * side);
        for (int bx = 0; bx < blocks_wide; bx++) {
            uint32_t columns = (uint32_t)min_int(side, width - bx * side);
            size_t index = (size_t)by * (size_t)blocks_wide + (size_t)bx;
            means[index] = (uint8_t)(block_sums[index] / (rows * columns));
        }
    }
}

void lector_integral_image(const uint8_t *restrict frame, size_t stride, int width, int height,
                           uint32_t *restrict integral) {
    if (width <= 0 || height <= 0) return;
    size_t columns = (size_t)width + 1;
    memset(integral, 0, columns * sizeof *integral);
    for (int y = 0; y < height; y++) {
        const uint8_t *restrict row = frame + (size_t)y * stride;
        const uint32_t *restrict above = integral + (size_t)y * columns;
        uint32_t *restrict target = integral + (size_t)(y + 1) * columns;
        uint32_t sum = 0;
        target[0] = 0;
        for (int x = 0; x < width; x++) {
            sum += row[x];
            target[x + 1] = above[x + 1] + sum;  // modulo 2^32: a block's sum stays exact
        }
    }
}

void lector_mean_integral_image(const uint16_t *restrict mean, int width, int height, uint32_t *restrict integral) {
    if (width <= 0 || height <= 0) return;
    size_t columns = (size_t)width + 1;
    memset(integral, 0, columns * sizeof *integral);
    for (int y = 0; y < height; y++) {
        const uint16_t *restrict row = mean + (size_t)y * (size_t)width;
        const uint32_t *restrict above = integral + (size_t)y * columns;
        uint32_t *restrict target = integral + (size_t)(y + 1) * columns;
        uint32_t sum = 0;
        target[0] = 0;
        for (int x = 0; x < width; x++) {
            sum += (uint32_t)(row[x] >> 8);
            target[x + 1] = above[x + 1] + sum;
        }
    }
}

// The sum of a window of an integral image (rows of `stride` entries).
static inline uint32_t window_sum(const uint32_t *restrict integral, size_t stride, int left, int top, int columns, int rows) {
    const uint32_t *upper = integral + (size_t)top * stride, *lower = integral + (size_t)(top + rows) * stride;
    return lower[left + columns] - lower[left] - upper[left + columns] + upper[left];
}

// Whether the frame's window at the block moved by (dx, dy) matches the mean's block: each
// quarter of the block (the block itself when it is thinner than 2 px) within
// `level` gray levels on average. The window lies inside the frame.
static int block_matches(const uint32_t *restrict frame, const uint32_t *restrict mean, size_t stride, int x0, int y0,
                         int columns, int rows, int dx, int dy, int level) {
    int halves_x = columns >= 2 ? 2 : 1, halves_y = rows >= 2 ? 2 : 1;
    for (int qy = 0; qy < halves_y; qy++) {
        int top = qy * (rows / halves_y), height = qy + 1 == halves_y ? rows - top : rows / halves_y;
        for (int qx = 0; qx < halves_x; qx++) {
            int left = qx * (columns / halves_x), width = qx + 1 == halves_x ? columns - left : columns / halves_x;
            uint32_t seen = window_sum(frame, stride, x0 + left + dx, y0 + top + dy, width, height);
            uint32_t kept = window_sum(mean, stride, x0 + left, y0 + top, width, height);
            uint32_t difference = seen > kept ? seen - kept : kept - seen;
            if (difference > (uint32_t)level * (uint32_t)(width * height)) return 0;
        }
    }
    return 1;
}

// Whether some window of the frame, the block moved by (dx + ex, dy + ey) with |ex|, |ey|
// <= radius, matches the mean's block (nearest first). A block some of whose windows leave
// the frame is not tested (true): at the frame's edge, content comes into view and leaves
// it as the camera turns.
static int block_explained(const uint32_t *restrict frame, const uint32_t *restrict mean, int width, int height,
                           int x0, int y0, int columns, int rows, int dx, int dy, int radius, int level) {
    if (x0 + dx - radius < 0 || y0 + dy - radius < 0 || x0 + dx + radius + columns > width
        || y0 + dy + radius + rows > height)
        return 1;
    size_t stride = (size_t)width + 1;
    for (int ring = 0; ring <= radius; ring++) {
        for (int ey = -ring; ey <= ring; ey++) {
            for (int ex = -ring; ex <= ring; ex++) {
                if (ex != -ring && ex != ring && ey != -ring && ey != ring) continue;  // inner rings done
                if (block_matches(frame, mean, stride, x0, y0, columns, rows, dx + ex, dy + ey, level)) return 1;
            }
        }
    }
    return 0;
}

int lector_stack_unexplained_blocks(const uint32_t *restrict frame_integral, const uint32_t *restrict mean_integral,
                                    int width, int height, int dx, int dy, int side, int radius, int level, int enough) {
    if (width <= 0 || height <= 0 || side <= 0) return 0;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    int unexplained = 0;
    for (int by = 0; by < blocks_high && unexplained < enough; by++) {
        int rows = min_int(side, height - by * side);
        for (int bx = 0; bx < blocks_wide && unexplained < enough; bx++) {
            int columns = min_int(side, width - bx * side);
            if (!block_explained(frame_integral, mean_integral, width, height, bx * side, by * side, columns, rows, dx, dy,
                                 radius, level))
                unexplained++;
        }
    }
    return unexplained;
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
