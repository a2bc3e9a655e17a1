#ifndef C_LECTOR_SYSTEM_H
#define C_LECTOR_SYSTEM_H

// What Glibc's Swift module hides (GNU extensions, Linux-only headers), exported as
// plain functions with a `lector_` prefix (swift-nio's CNIOLinux shape). Only
// LectorSystem's Syscalls files call these.

#include <stdint.h>
#include <sys/types.h>

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC: a non-blocking, close-on-exec client
/// in one call. -1 with errno set on failure.
int lector_accept4_nonblocking(int fd);

/// eventfd(2) with EFD_NONBLOCK | EFD_CLOEXEC and a zero counter. -1 with errno set.
int lector_eventfd_nonblocking(void);

/// The calling thread's kernel id (gettid(2); glibc < 2.30 has no wrapper).
pid_t lector_gettid(void);

/// getsockopt(2) SO_PEERCRED (struct ucred needs _GNU_SOURCE): the peer's process,
/// user and group. 0, or -1 with errno set.
int lector_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// epoll_create1(2) with EPOLL_CLOEXEC. -1 with errno set.
int lector_epoll_create(void);

/// epoll_ctl(2): `operation` 1 adds, 2 removes, 3 modifies `fd` in `epoll_fd` with the
/// level-triggered `events` (poll's POLLIN, POLLOUT… values, which epoll shares on Linux)
/// and `token` as its data. -1 with errno set.
int lector_epoll_control(int epoll_fd, int operation, int fd, uint32_t events, uint64_t token);

/// epoll_wait(2) into two parallel arrays (`struct epoll_event` is packed on x86-64,
/// which Swift cannot import): up to `capacity` (at most 256) ready descriptors'
/// events and tokens. The number filled, or -1 with errno set.
int lector_epoll_wait(int epoll_fd, uint32_t *events, uint64_t *tokens, int capacity, int timeout_ms);

/// ioctl(2) FIONREAD: how many bytes wait to be read on `fd`. -1 with errno set.
int lector_bytes_readable(int fd);

/// prctl(2) PR_SET_CHILD_SUBREAPER: descendants orphaned by their parent (a hook's
/// `setsid`'ed children) become this process's children instead of init's. 0, or -1
/// with errno set.
int lector_become_child_subreaper(void);

/// renameat2(2) with RENAME_NOREPLACE: renames `from` to `to` (both relative to
/// `directory`) unless `to` exists (EEXIST). A file system without the flag (EINVAL)
/// gets linkat(2) then unlinkat(2), which refuse an existing name as well. 0, or -1 with
/// errno set.
int lector_rename_noreplace(int directory, const char *from, const char *to);

#endif
