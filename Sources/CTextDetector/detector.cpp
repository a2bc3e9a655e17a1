// detector.cpp — what PP-OCRv4's DB text detector is given (the image resized and
// normalized) and what is made of its probability map (PaddleOCR's DBPostProcess), with
// OpenCV's imgproc. The network runs in ONNX Runtime (lector_onnx.h). See
// lector_text_detector.h.
#include "lector_text_detector.h"
#include "barrier.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace {

using lector_barrier::set_error;

// ImageNet's mean and standard deviation, per BGR channel as PaddleOCR feeds them
// (the model was trained on RGB read as BGR: mean 0.485/0.456/0.406 for B, G, R).
const float kMean[3] = {0.485f, 0.456f, 0.406f};
const float kStd[3] = {0.229f, 0.224f, 0.225f};

int round32(double side) { return std::max(32, static_cast<int>(std::lround(side / 32.0)) * 32); }

// The mean of `map` inside the polygon `corners` (DB's box_score_fast).
float box_score(const cv::Mat &map, const cv::Point2f corners[4]) {
    float minX = corners[0].x, maxX = corners[0].x, minY = corners[0].y, maxY = corners[0].y;
    for (int i = 1; i < 4; i++) {
        minX = std::min(minX, corners[i].x); maxX = std::max(maxX, corners[i].x);
        minY = std::min(minY, corners[i].y); maxY = std::max(maxY, corners[i].y);
    }
    int x0 = std::clamp(static_cast<int>(std::floor(minX)), 0, map.cols - 1);
    int x1 = std::clamp(static_cast<int>(std::ceil(maxX)), 0, map.cols - 1);
    int y0 = std::clamp(static_cast<int>(std::floor(minY)), 0, map.rows - 1);
    int y1 = std::clamp(static_cast<int>(std::ceil(maxY)), 0, map.rows - 1);
    cv::Mat mask = cv::Mat::zeros(y1 - y0 + 1, x1 - x0 + 1, CV_8UC1);
    std::vector<cv::Point> polygon;
    for (int i = 0; i < 4; i++) {
        polygon.emplace_back(static_cast<int>(std::lround(corners[i].x)) - x0, static_cast<int>(std::lround(corners[i].y)) - y0);
    }
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{polygon}, cv::Scalar(1));
    return static_cast<float>(cv::mean(map(cv::Rect(x0, y0, x1 - x0 + 1, y1 - y0 + 1)), mask)[0]);
}

// DBPostProcess on a CV_32F map: regions above threshold, their rotated rectangles,
// scored, grown back by the unclip distance, scaled to the image.
std::vector<lector_td_box> boxes_from_map(const cv::Mat &map, int image_width, int image_height, const lector_td_params &p) {
    cv::Mat bitmap = map > p.threshold;  // CV_8U, 255 where text
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(bitmap, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
    const double sx = static_cast<double>(image_width) / map.cols, sy = static_cast<double>(image_height) / map.rows;
    std::vector<lector_td_box> out;
    const size_t count = std::min(contours.size(), static_cast<size_t>(std::max(0, p.max_candidates)));
    for (size_t i = 0; i < count; i++) {
        const auto &contour = contours[i];
        if (contour.size() < 3) continue;
        cv::RotatedRect rect = cv::minAreaRect(contour);
        if (std::min(rect.size.width, rect.size.height) < p.min_size) continue;
        cv::Point2f corners[4];
        rect.points(corners);
        float score = box_score(map, corners);
        if (score < p.box_threshold) continue;
        // Unclip: PaddleOCR offsets the polygon by area × ratio / perimeter with round
        // joins and takes the minimal rectangle again; for a rectangle that is the
        // rectangle grown by the distance on every side.
        double w = rect.size.width, h = rect.size.height;
        double distance = w * h * p.unclip_ratio / (2 * (w + h));
        cv::RotatedRect grown(rect.center, cv::Size2f(static_cast<float>(w + 2 * distance), static_cast<float>(h + 2 * distance)), rect.angle);
        if (std::min(grown.size.width, grown.size.height) < p.min_size + 2) continue;
        // Scale to the image (the map's axes scale independently: rounding to 32).
        cv::Point2f grownCorners[4];
        grown.points(grownCorners);
        std::vector<cv::Point2f> scaled;
        for (auto &corner : grownCorners) {
            scaled.emplace_back(static_cast<float>(std::clamp(corner.x * sx, 0.0, static_cast<double>(image_width))),
                                static_cast<float>(std::clamp(corner.y * sy, 0.0, static_cast<double>(image_height))));
        }
        cv::RotatedRect fitted = cv::minAreaRect(scaled);
        out.push_back(lector_td_box{fitted.center.x, fitted.center.y, fitted.size.width, fitted.size.height, fitted.angle, score});
    }
    std::sort(out.begin(), out.end(), [](const lector_td_box &a, const lector_td_box &b) {
        return a.cy != b.cy ? a.cy < b.cy : a.cx < b.cx;
    });
    return out;
}

int copy_boxes(const std::vector<lector_td_box> &found, lector_td_box *boxes, int capacity) {
    int n = std::min(static_cast<int>(found.size()), std::max(0, capacity));
    if (n > 0) std::memcpy(boxes, found.data(), sizeof(lector_td_box) * static_cast<size_t>(n));
    return n;
}

}  // namespace

extern "C" void lector_td_default_params(lector_td_params *params) {
    params->max_side = 960;
    params->min_side = 0;
    params->threshold = 0.3f;
    params->box_threshold = 0.5f;
    params->unclip_ratio = 1.6f;
    params->min_size = 3;
    params->max_candidates = 1000;
}

extern "C" void lector_td_input_size(int width, int height, const lector_td_params *params, int *input_width, int *input_height) {
    int longer = std::max(1, std::max(width, height));
    double ratio = std::min(1.0, static_cast<double>(params->max_side) / longer);
    if (params->min_side > 0 && longer < params->min_side) ratio = static_cast<double>(params->min_side) / longer;
    *input_width = round32(width * ratio);
    *input_height = round32(height * ratio);
}

// The exception barrier of the entry points: whatever `body` throws becomes -1 and a
// message, never an exception crossing into C.
template <typename Body> static int count_or_error(char *error, size_t error_size, Body body) {
    return lector_barrier::count_or_error(error, error_size, "text detection failed", body);
}

extern "C" int lector_td_input(const uint8_t *gray, int width, int height, int stride, int input_width, int input_height,
                               float *input, char *error, size_t error_size) {
    return count_or_error(error, error_size, [&]() -> int {
        if (width < 1 || height < 1 || stride < width || input_width < 1 || input_height < 1) {
            set_error(error, error_size, "empty image");
            return -1;
        }
        const int w = input_width, h = input_height;
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
        cv::Mat resized;
        cv::resize(image, resized, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
        // NCHW, the luma in all three channels, normalized per channel.
        for (int c = 0; c < 3; c++) {
            float scale = 1.0f / (255.0f * kStd[c]), offset = -kMean[c] / kStd[c];
            float *plane = input + static_cast<size_t>(c) * w * h;
            for (int y = 0; y < h; y++) {
                const uint8_t *row = resized.ptr<uint8_t>(y);
                float *target = plane + static_cast<size_t>(y) * w;
                for (int x = 0; x < w; x++) target[x] = row[x] * scale + offset;
            }
        }
        return 0;
    });
}

extern "C" int lector_td_boxes_from_map(const float *map, int map_width, int map_height, int image_width, int image_height,
                                        const lector_td_params *params, lector_td_box *boxes, int capacity,
                                        char *error, size_t error_size) {
    return count_or_error(error, error_size, [&]() -> int {
        if (map_width < 1 || map_height < 1) {
            set_error(error, error_size, "empty map");
            return -1;
        }
        cv::Mat wrapped(map_height, map_width, CV_32F, const_cast<float *>(map));
        return copy_boxes(boxes_from_map(wrapped, image_width, image_height, *params), boxes, capacity);
    });
}
