// What the OpenCV code (detector.cpp, recognizer.cpp) shares: writing an error message
// into the caller's buffer, and the exception barrier that keeps every C++ exception on
// this side of the C interface.
#ifndef LECTOR_CTEXTDETECTOR_BARRIER_HPP
#define LECTOR_CTEXTDETECTOR_BARRIER_HPP

#include <opencv2/core.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace lector_barrier {

inline void set_error(char *error, size_t size, const std::string &message) {
    if (error == nullptr || size == 0) return;
    std::snprintf(error, size, "%s", message.c_str());
}

// What `body` returns, or -1 and a message (`failure` when the exception says nothing)
// when it throws.
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

}  // namespace lector_barrier

#endif
