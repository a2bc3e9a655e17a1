#include "CV4L2.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <libv4l2.h>

const unsigned long LECTOR_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
const unsigned long LECTOR_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
const unsigned long LECTOR_VIDIOC_G_FMT = VIDIOC_G_FMT;
const unsigned long LECTOR_VIDIOC_S_FMT = VIDIOC_S_FMT;
const unsigned long LECTOR_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
const unsigned long LECTOR_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
const unsigned long LECTOR_VIDIOC_QBUF = VIDIOC_QBUF;
const unsigned long LECTOR_VIDIOC_DQBUF = VIDIOC_DQBUF;
const unsigned long LECTOR_VIDIOC_STREAMON = VIDIOC_STREAMON;
const unsigned long LECTOR_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
const unsigned long LECTOR_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
const unsigned long LECTOR_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long LECTOR_VIDIOC_G_PARM = VIDIOC_G_PARM;
const unsigned long LECTOR_VIDIOC_S_PARM = VIDIOC_S_PARM;
const unsigned long LECTOR_VIDIOC_G_CTRL = VIDIOC_G_CTRL;

const uint32_t LECTOR_PIX_FMT_GREY = V4L2_PIX_FMT_GREY;
const uint32_t LECTOR_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
const uint32_t LECTOR_PIX_FMT_UYVY = V4L2_PIX_FMT_UYVY;
const uint32_t LECTOR_PIX_FMT_YVYU = V4L2_PIX_FMT_YVYU;
const uint32_t LECTOR_PIX_FMT_VYUY = V4L2_PIX_FMT_VYUY;
const uint32_t LECTOR_PIX_FMT_NV12 = V4L2_PIX_FMT_NV12;
const uint32_t LECTOR_PIX_FMT_NV21 = V4L2_PIX_FMT_NV21;
const uint32_t LECTOR_PIX_FMT_NV16 = V4L2_PIX_FMT_NV16;
const uint32_t LECTOR_PIX_FMT_NV61 = V4L2_PIX_FMT_NV61;
const uint32_t LECTOR_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;
const uint32_t LECTOR_PIX_FMT_YVU420 = V4L2_PIX_FMT_YVU420;
const uint32_t LECTOR_PIX_FMT_RGB24 = V4L2_PIX_FMT_RGB24;
const uint32_t LECTOR_PIX_FMT_BGR24 = V4L2_PIX_FMT_BGR24;
const uint32_t LECTOR_PIX_FMT_XRGB32 = V4L2_PIX_FMT_XRGB32;
const uint32_t LECTOR_PIX_FMT_ARGB32 = V4L2_PIX_FMT_ARGB32;
const uint32_t LECTOR_PIX_FMT_XBGR32 = V4L2_PIX_FMT_XBGR32;
const uint32_t LECTOR_PIX_FMT_ABGR32 = V4L2_PIX_FMT_ABGR32;
const uint32_t LECTOR_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
const uint32_t LECTOR_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;

const uint32_t LECTOR_CID_CAMERA_ORIENTATION = V4L2_CID_CAMERA_ORIENTATION;
const uint32_t LECTOR_CID_CAMERA_SENSOR_ROTATION = V4L2_CID_CAMERA_SENSOR_ROTATION;

int lector_direct_open(const char *path, int flags) { return open(path, flags); }
int lector_direct_close(int fd) { return close(fd); }
int lector_direct_ioctl(int fd, unsigned long request, void *argument) {
    return ioctl(fd, request, argument);
}
void *lector_direct_mmap(size_t length, int protection, int flags, int fd, int64_t offset) {
    return mmap(NULL, length, protection, flags, fd, (off_t)offset);
}
int lector_direct_munmap(void *address, size_t length) { return munmap(address, length); }

int lector_libv4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
int lector_libv4l2_close(int fd) { return v4l2_close(fd); }
int lector_libv4l2_ioctl(int fd, unsigned long request, void *argument) {
    return v4l2_ioctl(fd, request, argument);
}
void *lector_libv4l2_mmap(size_t length, int protection, int flags, int fd, int64_t offset) {
    return v4l2_mmap(NULL, length, protection, flags, fd, (int64_t)offset);
}
int lector_libv4l2_munmap(void *address, size_t length) { return v4l2_munmap(address, length); }

