// count-v4l2-calls.so — an LD_PRELOAD interposer in the shape of libcamerify's
// v4l2-compat: it wraps libc's open/openat/ioctl/mmap/close and counts the calls made
// on /dev/video* descriptors. At exit it prints one line to stderr:
//   count-v4l2-calls: open=N ioctl=N mmap=N close=N
// The capture tests run `lectord --io direct` under it (counts must be > 0) and
// `--io libv4l2` (libv4l2 issues raw syscalls: ioctl and mmap stay 0).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_FD 4096
static atomic_bool video_fd[MAX_FD];
static atomic_long opens, ioctls, mmaps, closes;

static int is_video_path(const char *path) {
    return path && strncmp(path, "/dev/video", 10) == 0;
}
static int is_video_fd(int fd) { return fd >= 0 && fd < MAX_FD && atomic_load(&video_fd[fd]); }
static void note_open(const char *path, int fd) {
    if (fd >= 0 && fd < MAX_FD && is_video_path(path)) {
        atomic_store(&video_fd[fd], 1);
        atomic_fetch_add(&opens, 1);
    }
}

#define REAL(name) static __typeof__(name) *real; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static mode_t mode_of(int flags, va_list args) {
    return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(args, mode_t) : 0;
}

int open(const char *path, int flags, ...) {
    REAL(open);
    va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args);
    int fd = real(path, flags, mode);
    note_open(path, fd);
    return fd;
}
int open64(const char *path, int flags, ...) {
    REAL(open64);
    va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args);
    int fd = real(path, flags, mode);
    note_open(path, fd);
    return fd;
}
int openat(int dir, const char *path, int flags, ...) {
    REAL(openat);
    va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args);
    int fd = real(dir, path, flags, mode);
    note_open(path, fd);
    return fd;
}
int ioctl(int fd, unsigned long request, ...) {
    REAL(ioctl);
    va_list args; va_start(args, request); void *argument = va_arg(args, void *); va_end(args);
    if (is_video_fd(fd)) atomic_fetch_add(&ioctls, 1);
    return real(fd, request, argument);
}
void *mmap(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    REAL(mmap);
    if (is_video_fd(fd)) atomic_fetch_add(&mmaps, 1);
    return real(address, length, protection, flags, fd, offset);
}
void *mmap64(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    REAL(mmap64);
    if (is_video_fd(fd)) atomic_fetch_add(&mmaps, 1);
    return real(address, length, protection, flags, fd, offset);
}
int close(int fd) {
    REAL(close);
    if (is_video_fd(fd)) {
        atomic_store(&video_fd[fd], 0);
        atomic_fetch_add(&closes, 1);
    }
    return real(fd);
}

__attribute__((destructor)) static void report(void) {
    char line[160];
    int n = snprintf(line, sizeof line, "count-v4l2-calls: open=%ld ioctl=%ld mmap=%ld close=%ld\n",
                     atomic_load(&opens), atomic_load(&ioctls), atomic_load(&mmaps), atomic_load(&closes));
    if (n > 0) { ssize_t ignored = write(2, line, (size_t)n); (void)ignored; }
}
