#ifndef C_LECTOR_SYSTEM_H
#define C_LECTOR_SYSTEM_H

// What Glibc's Swift module hides (GNU extensions, Linux-only headers), exported as
// plain functions with a `lector_` prefix (swift-nio's CNIOLinux shape). Only
// LectorSystem's Syscalls files call these.

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

#endif
