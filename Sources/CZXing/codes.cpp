// ZXing-C++ behind lector_codes.h, built against 1.4 (Debian 12) and 2.x (Debian 13).
#define ZX_USE_UTF8 1
#include "lector_codes.h"
#include "rectify.h"

#include <ZXing/ReadBarcode.h>
#if __has_include(<ZXing/Version.h>)
#include <ZXing/Version.h>  // 2.x: ZXVersion.h is deprecated there (and says so while compiling)
#else
#include <ZXing/ZXVersion.h>  // 1.4
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace {

using ZXing::BarcodeFormat;

const std::pair<uint32_t, BarcodeFormat> formatTable[] = {
    {LECTOR_CODE_QR, BarcodeFormat::QRCode},         {LECTOR_CODE_MICRO_QR, BarcodeFormat::MicroQRCode},
    {LECTOR_CODE_DATA_MATRIX, BarcodeFormat::DataMatrix}, {LECTOR_CODE_AZTEC, BarcodeFormat::Aztec},
    {LECTOR_CODE_PDF417, BarcodeFormat::PDF417},     {LECTOR_CODE_EAN13, BarcodeFormat::EAN13},
    {LECTOR_CODE_EAN8, BarcodeFormat::EAN8},         {LECTOR_CODE_UPCA, BarcodeFormat::UPCA},
    {LECTOR_CODE_UPCE, BarcodeFormat::UPCE},         {LECTOR_CODE_CODE128, BarcodeFormat::Code128},
    {LECTOR_CODE_CODE39, BarcodeFormat::Code39},     {LECTOR_CODE_CODE93, BarcodeFormat::Code93},
    {LECTOR_CODE_ITF, BarcodeFormat::ITF},           {LECTOR_CODE_CODABAR, BarcodeFormat::Codabar},
};

ZXing::BarcodeFormats libraryFormats(uint32_t formats) {
    ZXing::BarcodeFormats result;
    for (const auto &entry : formatTable)
        if (formats & entry.first) result |= entry.second;
    return result;
}

uint32_t lectorFormat(BarcodeFormat format) {
    for (const auto &entry : formatTable)
        if (entry.second == format) return entry.first;
    return 0;
}

#if ZXING_VERSION_MAJOR >= 2
using Options = ZXing::ReaderOptions;
#else
using Options = ZXing::DecodeHints;
#endif

/// A code's text and bytes as 1.4 gives them. 2.x always keeps Codabar's start and stop
/// characters (A-D) in both (1.4 drops them unless asked): dropped here, so that a
/// CODE says the same with either library.
template <typename Found>
std::pair<std::string, std::vector<uint8_t>> content(const Found &result) {
    std::string text = result.text();
    std::vector<uint8_t> bytes(result.bytes().begin(), result.bytes().end());
#if ZXING_VERSION_MAJOR >= 2
    if (result.format() == BarcodeFormat::Codabar && text.size() >= 2 && bytes.size() >= 2) {
        text = text.substr(1, text.size() - 2);
        bytes = std::vector<uint8_t>(bytes.begin() + 1, bytes.end() - 1);
    }
#endif
    return {text, bytes};
}

char *copyText(const std::string &text) {
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy) std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

/// Formats whose 1.4 detectors search from the image's centre outward: found in a
/// camera frame only when the code is near the centre of what is searched, so they are
/// also searched in crops around the frame's busy regions.
const uint32_t centredFormats = LECTOR_CODE_AZTEC | LECTOR_CODE_DATA_MATRIX | LECTOR_CODE_MICRO_QR;

struct Region { int x, y, width, height, cells; };

/// Regions of many light-dark edges both across and down (codes, and text), from 8x8
/// cells of the image, joined when they touch; at most `limit`, the largest first.
std::vector<Region> busyRegions(const uint8_t *luma, int width, int height, int stride, size_t limit) {
    const int cell = 8, threshold = 28, minimum = 4;
    const int columns = width / cell, rows = height / cell;
    std::vector<uint8_t> busy(static_cast<size_t>(columns) * rows, 0);
    for (int row = 0; row < rows; ++row) {
        for (int column = 0; column < columns; ++column) {
            int across = 0, down = 0;
            for (int y = row * cell; y < row * cell + cell; ++y) {
                const uint8_t *line = luma + static_cast<size_t>(y) * stride + column * cell;
                const uint8_t *next = line + stride * (y + 1 < height ? 1 : 0);
                for (int x = 0; x < cell - 1; ++x) {
                    across += std::abs(line[x + 1] - line[x]) > threshold;
                    down += std::abs(next[x] - line[x]) > threshold;
                }
            }
            busy[static_cast<size_t>(row) * columns + column] = across >= minimum && down >= minimum;
        }
    }
    // Components of busy cells (8-neighbours, a gap of one cell bridged).
    std::vector<int> label(busy.size(), -1);
    std::vector<Region> regions;
    std::vector<int> stack;
    for (int start = 0; start < static_cast<int>(busy.size()); ++start) {
        if (!busy[start] || label[start] >= 0) continue;
        int left = columns, top = rows, right = -1, bottom = -1, count = 0;
        stack.assign(1, start);
        label[start] = static_cast<int>(regions.size());
        while (!stack.empty()) {
            int at = stack.back();
            stack.pop_back();
            int cx = at % columns, cy = at / columns;
            left = std::min(left, cx); right = std::max(right, cx);
            top = std::min(top, cy); bottom = std::max(bottom, cy);
            ++count;
            for (int dy = -2; dy <= 2; ++dy)
                for (int dx = -2; dx <= 2; ++dx) {
                    int nx = cx + dx, ny = cy + dy;
                    if (nx < 0 || ny < 0 || nx >= columns || ny >= rows) continue;
                    int near = ny * columns + nx;
                    if (busy[near] && label[near] < 0) {
                        label[near] = static_cast<int>(regions.size());
                        stack.push_back(near);
                    }
                }
        }
        regions.push_back({left * cell, top * cell, (right - left + 1) * cell, (bottom - top + 1) * cell, count});
    }
    std::vector<Region> kept;
    for (const auto &region : regions) {
        int side = std::max(region.width, region.height), other = std::min(region.width, region.height);
        if (region.cells < 4 || side > std::max(width, height) * 3 / 4 || side > 6 * other) continue;
        kept.push_back(region);
    }
    std::sort(kept.begin(), kept.end(), [](const Region &a, const Region &b) { return a.cells > b.cells; });
    if (kept.size() > limit) kept.resize(limit);
    return kept;
}

/// Copies `result` into `out` (corners through `map`, image to frame) unless a code of the same format and content is there already.
/// (`Barcode` is 2.x's name for 1.4's `Result`: the type is left to the compiler.)
template <typename Found, typename Map>
void keepMapped(const Found &result, std::vector<lector_code> &out, Map map) {
    if (!result.isValid()) return;
    uint32_t format = lectorFormat(result.format());
    if (format == 0) return;
    const auto [text, bytes] = content(result);
    for (const auto &code : out)
        if (code.format == format && code.byte_count == bytes.size() && std::memcmp(code.bytes, bytes.data(), bytes.size()) == 0)
            return;
    lector_code code{};
    code.format = format;
    code.text = copyText(text);
    code.byte_count = bytes.size();
    code.bytes = static_cast<uint8_t *>(std::malloc(bytes.size() ? bytes.size() : 1));
    if (!code.text || !code.bytes) {
        std::free(code.text);
        std::free(code.bytes);
        throw std::bad_alloc();
    }
    if (!bytes.empty()) std::memcpy(code.bytes, bytes.data(), bytes.size());
    const auto &position = result.position();
    for (int i = 0; i < 4; ++i) {
        const auto [x, y] = map(position[i].x, position[i].y);
        code.corners[2 * i] = x;
        code.corners[2 * i + 1] = y;
    }
    out.push_back(code);
}

/// `keepMapped` with the corners divided by `scale`, then moved by `dx`, `dy`.
template <typename Found>
void keep(const Found &result, int dx, int dy, std::vector<lector_code> &out, int scale = 1) {
    keepMapped(result, out, [=](int x, int y) { return std::pair<int, int>{x / scale + dx, y / scale + dy}; });
}

Options options(uint32_t formats) {
    Options options;
    options.setFormats(libraryFormats(formats));
    options.setTryHarder(true);
    options.setTryRotate(true);
    // One layer only: 1.4's duplicate check between the pyramid's layers asserts
    // (aborts the process) on a linear code found in two of them.
    options.setTryDownscale(false);
#if ZXING_VERSION_MAJOR >= 2
    // 2.x's other defaults, set back to 1.4's: no inverted (light on dark) search, the
    // text as decoded (not the "human readable interpretation", e.g. GS1's "(01)"), and
    // Code 39 as its plain characters (not full ASCII's "+A" for "a").
    options.setTryInvert(false);
    options.setTextMode(ZXing::TextMode::Plain);
    options.setTryCode39ExtendedMode(false);
#endif
    return options;
}

/// `region` widened by a margin of a `share` of its larger side (16 pixels at least),
/// within the image.
Region widened(const Region &region, int width, int height, int share = 3) {
    int margin = std::max(16, std::max(region.width, region.height) / share);
    int x = std::max(0, region.x - margin), y = std::max(0, region.y - margin);
    return {x, y, std::min(width, region.x + region.width + margin) - x,
            std::min(height, region.y + region.height + margin) - y, region.cells};
}

/// Bicubic weights (Keys, a = -0.5, in 128ths) of the four source pixels around a point
/// a quarter of a pixel past the second: what doubling an image samples.
const int quarter[4] = {-9, 111, 29, -3};

/// The four source indices (clamped to 0..<n) and weights of output `index` of a line
/// doubled: it lies at source position index / 2 - 0.25.
void doubledTaps(int index, int n, int taps[4], int weights[4]) {
    int k = index / 2, first = (index & 1) ? k - 1 : k - 2;
    for (int j = 0; j < 4; ++j) {
        taps[j] = std::min(n - 1, std::max(0, first + j));
        weights[j] = (index & 1) ? quarter[j] : quarter[3 - j];
    }
}

uint8_t clamped(int sum) { return static_cast<uint8_t>(std::min(255, std::max(0, (sum + 64) >> 7))); }

/// The part `crop` of the image, twice as large (bicubic, across then down, each pass
/// rounded to 8 bits as image editors do): ZXing 1.4's Aztec and Micro QR detectors
/// miss symbols of 3-5 pixels a module that they find at twice the size.
std::vector<uint8_t> doubled(const uint8_t *luma, int stride, const Region &crop) {
    const int w = crop.width * 2, h = crop.height * 2;
    int taps[4], weights[4];
    std::vector<uint8_t> across(static_cast<size_t>(w) * crop.height);
    for (int x = 0; x < w; ++x) {
        doubledTaps(x, crop.width, taps, weights);
        for (int y = 0; y < crop.height; ++y) {
            const uint8_t *line = luma + static_cast<size_t>(crop.y + y) * stride + crop.x;
            int sum = 0;
            for (int j = 0; j < 4; ++j) sum += weights[j] * line[taps[j]];
            across[static_cast<size_t>(y) * w + x] = clamped(sum);
        }
    }
    std::vector<uint8_t> out(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y) {
        doubledTaps(y, crop.height, taps, weights);
        uint8_t *row = out.data() + static_cast<size_t>(y) * w;
        const uint8_t *lines[4];
        for (int j = 0; j < 4; ++j) lines[j] = across.data() + static_cast<size_t>(taps[j]) * w;
        for (int x = 0; x < w; ++x)
            row[x] = clamped(weights[0] * lines[0][x] + weights[1] * lines[1][x] + weights[2] * lines[2][x] +
                             weights[3] * lines[3][x]);
    }
    return out;
}

/// The formats of the codes in `out`.
uint32_t foundFormats(const std::vector<lector_code> &out) {
    uint32_t found = 0;
    for (const auto &code : out) found |= code.format;
    return found;
}

/// Formats searched again in busy regions doubled when the frame gave none of them.
const uint32_t smallModuleFormats = LECTOR_CODE_AZTEC | LECTOR_CODE_MICRO_QR;

/// Busy regions no larger than this (widened by an eighth) are doubled for
/// `smallModuleFormats`: codes of up to 6 pixels a module, at a bounded cost.
const int doubledSideLimit = 400;

/// Formats searched again in busy regions (as they are) when the frame gave none: ZXing
/// 1.4 misses some PDF417 symbols in a whole frame that it reads in a crop.
const uint32_t croppedFormats = LECTOR_CODE_PDF417;

/// Busy regions no larger than this (widened by an eighth) are searched for `croppedFormats`.
const int croppedSideLimit = 640;

/// The second pass: the formats of `smallModuleFormats` and `croppedFormats` that the
/// first pass did not find, in the smaller busy regions, doubled or as they are. Never
/// the image pyramid: a crop of a linear code could abort 1.4 as a whole frame does.
void searchAgain(const uint8_t *luma, int width, int height, int stride, uint32_t formats,
                 const std::vector<Region> &regions, std::vector<lector_code> &out) {
    uint32_t missing = formats & ~foundFormats(out);
    uint32_t small = missing & smallModuleFormats, cropped = missing & croppedFormats;
    if (!small && !cropped) return;
    for (const auto &region : regions) {
        Region crop = widened(region, width, height, 8);
        int side = std::max(crop.width, crop.height);
        if (cropped && side <= croppedSideLimit) {
            ZXing::ImageView view(luma + static_cast<size_t>(crop.y) * stride + crop.x, crop.width, crop.height,
                                  ZXing::ImageFormat::Lum, stride);
            for (const auto &result : ZXing::ReadBarcodes(view, options(cropped))) keep(result, crop.x, crop.y, out);
        }
        if (small && side <= doubledSideLimit) {
            auto pixels = doubled(luma, stride, crop);
            ZXing::ImageView view(pixels.data(), crop.width * 2, crop.height * 2, ZXing::ImageFormat::Lum);
            for (const auto &result : ZXing::ReadBarcodes(view, options(small))) keep(result, crop.x, crop.y, out, 2);
        }
    }
}

/// Square formats searched again in a straightened crop, enlarged, when the frame gave
/// none of them: ZXing 1.4's Aztec, Data Matrix and Micro QR detectors miss symbols of
/// 3-4 pixels a module, or under a strong perspective, beside a label's text that they
/// read alone, upright and large.
const uint32_t squareFormats = LECTOR_CODE_AZTEC | LECTOR_CODE_DATA_MATRIX | LECTOR_CODE_MICRO_QR;

/// Long formats searched again in a straightened crop (as large as it is) when the
/// frame gave none of them.
const uint32_t longFormats = LECTOR_CODE_PDF417;

/// A square code's blob is no longer than this over its width (its outline found from
/// the extremes of dark pixels; a line of text is longer), and its box 32 pixels a side
/// at least.
const float squareAspect = 1.6f;
const int squareSmallest = 32;

/// A rectangular Data Matrix (8x18 to 16x48 modules) is at most this long over its
/// width, tilt included; its blob is searched once straightened, its longer side
/// enlarged to `rectangleSide` pixels, when two adjacent sides are solid (its finder).
const float rectangleAspect = 6.0f;
const int rectangleSide = 160;

/// A square code's blob is enlarged to this many pixels a side; straightened crops are
/// at most `straightenedLimit` pixels a side.
const int squareSide = 320, straightenedLimit = 800;

/// Blobs straightened in a busy region, the largest first.
const size_t outlinesARegion = 3;

/// Blobs for the square formats and rectangular Data Matrix: cells one apart joined
/// (a code is not joined to its label's text), boxes of 20 pixels a side and more (a
/// rectangular Data Matrix of 8 rows of 3 pixels, tilted).
const lector::BlobRule squareBlobs{2, 5, false};

/// Blobs for PDF417: cells three apart joined (its start and stop patterns' wide bars
/// to its rows), filled along their rows (modules of 5-6 pixels leave uniform cells).
const lector::BlobRule longBlobs{4, 8, true};

/// Searches the image inside `outline` straightened (`side`, `straightenedLimit`: see
/// lector::straightened) for `wanted`, when `finder` only if it shows a Data Matrix's
/// finder; whether a code was kept.
bool readStraightened(const uint8_t *luma, int width, int height, int stride, const lector::Quad &outline, int side,
                      uint32_t wanted, bool finder, std::vector<lector_code> &out) {
    auto image = lector::straightened(luma, width, height, stride, outline, side, straightenedLimit);
    if (image.pixels.empty() || (finder && !lector::hasFinderL(image))) return false;
    ZXing::ImageView view(image.pixels.data(), image.width, image.height, ZXing::ImageFormat::Lum);
    size_t before = out.size();
    for (const auto &result : ZXing::ReadBarcodes(view, options(wanted)))
        keepMapped(result, out, [&](int x, int y) {
            auto p = image.frame(x, y);  // clamped: a corner off the crop's map stays in the frame
            auto inside = [](float v, int size) {
                return std::isfinite(v) ? static_cast<int>(std::min(std::max(v, 0.0f), float(size - 1))) : 0;
            };
            return std::pair<int, int>{inside(p.x, width), inside(p.y, height)};
        });
    return out.size() > before;
}

/// The third pass: for the formats of `squareFormats` and `longFormats` not found yet,
/// the largest blobs of each busy region (as searched for `croppedFormats`) warped
/// upright and searched: a square blob for the square formats, a rectangular one
/// showing a finder for Data Matrix, and PDF417's blobs (`longBlobs`) for PDF417.
void searchStraightened(const uint8_t *luma, int width, int height, int stride, uint32_t formats,
                        const std::vector<Region> &regions, std::vector<lector_code> &out) {
    const uint32_t asked = formats & (squareFormats | longFormats);
    for (const auto &region : regions) {
        Region crop = widened(region, width, height, 8);
        if (std::max(crop.width, crop.height) > croppedSideLimit) continue;
        if (asked & squareFormats & ~foundFormats(out))
            for (const auto &blob : lector::codeOutlines(luma, stride, crop.x, crop.y, crop.width, crop.height,
                                                         outlinesARegion, squareBlobs))
                for (const auto &outline : {blob.hull, blob.extremes}) {
                    uint32_t still = asked & squareFormats & ~foundFormats(out);
                    float length = lector::aspect(outline);
                    bool square = length <= squareAspect && blob.smallerSide >= squareSmallest;
                    bool rectangle = !square && length > squareAspect && length <= rectangleAspect &&
                                     (still & LECTOR_CODE_DATA_MATRIX);
                    if (!still || !(square || rectangle)) continue;
                    if (square ? readStraightened(luma, width, height, stride, outline, squareSide, still, false, out)
                               : readStraightened(luma, width, height, stride, outline, rectangleSide,
                                                  LECTOR_CODE_DATA_MATRIX, true, out))
                        break;  // this blob is read
                }
        if (asked & longFormats & ~foundFormats(out))
            for (const auto &blob : lector::codeOutlines(luma, stride, crop.x, crop.y, crop.width, crop.height,
                                                         outlinesARegion, longBlobs))
                for (const auto &outline : {blob.hull, blob.extremes}) {
                    uint32_t still = asked & longFormats & ~foundFormats(out);
                    if (!still) break;
                    if (readStraightened(luma, width, height, stride, outline, 0, still, false, out)) break;
                }
    }
}

/// The linear formats: read along lines of the image.
const uint32_t linearFormats = LECTOR_CODE_EAN13 | LECTOR_CODE_EAN8 | LECTOR_CODE_UPCA | LECTOR_CODE_UPCE |
                               LECTOR_CODE_CODE128 | LECTOR_CODE_CODE39 | LECTOR_CODE_CODE93 | LECTOR_CODE_ITF |
                               LECTOR_CODE_CODABAR;

/// Whether `point` lies within the box of the corners of a code of `out`, widened by 8 pixels.
template <typename Point>
bool onFound(const Point &point, const std::vector<lector_code> &out) {
    for (const auto &code : out) {
        int left = code.corners[0], right = left, top = code.corners[1], bottom = top;
        for (int i = 1; i < 4; ++i) {
            left = std::min(left, code.corners[2 * i]); right = std::max(right, code.corners[2 * i]);
            top = std::min(top, code.corners[2 * i + 1]); bottom = std::max(bottom, code.corners[2 * i + 1]);
        }
        if (point.x >= left - 8 && point.x <= right + 8 && point.y >= top - 8 && point.y <= bottom + 8) return true;
    }
    return false;
}

/// When the first pass missed a linear format asked for, the linear formats read again
/// with a fixed threshold (mid-gray): ZXing 1.4 sets a linear code's threshold from the
/// histogram of the whole line, which a dark desk beside a white label pulls off; the
/// same lines cut to the label, or thresholded at mid-gray, read. One pass over the
/// lines (no try-harder), every linear format asked for (so that an EAN-13 starting with
/// 0 is reported as the first pass reports it, UPC-A when asked for); a code whose
/// centre lies on a code already found is dropped (a part of an ITF read again, a
/// misread of a code read right before).
void searchFixedThreshold(const uint8_t *luma, int width, int height, int stride, uint32_t formats,
                          std::vector<lector_code> &out) {
    uint32_t linear = formats & linearFormats;
    if (!(linear & ~foundFormats(out))) return;
    auto fixed = options(linear);
    fixed.setBinarizer(ZXing::Binarizer::FixedThreshold);
    fixed.setTryHarder(false);
    std::vector<lector_code> before = out;
    for (const auto &result : ZXing::ReadBarcodes(ZXing::ImageView(luma, width, height, ZXing::ImageFormat::Lum, stride), fixed)) {
        if (!result.isValid()) continue;
        const auto &position = result.position();
        struct { int x, y; } centre{(position[0].x + position[1].x + position[2].x + position[3].x) / 4,
                                     (position[0].y + position[1].y + position[2].y + position[3].y) / 4};
        if (!onFound(centre, before)) keep(result, 0, 0, out);
    }
}

/// Searches the image: whole (one layer), the linear formats it missed at a fixed
/// threshold, then the centred formats in crops around the busy regions, then
/// (`searchAgain`) the formats that need it and were not found.
void search(const uint8_t *luma, int width, int height, int stride, uint32_t formats, std::vector<lector_code> &out) {
    for (const auto &result : ZXing::ReadBarcodes(ZXing::ImageView(luma, width, height, ZXing::ImageFormat::Lum, stride),
                                                  options(formats)))
        keep(result, 0, 0, out);
    searchFixedThreshold(luma, width, height, stride, formats, out);
    if (!(formats & (centredFormats | smallModuleFormats | croppedFormats))) return;
    auto regions = busyRegions(luma, width, height, stride, 12);
    if (uint32_t centred = formats & centredFormats) {
        auto centredOptions = options(centred);
        for (const auto &region : regions) {
            Region crop = widened(region, width, height);
            ZXing::ImageView view(luma + static_cast<size_t>(crop.y) * stride + crop.x, crop.width, crop.height,
                                  ZXing::ImageFormat::Lum, stride);
            for (const auto &result : ZXing::ReadBarcodes(view, centredOptions)) keep(result, crop.x, crop.y, out);
        }
    }
    searchAgain(luma, width, height, stride, formats, regions, out);
    searchStraightened(luma, width, height, stride, formats, regions, out);
}

}  // namespace

extern "C" int lector_codes_read(const uint8_t *luma, int width, int height, int stride, uint32_t formats,
                                 lector_code **codes, char *error, size_t error_size) {
    *codes = nullptr;
    std::vector<lector_code> out;
    try {
        search(luma, width, height, stride, formats, out);
        if (out.empty()) return 0;
        *codes = static_cast<lector_code *>(std::malloc(out.size() * sizeof(lector_code)));
        if (!*codes) throw std::bad_alloc();
        std::memcpy(*codes, out.data(), out.size() * sizeof(lector_code));
        return static_cast<int>(out.size());
    } catch (const std::exception &failure) {
        for (auto &code : out) { std::free(code.text); std::free(code.bytes); }
        if (error && error_size) { std::strncpy(error, failure.what(), error_size - 1); error[error_size - 1] = 0; }
    } catch (...) {
        for (auto &code : out) { std::free(code.text); std::free(code.bytes); }
        if (error && error_size) { std::strncpy(error, "unknown failure", error_size - 1); error[error_size - 1] = 0; }
    }
    return -1;
}

extern "C" void lector_codes_free(lector_code *codes, int count) {
    if (!codes) return;
    for (int i = 0; i < count; ++i) {
        std::free(codes[i].text);
        std::free(codes[i].bytes);
    }
    std::free(codes);
}

extern "C" const char *lector_codes_library_version(void) {
#define LECTOR_STRING(x) #x
#define LECTOR_VERSION(a, b, c) LECTOR_STRING(a) "." LECTOR_STRING(b) "." LECTOR_STRING(c)
    return LECTOR_VERSION(ZXING_VERSION_MAJOR, ZXING_VERSION_MINOR, ZXING_VERSION_PATCH);
}
