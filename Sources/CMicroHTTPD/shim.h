#ifndef LECTOR_CMICROHTTPD_SHIM_H
#define LECTOR_CMICROHTTPD_SHIM_H
// libmicrohttpd for lector-http. MHD_start_daemon and MHD_get_connection_info take
// C varargs, which Swift cannot pass: these wrappers take plain arguments.
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// Called with the request target as the client sent it (not yet percent-decoded,
/// query included); its result becomes the request's context.
typedef void *(*lector_mhd_target_callback)(void *cls, const char *target);

struct lector_mhd_callbacks {
  MHD_AccessHandlerCallback handler;
  MHD_RequestCompletedCallback completed;
  MHD_NotifyConnectionCallback connection;
  lector_mhd_target_callback target;
  void *cls;
};

/// MHD's URI log callback: hands the raw target to `target`, then empties the query
/// MHD is about to parse (it sits in MHD's own writable line buffer, which MHD itself
/// cuts at the '?'): lector-http parses the query from the raw target with a bound on
/// the number of arguments, where MHD 0.9.75 would run out of its per-connection
/// memory on a few hundred arguments and leave the client without an answer.
static inline void *lector_mhd_uri_log(void *cls, const char *uri, struct MHD_Connection *connection) {
  (void)connection;
  const struct lector_mhd_callbacks *callbacks = (const struct lector_mhd_callbacks *)cls;
  void *context = callbacks->target(callbacks->cls, uri);
  char *query = strchr((char *)uri, '?');
  if (query != NULL) query[1] = '\0';
  return context;
}

/// Starts a daemon on an already listening socket (TCP or Unix), with an internal
/// epoll thread pool, suspend/resume, a connection cap (also per client address), an
/// idle timeout and a memory limit per connection (request headers beyond it are
/// answered 431/413). `callbacks` must outlive the daemon.
static inline struct MHD_Daemon *lector_mhd_start(int listen_fd, unsigned int threads,
    unsigned int connection_limit, unsigned int per_address_limit, unsigned int timeout_seconds,
    size_t memory_limit, struct lector_mhd_callbacks *callbacks) {
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
  return MHD_start_daemon(flags, 0, NULL, NULL, callbacks->handler, callbacks->cls,
      MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
      MHD_OPTION_THREAD_POOL_SIZE, threads,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
      MHD_OPTION_NOTIFY_COMPLETED, callbacks->completed, callbacks->cls,
      MHD_OPTION_NOTIFY_CONNECTION, callbacks->connection, callbacks->cls,
      MHD_OPTION_URI_LOG_CALLBACK, lector_mhd_uri_log, (void *)callbacks,
      MHD_OPTION_END);
}

/// The connection's socket, or -1.
static inline int lector_mhd_connection_socket(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : (int)info->connect_fd;
}

/// The context stored for the connection's socket by the connection callback, or NULL.
static inline void *lector_mhd_socket_context(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info == NULL ? NULL : info->socket_context;
}

/// The client's numeric address ("192.0.2.7", "::1"; "local" for a Unix socket) into `out`.
static inline void lector_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  snprintf(out, size, "local");
  if (info == NULL || info->client_addr == NULL) return;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, (socklen_t)size);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, out, (socklen_t)size);
  }
}

/// Ends a connection that took too long to send its request: its socket is shut down
/// (not closed: libmicrohttpd owns it, sees the end and closes it itself).
static inline void lector_mhd_shutdown_socket(int fd) { shutdown(fd, SHUT_RDWR); }

#endif
