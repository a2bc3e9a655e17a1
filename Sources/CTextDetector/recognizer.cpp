// recognizer.cpp — PP-OCRv6's text-line recognizer through OpenCV's DNN module: its CTC
// output per step (decoded in Swift, CTCDecoding). See lector_line_recognizer.h.
#include "lector_line_recognizer.h"
#include "shim.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// The network's input height and the narrowest input PaddleOCR gives it (a shorter line
// is padded: measured, scene 12/22 words with the padding, 10 without).
constexpr int kHeight = 48;
constexpr int kMinimumWidth = 320;
// A line image taller than this many times its width is read turned (PaddleOCR's rule).
constexpr double kTurnRatio = 1.5;

using lector_shim::read_network;
using lector_shim::set_error;

// The NCHW blob of a BGR or gray line `image` already `kHeight` rows tall:
// (x / 255 - 0.5) / 0.5 per channel, zeros (mid-gray) right of its columns up to `width`.
cv::Mat blob_of(const cv::Mat &image, int width) {
    int shape[4] = {1, 3, kHeight, width};
    cv::Mat blob(4, shape, CV_32F, cv::Scalar(0));
    float *planes = blob.ptr<float>();
    const int channels = image.channels();
    for (int c = 0; c < 3; c++) {
        float *plane = planes + static_cast<size_t>(c) * kHeight * width;
        const int source = channels == 1 ? 0 : c;
        for (int y = 0; y < kHeight; y++) {
            const uint8_t *row = image.ptr<uint8_t>(y);
            float *target = plane + static_cast<size_t>(y) * width;
            for (int x = 0; x < image.cols; x++) target[x] = row[x * channels + source] * (2.0f / 255.0f) - 1.0f;
        }
    }
    return blob;
}

}  // namespace

struct lector_lr {
    cv::dnn::Net net;
    int classes = 0;
    cv::Mat output;  // the last read's, 1 x steps x classes
};

// Runs the network on `blob`; the output as a steps × classes matrix view of `output`.
static cv::Mat forward(lector_lr *recognizer, const cv::Mat &blob, cv::Mat &output) {
    recognizer->net.setInput(blob);
    output = recognizer->net.forward();  // 1 x steps x classes
    if (output.dims != 3 || output.size[0] != 1 || output.size[2] < 3) {
        throw std::runtime_error("the network's output is not 1 × steps × classes");
    }
    return cv::Mat(output.size[1], output.size[2], CV_32F, output.ptr<float>());
}

extern "C" lector_lr *lector_lr_create(const char *model_path, int threads, char *error, size_t error_size) {
    return lector_shim::loaded_or_null(model_path, error, error_size, [&]() -> lector_lr * {
        if (threads > 0) cv::setNumThreads(threads);
        auto recognizer = std::make_unique<lector_lr>();
        recognizer->net = read_network(model_path);
        if (recognizer->net.empty()) {
            set_error(error, error_size, std::string("OpenCV read no network from ") + model_path);
            return nullptr;
        }
        cv::Mat blank(kHeight, kMinimumWidth, CV_8UC1, cv::Scalar(255)), output;
        recognizer->classes = forward(recognizer.get(), blob_of(blank, kMinimumWidth), output).cols;
        return recognizer.release();
    });
}

extern "C" int lector_lr_classes(const lector_lr *recognizer) { return recognizer->classes; }

extern "C" int lector_lr_read(lector_lr *recognizer, const uint8_t *pixels, int width, int height, int stride, int channels,
                              const float **output, lector_lr_geometry *geometry, char *error, size_t error_size) {
    return lector_shim::count_or_error(error, error_size, "line recognition failed", [&]() -> int {
        if (width < 1 || height < 1 || (channels != 1 && channels != 3) || stride < width * channels) {
            set_error(error, error_size, "no line image (empty, or not 1 or 3 channels of 8 bits)");
            return -1;
        }
        cv::Mat image(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
        const bool turned = height > kTurnRatio * width;
        cv::Mat upright;
        if (turned) cv::rotate(image, upright, cv::ROTATE_90_COUNTERCLOCKWISE); else upright = image;
        const double scale = static_cast<double>(kHeight) / upright.rows;
        const int content = std::max(1, static_cast<int>(std::ceil(upright.cols * scale)));
        const int input = std::max(kMinimumWidth, content);
        cv::Mat resized;
        cv::resize(upright, resized, cv::Size(content, kHeight), 0, 0, cv::INTER_LINEAR);
        cv::Mat steps = forward(recognizer, blob_of(resized, input), recognizer->output);
        if (steps.cols != recognizer->classes) {
            set_error(error, error_size, "the network's class count changed between reads");
            return -1;
        }
        *output = steps.ptr<float>();
        if (geometry != nullptr) {
            *geometry = lector_lr_geometry{steps.rows, input, content, static_cast<float>(scale), turned ? 1 : 0};
        }
        return steps.rows;
    });
}

extern "C" void lector_lr_destroy(lector_lr *recognizer) { delete recognizer; }
