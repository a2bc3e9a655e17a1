/*
 * vm/v4l2-probe.c — tiny V4L2 capture probe used by vm/selftest.sh inside the VM.
 *
 * usage: v4l2-probe DEVICE NFRAMES [CTRL_ID:AT]...
 *
 * Streams NFRAMES from DEVICE's current input/format (mmap, 4 buffers) and prints one
 * line per event with exact errno values and buffer flags. Each CTRL_ID:AT sets control
 * CTRL_ID (hex or decimal) to 1 with VIDIOC_S_CTRL: before REQBUFS if AT is -1, else
 * right after the AT-th dequeued frame (counting from 1). vivid's error-injection
 * controls are buttons, so "1" presses them. Stops after NFRAMES frames or 3
 * consecutive failures. After unmapping and closing it opens DEVICE again and reports
 * QUERYCAP.
 * Exit status: 0 always unless the arguments are wrong (it reports, it does not judge).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define NBUF 4
#define MAXCTRL 8

static unsigned ctrl_id[MAXCTRL];
static long ctrl_at[MAXCTRL];
static int nctrl;
static void *maps[NBUF];
static size_t maplen[NBUF];

static const char *errname(int e)
{
    switch (e) {
    case EIO: return "EIO";
    case ENODEV: return "ENODEV";
    case EINVAL: return "EINVAL";
    case EPIPE: return "EPIPE";
    case EAGAIN: return "EAGAIN";
    case EBUSY: return "EBUSY";
    case ENXIO: return "ENXIO";
    default: return "?";
    }
}

#define REPORT(what, rc) \
    printf("%s: %s\n", what, (rc) == 0 ? "ok" : (snprintf(ebuf, sizeof ebuf, "errno %d %s (%s)", \
           errno, errname(errno), strerror(errno)), ebuf))
static char ebuf[128];

static void press(int fd, long at)
{
    for (int i = 0; i < nctrl; i++) {
        if (ctrl_at[i] != at) continue;
        struct v4l2_control c = { .id = ctrl_id[i], .value = 1 };
        char what[64];
        snprintf(what, sizeof what, "S_CTRL 0x%08x=1 (after frame %ld)", ctrl_id[i], at);
        int rc = ioctl(fd, VIDIOC_S_CTRL, &c);
        REPORT(what, rc);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s DEVICE NFRAMES [CTRL_ID:AT]...\n", argv[0]);
        return 2;
    }
    const char *dev = argv[1];
    long nframes = atol(argv[2]);
    for (int i = 3; i < argc && nctrl < MAXCTRL; i++) {
        char *colon = strchr(argv[i], ':');
        if (!colon) { fprintf(stderr, "bad control spec %s\n", argv[i]); return 2; }
        ctrl_id[nctrl] = (unsigned)strtoul(argv[i], NULL, 0);
        ctrl_at[nctrl++] = atol(colon + 1);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    int fd = open(dev, O_RDWR | O_NONBLOCK);
    if (fd < 0) { printf("open %s: errno %d (%s)\n", dev, errno, strerror(errno)); return 0; }
    press(fd, -1);

    struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
    ioctl(fd, VIDIOC_G_FMT, &fmt);
    printf("format %.4s %ux%u sizeimage %u\n", (char *)&fmt.fmt.pix.pixelformat,
           fmt.fmt.pix.width, fmt.fmt.pix.height, fmt.fmt.pix.sizeimage);

    struct v4l2_requestbuffers req = { .count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
                                       .memory = V4L2_MEMORY_MMAP };
    int rc = ioctl(fd, VIDIOC_REQBUFS, &req);
    REPORT("REQBUFS", rc);
    if (rc) goto out;
    for (unsigned i = 0; i < req.count; i++) {
        struct v4l2_buffer b = { .index = i, .type = req.type, .memory = req.memory };
        if (ioctl(fd, VIDIOC_QUERYBUF, &b) == 0 && i < NBUF) {
            maps[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset);
            maplen[i] = b.length;
        }
        rc = ioctl(fd, VIDIOC_QBUF, &b);
        if (rc) { REPORT("QBUF (initial)", rc); goto out; }
    }
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    rc = ioctl(fd, VIDIOC_STREAMON, &type);
    REPORT("STREAMON", rc);
    if (rc) goto out;

    long got = 0;
    int failures = 0;
    while (got < nframes && failures < 3) {
        struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI };
        int n = poll(&p, 1, 2000);
        if (n <= 0) { printf("poll: %s\n", n == 0 ? "timeout 2 s" : strerror(errno)); failures++; continue; }
        if (p.revents != POLLIN)
            printf("poll revents 0x%x%s%s%s\n", p.revents, p.revents & POLLERR ? " POLLERR" : "",
                   p.revents & POLLHUP ? " POLLHUP" : "", p.revents & POLLPRI ? " POLLPRI" : "");
        struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
        rc = ioctl(fd, VIDIOC_DQBUF, &b);
        if (rc) {
            REPORT("DQBUF", rc);
            failures++;
            if (errno == EAGAIN) usleep(10000);
            continue;
        }
        got++;
        printf("frame %ld seq %u bytesused %u flags 0x%05x%s\n", got, b.sequence, b.bytesused,
               b.flags, b.flags & V4L2_BUF_FLAG_ERROR ? " V4L2_BUF_FLAG_ERROR" : "");
        press(fd, got);
        rc = ioctl(fd, VIDIOC_QBUF, &b);
        if (rc) { REPORT("QBUF", rc); failures++; } else failures = 0;
    }
    rc = ioctl(fd, VIDIOC_STREAMOFF, &type);
    REPORT("STREAMOFF", rc);
out:
    for (int i = 0; i < NBUF; i++)      /* mmaps hold a file reference too */
        if (maps[i] && maps[i] != MAP_FAILED) munmap(maps[i], maplen[i]);
    close(fd);
    fd = open(dev, O_RDWR);
    if (fd < 0) {
        printf("reopen: errno %d %s (%s)\n", errno, errname(errno), strerror(errno));
    } else {
        struct v4l2_capability cap;
        rc = ioctl(fd, VIDIOC_QUERYCAP, &cap);
        REPORT("reopen + QUERYCAP", rc);
        close(fd);
    }
    return 0;
}
