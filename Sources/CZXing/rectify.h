// A tilted code's outline and the code warped square again (issue 48): ZXing 1.4 misses
// Aztec, Data Matrix and PDF417 symbols under a strong perspective that it reads once
// straightened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lector {

/// A point of an image, in pixels.
struct Point { float x, y; };

/// A quadrilateral: top-left, top-right, bottom-right, bottom-left.
struct Quad { Point corner[4]; };

/// A blob's outline: from the sides of its convex hull, and from the extremes of its
/// dark pixels along the diagonals of its box (the two differ when a corner module is
/// light, or the hull's sides are ragged); and the smaller side of the blob's box, in
/// pixels.
struct Outline { Quad hull, extremes; int smallerSide = 0; };

/// How blobs of light-dark cells (4 pixels a side) are joined and kept.
struct BlobRule {
    /// Cells this far apart (in cells, across and down) are joined: 2 bridges a gap of
    /// one cell; 4 joins a PDF417's start and stop patterns to its rows.
    int reach = 2;
    /// Blobs whose box is fewer cells a side are left out.
    int smallest = 8;
    /// Whether a blob's fill counts the cells between its first and last cell of each
    /// row of cells (a code of large modules: uniform cells inside its wide bars are not
    /// light-dark) rather than its cells alone.
    bool spans = false;
};

/// The outlines of the dense blobs of light-dark cells (a code's modules) in the part of
/// the image from `left`, `top` of `width` x `height` pixels, the largest first, at most
/// `limit`. Blobs under `rule.smallest` cells a side, or filling less than half their
/// box, are left out.
std::vector<Outline> codeOutlines(const uint8_t *luma, int stride, int left, int top, int width, int height, size_t limit,
                                  const BlobRule &rule = {});

/// The image inside `quad` (frame coordinates) warped to an upright rectangle with a
/// margin of a tenth of its side around it (bilinear), its longer side enlarged to
/// `side` pixels when shorter, the whole at most `limit` pixels a side: its pixels,
/// size, margin, and the map from its pixels back to the frame's.
struct Straightened {
    std::vector<uint8_t> pixels;
    int width = 0, height = 0, margin = 0;
    double toFrame[9] = {};  // homography, row-major: rectangle -> frame
    Point frame(float x, float y) const;
};

Straightened straightened(const uint8_t *luma, int frameWidth, int frameHeight, int stride, const Quad &quad, int side,
                         int limit);

/// The longer side of `quad` over its shorter (1 for a square).
float aspect(const Quad &quad);

/// Whether two adjacent sides of the straightened code are solid dark lines, as a Data
/// Matrix's finder (an L) is: checked before a rectangular blob (a line of text or a
/// rectangular Data Matrix) is searched.
bool hasFinderL(const Straightened &image);

}  // namespace lector
