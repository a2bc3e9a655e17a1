// recognizer.cpp — what PP-OCRv6's text-line recognizer is given (a line image turned,
// resized to its height and padded) and the per-step argmax of its CTC output, with
// OpenCV's imgproc. The network runs in ONNX Runtime (lector_onnx.h). See
// lector_line_recognizer.h.
#include "lector_line_recognizer.h"
#include "barrier.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace {

// The narrowest input PaddleOCR gives the network (a shorter line is padded: measured,
// scene 12/22 words with the padding, 10 without).
constexpr int kMinimumWidth = 320;
// A line image taller than this many times its width is read turned (PaddleOCR's rule).
constexpr double kTurnRatio = 1.5;

}  // namespace

extern "C" void lector_lr_input_geometry(int width, int height, lector_lr_geometry *geometry) {
    const bool turned = height > kTurnRatio * width;
    const int rows = std::max(1, turned ? width : height), columns = std::max(1, turned ? height : width);
    const double scale = static_cast<double>(LECTOR_LR_HEIGHT) / rows;
    const int content = std::max(1, static_cast<int>(std::ceil(columns * scale)));
    *geometry = lector_lr_geometry{0, std::max(kMinimumWidth, content), content, static_cast<float>(scale), turned ? 1 : 0};
}

extern "C" int lector_lr_input(const uint8_t *pixels, int width, int height, int stride, int channels,
                               const lector_lr_geometry *geometry, float *input, char *error, size_t error_size) {
    return lector_barrier::count_or_error(error, error_size, "line recognition failed", [&]() -> int {
        if (width < 1 || height < 1 || (channels != 1 && channels != 3) || stride < width * channels) {
            lector_barrier::set_error(error, error_size, "no line image (empty, or not 1 or 3 channels of 8 bits)");
            return -1;
        }
        cv::Mat image(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
        cv::Mat upright;
        if (geometry->turned) cv::rotate(image, upright, cv::ROTATE_90_COUNTERCLOCKWISE); else upright = image;
        cv::Mat resized;
        cv::resize(upright, resized, cv::Size(geometry->content_width, LECTOR_LR_HEIGHT), 0, 0, cv::INTER_LINEAR);
        // NCHW: (x / 255 - 0.5) / 0.5 per channel, zeros (mid-gray) right of the image.
        const int width_in = geometry->input_width;
        std::memset(input, 0, sizeof(float) * 3 * LECTOR_LR_HEIGHT * static_cast<size_t>(width_in));
        for (int c = 0; c < 3; c++) {
            float *plane = input + static_cast<size_t>(c) * LECTOR_LR_HEIGHT * width_in;
            const int source = channels == 1 ? 0 : c;
            for (int y = 0; y < LECTOR_LR_HEIGHT; y++) {
                const uint8_t *row = resized.ptr<uint8_t>(y);
                float *target = plane + static_cast<size_t>(y) * width_in;
                for (int x = 0; x < resized.cols; x++) target[x] = row[x * channels + source] * (2.0f / 255.0f) - 1.0f;
            }
        }
        return 0;
    });
}
