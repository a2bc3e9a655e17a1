#define _GNU_SOURCE
#include "CLectorSystem.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>

int lector_accept4_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int lector_eventfd_nonblocking(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

pid_t lector_gettid(void) {
    return (pid_t)syscall(SYS_gettid);
}

int lector_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

_Static_assert(EPOLLIN == POLLIN && EPOLLOUT == POLLOUT && EPOLLERR == POLLERR && EPOLLHUP == POLLHUP,
               "epoll and poll share their event bits");
_Static_assert(EPOLL_CTL_ADD == 1 && EPOLL_CTL_DEL == 2 && EPOLL_CTL_MOD == 3, "epoll_ctl operations");

int lector_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int lector_epoll_control(int epoll_fd, int operation, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data = {.u64 = token}};
    return epoll_ctl(epoll_fd, operation, fd, &event);
}

int lector_epoll_wait(int epoll_fd, uint32_t *events, uint64_t *tokens, int capacity, int timeout_ms) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, ready, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i] = ready[i].events;
        tokens[i] = ready[i].data.u64;
    }
    return count;
}

int lector_bytes_readable(int fd) {
    int count = 0;
    return ioctl(fd, FIONREAD, &count) < 0 ? -1 : count;
}

int lector_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

int lector_rename_noreplace(int directory, const char *from, const char *to) {
    if (renameat2(directory, from, directory, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    if (linkat(directory, from, directory, to, 0) != 0) return -1;
    return unlinkat(directory, from, 0);
}
