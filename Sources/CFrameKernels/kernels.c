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

// The extent of a block's first half along one side: a block splits at half its columns
// and half its rows; one a single pixel wide (or high) is one half that way, the other empty.
static inline int first_half(int extent) { return extent >= 2 ? extent / 2 : extent; }

// Where row y stands among its blocks' row halves (split as first_half says): whether it
// is the half's first row, whether its last,
// and the half's quarter sums (its row of blocks' in `quarter_sums`, plus 2 for the lower
// half; entry 4 × block + column half).
typedef struct {
    int opens, closes;
    uint32_t *sums;
} row_half;

static inline row_half row_half_of(uint32_t *quarter_sums, int y, int height, int side, int blocks_wide) {
    int y0 = y / side * side, rows = min_int(side, height - y0), first = first_half(rows), offset = y - y0;
    row_half half = {offset == 0 || offset == first, offset == first - 1 || offset == rows - 1,
                     quarter_sums + (size_t)(y / side) * (size_t)blocks_wide * 4 + (size_t)(offset >= first) * 2};
    return half;
}

// Adds a row half's column sums [from, to) to their quarters' `sums` (row_half's), each
// block's columns split as first_half says.
static void add_columns_to_quarters(const uint32_t *restrict columns, int from, int to, int width, int side,
                                    uint32_t *restrict sums) {
    for (int block = from / side, x0 = block * side; x0 < to; block++, x0 += side) {
        int extent = min_int(side, width - x0), first = first_half(extent);
        for (int half = 0; half < 2; half++) {
            int start = max_int(from, half ? x0 + first : x0), end = min_int(to, half ? x0 + extent : x0 + first);
            uint32_t sum = 0;
            for (int x = start; x < end; x++) sum += columns[x];
            sums[(size_t)block * 4 + (size_t)half] += sum;
        }
    }
}

void lector_stack_fold(uint16_t *restrict mean, const uint8_t *restrict frame, size_t stride, int width, int height,
                       int dx, int dy, int32_t weight, int side, uint32_t *restrict quarter_sums,
                       uint32_t *restrict column_sums) {
    if (width <= 0 || height <= 0 || side <= 0) return;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    memset(quarter_sums, 0, (size_t)blocks_wide * (size_t)blocks_high * 4 * sizeof *quarter_sums);
    // Reference pixels (x, y) whose source (x + dx, y + dy) lies in the frame.
    int x_start = max_int(0, -dx), x_end = min_int(width, width - dx);
    for (int y = 0; y < height; y++) {
        uint16_t *restrict target = mean + (size_t)y * (size_t)width;
        int source_y = y + dy;
        if (source_y >= 0 && source_y < height && x_start < x_end) {
            // row[x] is the source of reference pixel x, for x_start <= x < x_end.
            const uint8_t *restrict row = frame + (size_t)source_y * stride + dx;
            for (int x = x_start; x < x_end; x++) {
                int32_t sample = (int32_t)row[x] << 8;
                int32_t old = target[x];
                // |sample - old| <= 65280 and weight <= 32768: the product fits int32. The
                // shift of a negative product is arithmetic (as Swift's >> on Int32).
                target[x] = (uint16_t)(old + (((sample - old) * weight) >> 15));
            }
        }
        // Summed down each column over a half row of blocks, then across into its quarters.
        row_half half = row_half_of(quarter_sums, y, height, side, blocks_wide);
        if (half.opens) {
            for (int x = 0; x < width; x++) column_sums[x] = (uint32_t)(target[x] >> 8);
        } else {
            for (int x = 0; x < width; x++) column_sums[x] += (uint32_t)(target[x] >> 8);
        }
        if (half.closes) add_columns_to_quarters(column_sums, 0, width, width, side, half.sums);
    }
}

void lector_stack_block_means(const uint32_t *restrict quarter_sums, int width, int height, int side, uint8_t *restrict means) {
    if (width <= 0 || height <= 0 || side <= 0) return;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    for (int by = 0; by < blocks_high; by++) {
        uint32_t rows = (uint32_t)min_int(side, height - by * side);
        for (int bx = 0; bx < blocks_wide; bx++) {
            uint32_t columns = (uint32_t)min_int(side, width - bx * side);
            size_t index = (size_t)by * (size_t)blocks_wide + (size_t)bx;
            const uint32_t *quarters = quarter_sums + index * 4;
            means[index] = (uint8_t)((quarters[0] + quarters[1] + quarters[2] + quarters[3]) / (rows * columns));
        }
    }
}

// The integral image of a luma frame (rows `stride` bytes apart) into `integral`, which
// holds (`width` + 1) × (`height` + 1) entries: entry (x, y) is the sum of the pixels
// above and left of (x, y), modulo 2^32 (any window of up to 2^24 pixels sums exactly).
static void integral_image(const uint8_t *restrict frame, size_t stride, int width, int height,
                           uint32_t *restrict integral) {
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
            target[x + 1] = above[x + 1] + sum;  // modulo 2^32: a window's sum stays exact
        }
    }
}

// The sum of a window of an integral image (rows of `stride` entries).
static inline uint32_t window_sum(const uint32_t *restrict integral, size_t stride, int left, int top, int columns, int rows) {
    const uint32_t *upper = integral + (size_t)top * stride, *lower = integral + (size_t)(top + rows) * stride;
    return lower[left + columns] - lower[left] - upper[left + columns] + upper[left];
}

// Whether a window's quarter sums `seen` match the mean block's `kept` (quarters as
// first_half splits the block): each within `level` gray levels on average (an empty
// quarter's sums are both 0).
static int quarters_match(const uint32_t *seen, const uint32_t *restrict kept, int columns, int rows, int level) {
    int half_x = first_half(columns), half_y = first_half(rows);
    int widths[2] = {half_x, columns - half_x}, heights[2] = {half_y, rows - half_y};
    for (int quarter = 0; quarter < 4; quarter++) {
        uint32_t a = seen[quarter], b = kept[quarter];
        uint32_t pixels = (uint32_t)(widths[quarter % 2] * heights[quarter / 2]);
        if ((a > b ? a - b : b - a) > (uint32_t)level * pixels) return 0;
    }
    return 1;
}

// Whether the window of `columns` × `rows` at (left, top) of an integral image (rows
// `stride` entries) matches the mean's block `kept`, quarter by quarter.
static int window_matches(const uint32_t *restrict integral, size_t stride, const uint32_t *restrict kept, int left, int top,
                          int columns, int rows, int level) {
    int half_x = first_half(columns), half_y = first_half(rows);
    uint32_t seen[4] = {
        window_sum(integral, stride, left, top, half_x, half_y),
        window_sum(integral, stride, left + half_x, top, columns - half_x, half_y),
        window_sum(integral, stride, left, top + half_y, half_x, rows - half_y),
        window_sum(integral, stride, left + half_x, top + half_y, columns - half_x, rows - half_y),
    };
    return quarters_match(seen, kept, columns, rows, level);
}

// Whether some window of the frame, the block at (x0, y0) moved by (dx + ex, dy + ey)
// with 1 <= max(|ex|, |ey|) <= radius (every such window inside the frame), matches the
// mean's block: ring by ring, nearest first, each ring walked along its edge, on the
// integral image of the block's neighbourhood, built into `window`.
static int block_matches_nearby(const uint8_t *restrict frame, size_t stride, const uint32_t *restrict kept, int x0, int y0,
                                int columns, int rows, int dx, int dy, int radius, int level, uint32_t *restrict window) {
    int span_x = columns + 2 * radius, span_y = rows + 2 * radius;
    size_t window_stride = (size_t)span_x + 1;
    integral_image(frame + (size_t)(y0 + dy - radius) * stride + (x0 + dx - radius), stride, span_x, span_y, window);
    // The block moved by (dx + ex, dy + ey) is the neighbourhood's window at (radius + ex, radius + ey).
    for (int ring = 1; ring <= radius; ring++) {
        for (int e = -ring; e <= ring; e++) {  // the ring's top and bottom rows
            if (window_matches(window, window_stride, kept, radius + e, radius - ring, columns, rows, level)
                || window_matches(window, window_stride, kept, radius + e, radius + ring, columns, rows, level))
                return 1;
        }
        for (int e = 1 - ring; e < ring; e++) {  // its left and right columns, corners done
            if (window_matches(window, window_stride, kept, radius - ring, radius + e, columns, rows, level)
                || window_matches(window, window_stride, kept, radius + ring, radius + e, columns, rows, level))
                return 1;
        }
    }
    return 0;
}

// The quarter sums (as the fold's) of the frame seen through the shift: reference pixel
// (x, y) takes the frame's (x + dx, y + dy) where that lies in the frame, else nothing.
// `column_sums`: width entries of scratch.
static void shifted_quarter_sums(const uint8_t *restrict frame, size_t stride, int width, int height, int dx, int dy,
                                 int side, uint32_t *restrict quarter_sums, uint32_t *restrict column_sums) {
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    memset(quarter_sums, 0, (size_t)blocks_wide * (size_t)blocks_high * 4 * sizeof *quarter_sums);
    int x_start = max_int(0, -dx), x_end = min_int(width, width - dx);
    int y_start = max_int(0, -dy), y_end = min_int(height, height - dy);
    for (int y = y_start; y < y_end; y++) {
        const uint8_t *restrict row = frame + (size_t)(y + dy) * stride + dx;  // row[x]: reference pixel x's source
        row_half half = row_half_of(quarter_sums, y, height, side, blocks_wide);
        if (half.opens || y == y_start) {
            for (int x = x_start; x < x_end; x++) column_sums[x] = row[x];
        } else {
            for (int x = x_start; x < x_end; x++) column_sums[x] += row[x];
        }
        if (half.closes || y + 1 == y_end) add_columns_to_quarters(column_sums, x_start, x_end, width, side, half.sums);
    }
}

int lector_stack_unexplained_blocks(const uint8_t *frame, size_t stride, const uint32_t *quarter_sums,
                                    uint32_t *frame_quarter_sums, uint32_t *column_sums, uint32_t *window, int width,
                                    int height, int dx, int dy, int side, int radius, int level, int enough) {
    if (width <= 0 || height <= 0 || side <= 0) return 0;
    int blocks_wide = (width + side - 1) / side, blocks_high = (height + side - 1) / side;
    int unexplained = 0;
    // At the shift itself, from the frame's quarter sums in one pass: a steady camera's
    // blocks all match there, and no neighbourhood is searched.
    shifted_quarter_sums(frame, stride, width, height, dx, dy, side, frame_quarter_sums, column_sums);
    for (int by = 0; by < blocks_high && unexplained < enough; by++) {
        int y0 = by * side, rows = min_int(side, height - y0);
        for (int bx = 0; bx < blocks_wide && unexplained < enough; bx++) {
            int x0 = bx * side, columns = min_int(side, width - x0);
            // A block some of whose windows leave the frame is not tested: at the frame's
            // edge, content comes into view and leaves it as the camera turns.
            if (x0 + dx - radius < 0 || y0 + dy - radius < 0 || x0 + dx + radius + columns > width
                || y0 + dy + radius + rows > height)
                continue;
            size_t index = ((size_t)by * (size_t)blocks_wide + (size_t)bx) * 4;
            if (quarters_match(frame_quarter_sums + index, quarter_sums + index, columns, rows, level)) continue;
            if (!block_matches_nearby(frame, stride, quarter_sums + index, x0, y0, columns, rows, dx, dy, radius, level, window))
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

void lector_pixel_change(const uint8_t *restrict before, const uint8_t *restrict after, int width, int height, int side,
                         int64_t *restrict block_sums, uint64_t *restrict absolute_sum, double *restrict largest_block_mean) {
    *absolute_sum = 0;
    *largest_block_mean = 0;
    if (width <= 0 || height <= 0 || side <= 0) return;
    int blocks_wide = (width + side - 1) / side;
    uint64_t total = 0;
    double largest = 0;
    for (int y0 = 0; y0 < height; y0 += side) {
        int rows = min_int(side, height - y0);
        memset(block_sums, 0, (size_t)blocks_wide * sizeof *block_sums);
        for (int y = y0; y < y0 + rows; y++) {
            const uint8_t *restrict old_row = before + (size_t)y * (size_t)width;
            const uint8_t *restrict new_row = after + (size_t)y * (size_t)width;
            for (int bx = 0; bx < blocks_wide; bx++) {
                int x_end = min_int((bx + 1) * side, width);
                int64_t sum = 0;
                uint32_t absolute = 0;
                for (int x = bx * side; x < x_end; x++) {
                    int difference = (int)new_row[x] - (int)old_row[x];
                    sum += difference;
                    absolute += (uint32_t)(difference < 0 ? -difference : difference);
                }
                block_sums[bx] += sum;
                total += absolute;
            }
        }
        for (int bx = 0; bx < blocks_wide; bx++) {
            int columns = min_int(side, width - bx * side);
            int64_t sum = block_sums[bx] < 0 ? -block_sums[bx] : block_sums[bx];
            double mean = (double)sum / (double)(rows * columns);
            if (mean > largest) largest = mean;
        }
    }
    *absolute_sum = total;
    *largest_block_mean = largest;
}
