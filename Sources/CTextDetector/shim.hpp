// What the OpenCV shims (detector.cpp, recognizer.cpp) share: reading a network, writing
// an error message into the caller's buffer, and the exception barriers that keep every
// C++ exception on this side of the C interface.
#ifndef LECTOR_CTEXTDETECTOR_SHIM_HPP
#define LECTOR_CTEXTDETECTOR_SHIM_HPP

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace lector_shim {

// Reads the network, set up for OpenCV's own CPU backend; empty when the file holds none.
inline cv::dnn::Net read_network(const std::string &model_path) {
    cv::dnn::Net net = cv::dnn::readNetFromONNX(model_path);
    if (net.empty()) return net;
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    return net;
}

inline void set_error(char *error, size_t size, const std::string &message) {
    if (error == nullptr || size == 0) return;
    std::snprintf(error, size, "%s", message.c_str());
}

// The barrier of the entry points that load a model: what `body` returns, or nullptr and
// a message naming `model_path` when it throws.
template <typename Body> auto loaded_or_null(const char *model_path, char *error, size_t error_size, Body body) -> decltype(body()) {
    try {
        return body();
    } catch (const cv::Exception &e) {
        set_error(error, error_size, std::string("OpenCV could not load ") + model_path + ": " + e.what());
    } catch (const std::exception &e) {
        set_error(error, error_size, std::string("could not load ") + model_path + ": " + e.what());
    } catch (...) {
        set_error(error, error_size, std::string("could not load ") + model_path);
    }
    return nullptr;
}

// The barrier of the entry points that return a count: what `body` returns, or -1 and a
// message (`failure` when the exception says nothing) when it throws.
template <typename Body> int count_or_error(char *error, size_t error_size, const char *failure, Body body) {
    try {
        return body();
    } catch (const cv::Exception &e) {
        set_error(error, error_size, std::string("OpenCV: ") + e.what());
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    } catch (...) {
        set_error(error, error_size, failure);
    }
    return -1;
}

}  // namespace lector_shim

#endif
