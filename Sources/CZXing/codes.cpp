// ZXing-C++ behind lector_codes.h, built against 1.4 (Debian 12) and 2.x (Debian 13).
#define ZX_USE_UTF8 1
#include "lector_codes.h"

#include <ZXing/ReadBarcode.h>
#include <ZXing/ZXVersion.h>

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

char *copyText(const std::string &text) {
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy) std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

}  // namespace

extern "C" int lector_codes_read(const uint8_t *luma, int width, int height, int stride, uint32_t formats,
                                 lector_code **codes, char *error, size_t error_size) {
    *codes = nullptr;
    try {
        Options options;
        options.setFormats(libraryFormats(formats));
        options.setTryHarder(true);
        options.setTryRotate(true);
        // One layer only: 1.4's duplicate check between the pyramid's layers asserts
        // (aborts the process) on a linear code found in two of them.
        options.setTryDownscale(false);
#if ZXING_VERSION_MAJOR >= 2
        options.setTryInvert(false);
#endif
        ZXing::ImageView image(luma, width, height, ZXing::ImageFormat::Lum, stride);
        auto found = ZXing::ReadBarcodes(image, options);
        std::vector<lector_code> out;
        for (const auto &result : found) {
            if (!result.isValid()) continue;
            lector_code code{};
            code.format = lectorFormat(result.format());
            if (code.format == 0) continue;
            code.text = copyText(result.text());
            const auto &bytes = result.bytes();
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
                code.corners[2 * i] = position[i].x;
                code.corners[2 * i + 1] = position[i].y;
            }
            out.push_back(code);
        }
        if (out.empty()) return 0;
        *codes = static_cast<lector_code *>(std::malloc(out.size() * sizeof(lector_code)));
        if (!*codes) {
            for (auto &code : out) { std::free(code.text); std::free(code.bytes); }
            throw std::bad_alloc();
        }
        std::memcpy(*codes, out.data(), out.size() * sizeof(lector_code));
        return static_cast<int>(out.size());
    } catch (const std::exception &failure) {
        if (error && error_size) { std::strncpy(error, failure.what(), error_size - 1); error[error_size - 1] = 0; }
    } catch (...) {
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
