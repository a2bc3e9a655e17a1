// See rectify.h.
#include "rectify.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace lector {

namespace {

/// Otsu's threshold of the pixels of a part of the image.
int otsu(const uint8_t *luma, int stride, int left, int top, int width, int height) {
    long histogram[256] = {};
    for (int y = 0; y < height; ++y) {
        const uint8_t *line = luma + static_cast<size_t>(top + y) * stride + left;
        for (int x = 0; x < width; ++x) ++histogram[line[x]];
    }
    double total = static_cast<double>(width) * height, sum = 0;
    for (int i = 0; i < 256; ++i) sum += i * static_cast<double>(histogram[i]);
    double below = 0, belowSum = 0, best = -1;
    int threshold = 128;
    for (int i = 0; i < 256; ++i) {
        below += histogram[i];
        belowSum += i * static_cast<double>(histogram[i]);
        if (below == 0 || below == total) continue;
        double meanBelow = belowSum / below, meanAbove = (sum - belowSum) / (total - below);
        double between = below * (total - below) * (meanBelow - meanAbove) * (meanBelow - meanAbove);
        if (between > best) { best = between; threshold = i; }
    }
    return threshold;
}

/// Solves the 8x8 system `a` x = `b` (Gaussian elimination, partial pivoting).
bool solve(double a[8][9], double x[8]) {
    for (int col = 0; col < 8; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 8; ++r)
            if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
        if (std::fabs(a[pivot][col]) < 1e-12) return false;
        std::swap(a[col], a[pivot]);
        for (int r = 0; r < 8; ++r) {
            if (r == col) continue;
            double factor = a[r][col] / a[col][col];
            for (int c = col; c < 9; ++c) a[r][c] -= factor * a[col][c];
        }
    }
    for (int i = 0; i < 8; ++i) x[i] = a[i][8] / a[i][i];
    return true;
}

/// The homography taking `from[i]` to `to[i]` (row-major, last entry 1).
bool homography(const Point from[4], const Point to[4], double h[9]) {
    double a[8][9];
    for (int i = 0; i < 4; ++i) {
        double x = from[i].x, y = from[i].y, u = to[i].x, v = to[i].y;
        double first[9] = {x, y, 1, 0, 0, 0, -u * x, -u * y, u};
        double second[9] = {0, 0, 0, x, y, 1, -v * x, -v * y, v};
        std::copy(first, first + 9, a[2 * i]);
        std::copy(second, second + 9, a[2 * i + 1]);
    }
    double x[8];
    if (!solve(a, x)) return false;
    std::copy(x, x + 8, h);
    h[8] = 1;
    return true;
}

float distance(Point a, Point b) { return std::hypot(a.x - b.x, a.y - b.y); }

}  // namespace

Point Straightened::frame(float x, float y) const {
    const double *h = toFrame;
    double w = h[6] * x + h[7] * y + h[8];
    return {static_cast<float>((h[0] * x + h[1] * y + h[2]) / w), static_cast<float>((h[3] * x + h[4] * y + h[5]) / w)};
}

namespace {

/// The convex hull of `points`, clockwise on screen (y down), from the top left.
std::vector<Point> hull(std::vector<Point> points) {
    std::sort(points.begin(), points.end(), [](Point a, Point b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    if (points.size() < 3) return points;
    auto cross = [](Point o, Point a, Point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); };
    std::vector<Point> chain(2 * points.size());
    size_t k = 0;
    for (size_t i = 0; i < points.size(); ++i) {  // the upper chain on screen, left to right
        while (k >= 2 && cross(chain[k - 2], chain[k - 1], points[i]) <= 0) --k;
        chain[k++] = points[i];
    }
    for (size_t i = points.size() - 1, t = k + 1; i-- > 0;) {  // the lower chain, right to left
        while (k >= t && cross(chain[k - 2], chain[k - 1], points[i]) <= 0) --k;
        chain[k++] = points[i];
    }
    chain.resize(k - 1);
    return chain;
}

/// Where the line through `a`, `b` meets the line through `c`, `d`; false when parallel.
bool meet(Point a, Point b, Point c, Point d, Point &at) {
    float r = (b.x - a.x) * (d.y - c.y) - (b.y - a.y) * (d.x - c.x);
    if (std::fabs(r) < 1e-6f) return false;
    float t = ((c.x - a.x) * (d.y - c.y) - (c.y - a.y) * (d.x - c.x)) / r;
    at = {a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
    return true;
}

/// `outline` (from the blob's extreme dark pixels: a corner cut off when the code's
/// corner module is light) with its sides moved onto the longest edges of the blob's
/// convex hull running along them, and its corners where those sides meet.
Quad refined(const Quad &outline, const std::vector<Point> &convex) {
    if (convex.size() < 4) return outline;
    const Point *c = outline.corner;
    Point side[4][2];
    float longest[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4; ++k) { side[k][0] = c[k]; side[k][1] = c[(k + 1) % 4]; }
    for (size_t i = 0; i < convex.size(); ++i) {
        Point a = convex[i], b = convex[(i + 1) % convex.size()];
        float length = distance(a, b);
        for (int k = 0; k < 4; ++k) {
            Point d{c[(k + 1) % 4].x - c[k].x, c[(k + 1) % 4].y - c[k].y};
            float along = ((b.x - a.x) * d.x + (b.y - a.y) * d.y) / (length * std::hypot(d.x, d.y) + 1e-6f);
            if (along > 0.97f && length > longest[k]) { longest[k] = length; side[k][0] = a; side[k][1] = b; }
        }
    }
    Quad result;
    for (int k = 0; k < 4; ++k) {
        const auto &before = side[(k + 3) % 4], &after = side[k];
        if (!meet(before[0], before[1], after[0], after[1], result.corner[k]) ||
            distance(result.corner[k], c[k]) > 0.25f * distance(c[2], c[0]))
            return outline;
    }
    return result;
}

/// The outlines of the cells `members` (of `columns` a row, `cell` pixels a side, from
/// `left`, `top`): the extremes of their dark pixels along the diagonals of their box,
/// in coordinates where the box is a unit square (so that a long, flat code's corners
/// are found too), and that quad `refined` by the convex hull of their dark pixels.
Outline outlineOf(const uint8_t *luma, int stride, int left, int top, int cell, int columns, int threshold,
                  const std::vector<int> &members, const int box[4]) {
    Quad outline{};
    const float boxWidth = (box[2] - box[0] + 1) * cell, boxHeight = (box[3] - box[1] + 1) * cell;
    float score[4] = {1e9f, -1e9f, -1e9f, -1e9f};
    // Each pixel row's first and last dark pixel: the hull's points.
    std::vector<std::pair<int, int>> ends(static_cast<size_t>(box[3] - box[1] + 1) * cell, {1 << 30, -1});
    for (int at : members) {
        int cx = at % columns, cy = at / columns;
        for (int y = 0; y < cell; ++y)
            for (int x = 0; x < cell; ++x) {
                int px = cx * cell + x, py = cy * cell + y;
                if (luma[static_cast<size_t>(top + py) * stride + left + px] >= threshold) continue;
                auto &span = ends[py - box[1] * cell];
                span.first = std::min(span.first, px);
                span.second = std::max(span.second, px);
                float u = (px - box[0] * cell) / boxWidth, v = (py - box[1] * cell) / boxHeight;
                Point p{static_cast<float>(left + px) + 0.5f, static_cast<float>(top + py) + 0.5f};
                if (u + v < score[0]) { score[0] = u + v; outline.corner[0] = p; }
                if (u - v > score[1]) { score[1] = u - v; outline.corner[1] = p; }
                if (u + v > score[2]) { score[2] = u + v; outline.corner[2] = p; }
                if (v - u > score[3]) { score[3] = v - u; outline.corner[3] = p; }
            }
    }
    std::vector<Point> points;
    for (size_t row = 0; row < ends.size(); ++row) {
        if (ends[row].second < 0) continue;
        float y = static_cast<float>(top + box[1] * cell + static_cast<int>(row)) + 0.5f;
        points.push_back({static_cast<float>(left + ends[row].first), y});
        points.push_back({static_cast<float>(left + ends[row].second) + 1, y});
    }
    return {refined(outline, hull(points)), outline};
}

/// The cells from the first to the last of `members` (cells of `columns` a row) in each
/// of the `rows` rows of cells from `firstRow`: a blob with its holes filled along its rows.
size_t spanned(const std::vector<int> &members, int columns, int firstRow, int rows) {
    std::vector<std::pair<int, int>> spans(static_cast<size_t>(rows), {columns, -1});
    for (int at : members) {
        auto &span = spans[at / columns - firstRow];
        span.first = std::min(span.first, at % columns);
        span.second = std::max(span.second, at % columns);
    }
    size_t count = 0;
    for (const auto &span : spans)
        if (span.second >= 0) count += span.second - span.first + 1;
    return count;
}

}  // namespace

std::vector<Outline> codeOutlines(const uint8_t *luma, int stride, int left, int top, int width, int height, size_t limit,
                                  const BlobRule &rule) {
    const int cell = 4, columns = width / cell, rows = height / cell, smallest = rule.smallest, reach = rule.reach;
    std::vector<Outline> outlines;
    if (columns < smallest || rows < smallest) return outlines;
    const int threshold = otsu(luma, stride, left, top, width, height);
    // Cells of 4x4 pixels holding dark and light pixels both (2 of 16 at least): a code's
    // modules, text, edges; not the inside of a dark desk or a white label.
    std::vector<uint8_t> mixed(static_cast<size_t>(columns) * rows, 0);
    for (int row = 0; row < rows; ++row)
        for (int column = 0; column < columns; ++column) {
            int dark = 0;
            for (int y = 0; y < cell; ++y) {
                const uint8_t *line = luma + static_cast<size_t>(top + row * cell + y) * stride + left + column * cell;
                for (int x = 0; x < cell; ++x) dark += line[x] < threshold;
            }
            mixed[static_cast<size_t>(row) * columns + column] = dark >= 2 && dark <= cell * cell - 2;
        }
    // Components (8-neighbours, a gap of one cell bridged) that fill half their box at
    // least (a code does; an edge, a line of text's outline does not), largest first.
    std::vector<int> label(mixed.size(), -1), stack;
    std::vector<std::pair<std::vector<int>, std::array<int, 4>>> blobs;
    int components = 0;
    for (int start = 0; start < static_cast<int>(mixed.size()); ++start) {
        if (!mixed[start] || label[start] >= 0) continue;
        std::vector<int> members;
        std::array<int, 4> box{columns, rows, -1, -1};
        stack.assign(1, start);
        label[start] = components;
        while (!stack.empty()) {
            int at = stack.back();
            stack.pop_back();
            members.push_back(at);
            int cx = at % columns, cy = at / columns;
            box = {std::min(box[0], cx), std::min(box[1], cy), std::max(box[2], cx), std::max(box[3], cy)};
            for (int dy = -reach; dy <= reach; ++dy)
                for (int dx = -reach; dx <= reach; ++dx) {
                    int nx = cx + dx, ny = cy + dy;
                    if (nx < 0 || ny < 0 || nx >= columns || ny >= rows) continue;
                    int near = ny * columns + nx;
                    if (mixed[near] && label[near] < 0) { label[near] = components; stack.push_back(near); }
                }
        }
        ++components;
        int boxColumns = box[2] - box[0] + 1, boxRows = box[3] - box[1] + 1;
        if (boxColumns < smallest || boxRows < smallest ||
            2 * (rule.spans ? spanned(members, columns, box[1], boxRows) : members.size()) <
                static_cast<size_t>(boxColumns * boxRows))
            continue;
        blobs.emplace_back(std::move(members), box);
    }
    std::sort(blobs.begin(), blobs.end(), [](const auto &a, const auto &b) { return a.first.size() > b.first.size(); });
    for (const auto &[members, box] : blobs) {
        if (outlines.size() >= limit) break;
        outlines.push_back(outlineOf(luma, stride, left, top, cell, columns, threshold, members, box.data()));
        outlines.back().smallerSide = std::min(box[2] - box[0], box[3] - box[1]) * cell + cell;
    }
    return outlines;
}

float aspect(const Quad &q) {
    float across = std::max(distance(q.corner[0], q.corner[1]), distance(q.corner[3], q.corner[2]));
    float down = std::max(distance(q.corner[0], q.corner[3]), distance(q.corner[1], q.corner[2]));
    return across > 0 && down > 0 ? std::max(across, down) / std::min(across, down) : 1e9f;
}

Straightened straightened(const uint8_t *luma, int frameWidth, int frameHeight, int stride, const Quad &quad, int side,
                         int limit) {
    Straightened out;
    if (frameWidth < 2 || frameHeight < 2) return out;
    const Point *c = quad.corner;
    float codeWidth = std::max(distance(c[0], c[1]), distance(c[3], c[2]));
    float codeHeight = std::max(distance(c[0], c[3]), distance(c[1], c[2]));
    float longer = std::max(codeWidth, codeHeight);
    if (!(longer >= 8) || !std::isfinite(longer)) return out;  // a degenerate outline (NaN fails too)
    float scale = std::min(std::max(1.0f, side / longer), static_cast<float>(limit) / (1.2f * longer));
    codeWidth *= scale;
    codeHeight *= scale;
    float margin = 0.1f * std::max(codeWidth, codeHeight);
    out.margin = static_cast<int>(margin);
    out.width = static_cast<int>(codeWidth + 2 * margin);
    out.height = static_cast<int>(codeHeight + 2 * margin);
    Point rectangle[4] = {{margin, margin}, {margin + codeWidth, margin}, {margin + codeWidth, margin + codeHeight},
                          {margin, margin + codeHeight}};
    if (out.width < 16 || out.height < 16 || !homography(rectangle, c, out.toFrame)) {
        out.width = out.height = 0;
        return out;
    }
    out.pixels.resize(static_cast<size_t>(out.width) * out.height);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) {
            Point p = out.frame(x + 0.5f, y + 0.5f);
            if (!std::isfinite(p.x) || !std::isfinite(p.y)) {  // beyond the quad's horizon: nothing to sample
                out.pixels[static_cast<size_t>(y) * out.width + x] = 255;
                continue;
            }
            float fx = std::min(std::max(p.x - 0.5f, 0.0f), frameWidth - 1.001f);
            float fy = std::min(std::max(p.y - 0.5f, 0.0f), frameHeight - 1.001f);
            int ix = static_cast<int>(fx), iy = static_cast<int>(fy);
            float ax = fx - ix, ay = fy - iy;
            const uint8_t *p0 = luma + static_cast<size_t>(iy) * stride + ix, *p1 = p0 + stride;
            float value = (1 - ay) * ((1 - ax) * p0[0] + ax * p0[1]) + ay * ((1 - ax) * p1[0] + ax * p1[1]);
            out.pixels[static_cast<size_t>(y) * out.width + x] = static_cast<uint8_t>(value + 0.5f);
        }
    return out;
}

bool hasFinderL(const Straightened &image) {
    const int m = image.margin, w = image.width - 2 * m, h = image.height - 2 * m;
    if (w < 8 || h < 8) return false;
    const int threshold = otsu(image.pixels.data(), image.width, m, m, w, h);
    // Each side's darkest line parallel to it, from just outside the outline to a sixth
    // of the shorter side inside (a corner of the outline a little off), over the middle
    // four fifths of its length; dark: 4 of 5 pixels at least.
    const int outside = std::max(1, m / 2), inside = std::min(w, h) / 6;
    auto dark = [&](int side) {
        float best = 0;
        for (int depth = -outside; depth <= inside; ++depth) {
            int count = 0, length = 0;
            bool across = side % 2 == 0;  // top and bottom: along x
            int extent = across ? w : h;
            for (int t = extent / 10; t < extent - extent / 10; ++t, ++length) {
                int x = across ? m + t : (side == 1 ? m + w - 1 - depth : m + depth);
                int y = across ? (side == 0 ? m + depth : m + h - 1 - depth) : m + t;
                count += image.pixels[static_cast<size_t>(y) * image.width + x] < threshold;
            }
            best = std::max(best, length ? static_cast<float>(count) / length : 0.0f);
        }
        return best >= 0.8f;
    };
    bool solid[4] = {dark(0), dark(1), dark(2), dark(3)};  // top, right, bottom, left
    for (int k = 0; k < 4; ++k)
        if (solid[k] && solid[(k + 1) % 4]) return true;
    return false;
}

}  // namespace lector
