#ifndef LECTOR_CV4L2_H
#define LECTOR_CV4L2_H

// V4L2 for Swift: the kernel's structs come from <linux/videodev2.h>; the request codes
// (_IOWR(...)) and pixel formats (v4l2_fourcc(...)) are function-like macros that Swift
// cannot import, so they are exported here as constants. The I/O entry points exist in
// two flavours: plain libc (interceptable by LD_PRELOAD shims such as libcamerify) and
// libv4l2 (format conversion through libv4lconvert).

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/videodev2.h>

// Requests.
extern const unsigned long LECTOR_VIDIOC_QUERYCAP;
extern const unsigned long LECTOR_VIDIOC_ENUM_FMT;
extern const unsigned long LECTOR_VIDIOC_G_FMT;
extern const unsigned long LECTOR_VIDIOC_S_FMT;
extern const unsigned long LECTOR_VIDIOC_REQBUFS;
extern const unsigned long LECTOR_VIDIOC_QUERYBUF;
extern const unsigned long LECTOR_VIDIOC_QBUF;
extern const unsigned long LECTOR_VIDIOC_DQBUF;
extern const unsigned long LECTOR_VIDIOC_STREAMON;
extern const unsigned long LECTOR_VIDIOC_STREAMOFF;
extern const unsigned long LECTOR_VIDIOC_ENUM_FRAMESIZES;
extern const unsigned long LECTOR_VIDIOC_ENUM_FRAMEINTERVALS;
extern const unsigned long LECTOR_VIDIOC_G_PARM;
extern const unsigned long LECTOR_VIDIOC_S_PARM;
extern const unsigned long LECTOR_VIDIOC_G_CTRL;

// Pixel formats (fourcc codes).
extern const uint32_t LECTOR_PIX_FMT_GREY;
extern const uint32_t LECTOR_PIX_FMT_YUYV;
extern const uint32_t LECTOR_PIX_FMT_UYVY;
extern const uint32_t LECTOR_PIX_FMT_YVYU;
extern const uint32_t LECTOR_PIX_FMT_VYUY;
extern const uint32_t LECTOR_PIX_FMT_NV12;
extern const uint32_t LECTOR_PIX_FMT_NV21;
extern const uint32_t LECTOR_PIX_FMT_NV16;
extern const uint32_t LECTOR_PIX_FMT_NV61;
extern const uint32_t LECTOR_PIX_FMT_YUV420;  // YU12, I420
extern const uint32_t LECTOR_PIX_FMT_YVU420;  // YV12
extern const uint32_t LECTOR_PIX_FMT_RGB24;
extern const uint32_t LECTOR_PIX_FMT_BGR24;
extern const uint32_t LECTOR_PIX_FMT_XRGB32;
extern const uint32_t LECTOR_PIX_FMT_ARGB32;
extern const uint32_t LECTOR_PIX_FMT_XBGR32;
extern const uint32_t LECTOR_PIX_FMT_ABGR32;
extern const uint32_t LECTOR_PIX_FMT_MJPEG;
extern const uint32_t LECTOR_PIX_FMT_JPEG;

// Controls and flags whose macros are expressions.
extern const uint32_t LECTOR_CID_CAMERA_ORIENTATION;
extern const uint32_t LECTOR_CID_CAMERA_SENSOR_ROTATION;

/// Plain libc calls: the path that LD_PRELOAD interposers (libcamerify) can see.
int lector_direct_open(const char *path, int flags);
int lector_direct_close(int fd);
int lector_direct_ioctl(int fd, unsigned long request, void *argument);
void *lector_direct_mmap(size_t length, int protection, int flags, int fd, int64_t offset);
int lector_direct_munmap(void *address, size_t length);

/// libv4l2 calls: format conversion by libv4lconvert for Bayer and vendor formats.
int lector_libv4l2_open(const char *path, int flags);
int lector_libv4l2_close(int fd);
int lector_libv4l2_ioctl(int fd, unsigned long request, void *argument);
void *lector_libv4l2_mmap(size_t length, int protection, int flags, int fd, int64_t offset);
int lector_libv4l2_munmap(void *address, size_t length);

#endif
