#ifndef LECTOR_CMICROHTTPD_SHIM_H
#define LECTOR_CMICROHTTPD_SHIM_H
// libmicrohttpd for lector-http. MHD_start_daemon takes its options as C varargs,
// which Swift cannot pass: lector_mhd_start takes them as plain arguments.
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon on an already listening socket (TCP or Unix), with an internal
/// epoll thread pool, suspend/resume, a connection cap, an idle timeout and a memory
/// limit per connection (request headers beyond it are answered 431/413).
static inline struct MHD_Daemon *lector_mhd_start(int listen_fd, unsigned int threads,
    unsigned int connection_limit, unsigned int timeout_seconds, size_t memory_limit,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls) {
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
  return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
      MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
      MHD_OPTION_THREAD_POOL_SIZE, threads,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
      MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
      MHD_OPTION_END);
}

#endif
