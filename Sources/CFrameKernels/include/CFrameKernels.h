#ifndef LECTOR_CFRAMEKERNELS_H
#define LECTOR_CFRAMEKERNELS_H

// The capture side's per-pixel loops (LectorLive's FrameStack, LectorImaging's LumaProfiles and luma
// of packed YUV frames), in C so that they run compiled with optimization (and
// auto-vectorised) in debug builds too: Swift's loops, and above all its SIMD types, are
// dozens of times slower unoptimized. Plain functions on caller-owned memory: no
// allocation, no state, no libc beyond memset. Integer arithmetic is the Swift code's,
// bit for bit; float arithmetic runs in the Swift code's order (and Package.swift turns
// off FP contraction, so no fused multiply-add changes a result).

#include <stddef.h>
#include <stdint.h>

/// Every `step`-th byte of each row of `source` (rows `stride` bytes apart), `width` per
/// row, into `out` (rows `width` bytes apart): the Y samples of YUYV (step 2).
void lector_pick_samples(const uint8_t *source, size_t stride, int step, int width, int height, uint8_t *out);

/// `values` (`count` floats) minus their running mean over ±`radius`, smoothed with a
/// [1 2 1] kernel (edges repeated), into `out`; `scratch` holds count + 1 floats (the
/// prefix sums) and `flat` count floats.
void lector_detrend(const float *values, int count, int radius, float *scratch, float *flat, float *out);

/// Sums of a luma plane of `width` × `height` (rows `stride` bytes apart): per column
/// into `column_sums` (`width` entries), per row into `row_sums` (`height` entries).
/// Both are overwritten.
void lector_luma_profile_sums(const uint8_t *image, size_t stride, int width, int height,
                              uint32_t *column_sums, uint32_t *row_sums);

/// For each offset d in -`radius`…`radius`, the mean of |reference[i] − moved[i + d]|
/// over the indices where both exist (`count` entries each), into `costs[d + radius]`.
/// Needs count > 2 × radius.
void lector_profile_offset_costs(const float *reference, const float *moved, int count, int radius,
                                 float *costs);

/// Folds a luma frame into an 8.8 fixed-point running mean of `width` × `height`.
///
/// Reference pixel (x, y) takes the frame's pixel (x + dx, y + dy) (rows `stride` bytes
/// apart); the mean moves towards it by `weight`/32768 of the difference (weight ≤ 32768).
/// Pixels whose source lies outside the frame keep their mean. Per block of side `side`
/// (`blocks_wide` = ⌈width / side⌉ per row of blocks; edge blocks are smaller),
/// `quarter_sums` gets 4 sums of the new mean's integer parts (mean >> 8), overwritten:
/// entry 4 × block + 2 × row half + column half, a block split at half its columns and
/// half its rows (a block one pixel wide or high is one half that way; the other's sum
/// is 0). `column_sums`: `width` entries of scratch.
void lector_stack_fold(uint16_t *mean, const uint8_t *frame, size_t stride, int width, int height,
                       int dx, int dy, int32_t weight, int side, uint32_t *quarter_sums, uint32_t *column_sums);

/// The blocks' mean gray levels from their `quarter_sums` (as `lector_stack_fold` fills
/// them) into `means`.
void lector_stack_block_means(const uint32_t *quarter_sums, int width, int height, int side, uint8_t *means);

/// The blocks of the mean (side `side`; `quarter_sums` the sums of its integer levels,
/// as `lector_stack_fold` fills them) that no window of the frame (rows `stride` bytes
/// apart) explains: the block moved by (dx + ex, dy + ey), |ex| and |ey| at most
/// `radius`, each of whose quarters has a mean within `level` gray levels of the block's
/// quarter. A block some of whose windows leave the frame counts as explained (content
/// enters and leaves view at the frame's edge as the camera turns). Counting stops at
/// `enough`. Scratch: `frame_quarter_sums` (as many entries as `quarter_sums`) gets the
/// frame's quarter sums at (dx, dy), summed by columns in `column_sums` (`width`
/// entries); a block that does not match there is searched on the integral image of its
/// neighbourhood, built in `window`: (`side` + 2 × `radius` + 1)² entries.
int lector_stack_unexplained_blocks(const uint8_t *frame, size_t stride, const uint32_t *quarter_sums,
                                    uint32_t *frame_quarter_sums, uint32_t *column_sums, uint32_t *window, int width,
                                    int height, int dx, int dy, int side, int radius, int level, int enough);

/// Writes the mean, rounded to 8 bits, in the coordinates of a frame shifted by (dx, dy):
/// out pixel (x, y) is the mean's (x − dx, y − dy), the nearest mean pixel where that is
/// outside. Rows of `out` are `out_stride` bytes apart.
void lector_stack_read_out(const uint16_t *mean, int width, int height, int dx, int dy,
                           uint8_t *out, size_t out_stride);

/// How far `after` is from `before` (both `width` × `height`, rows packed): the sum of the
/// pixels' absolute differences into `absolute_sum`, and into `largest_block_mean` the
/// largest absolute mean difference of one block of side `side` (⌈width / side⌉ blocks
/// a row of blocks; edge blocks are smaller). `block_sums`: ⌈width / side⌉ entries of
/// scratch.
void lector_pixel_change(const uint8_t *before, const uint8_t *after, int width, int height, int side,
                         int64_t *block_sums, uint64_t *absolute_sum, double *largest_block_mean);

#endif
