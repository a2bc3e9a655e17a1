// ZXing-C++ behind lector_codes.h, built against 1.4 (Debian 12) and 2.x (Debian 13).
#define ZX_USE_UTF8 1
#include "lector_codes.h"

#include <ZXing/ReadBarcode.h>
#if __has_include(<ZXing/Version.h>)
#include <ZXing/Version.h>  // 2.x: ZXVersion.h is deprecated there (and says so while compiling)
#else
#include <ZXing/ZXVersion.h>  // 1.4
#endif

#include <algorithm>
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

/// Copies `result` into `out` (corners moved by `dx`, `dy`) unless a code of the same
/// format and content is there already.
/// (`Barcode` is 2.x's name for 1.4's `Result`: the type is left to the compiler.)
template <typename Found>
void keep(const Found &result, int dx, int dy, std::vector<lector_code> &out) {
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
        code.corners[2 * i] = position[i].x + dx;
        code.corners[2 * i + 1] = position[i].y + dy;
    }
    out.push_back(code);
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

}  // namespace

extern "C" int lector_codes_read(const uint8_t *luma, int width, int height, int stride, uint32_t formats,
                                 lector_code **codes, char *error, size_t error_size) {
    *codes = nullptr;
    std::vector<lector_code> out;
    try {
        for (const auto &result : ZXing::ReadBarcodes(ZXing::ImageView(luma, width, height, ZXing::ImageFormat::Lum, stride),
                                                      options(formats)))
            keep(result, 0, 0, out);
        if (uint32_t centred = formats & centredFormats) {
            auto search = options(centred);
            for (const auto &region : busyRegions(luma, width, height, stride, 12)) {
                int margin = std::max(16, std::max(region.width, region.height) / 3);
                int x = std::max(0, region.x - margin), y = std::max(0, region.y - margin);
                int w = std::min(width, region.x + region.width + margin) - x;
                int h = std::min(height, region.y + region.height + margin) - y;
                ZXing::ImageView crop(luma + static_cast<size_t>(y) * stride + x, w, h, ZXing::ImageFormat::Lum, stride);
                for (const auto &result : ZXing::ReadBarcodes(crop, search)) keep(result, x, y, out);
            }
        }
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
