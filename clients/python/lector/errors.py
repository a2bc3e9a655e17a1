"""The errors of the lector module: every one is a LectorError."""

__all__ = ["LectorError", "NotRunning", "NoPermission", "UntrustedServer", "ConnectionLost", "ErrorReply", "ProtocolError",
           "TimedOut"]


class LectorError(Exception):
    """Something went wrong talking to lectord."""


class NotRunning(LectorError):
    """Nothing listens on lectord's socket: lectord is not running (or runs on another
    socket). `path` is the socket tried."""

    def __init__(self, path, reason):
        self.path = path
        self.reason = reason
        super().__init__("lectord is not running: cannot connect to %s (%s); start it (lectord --demo, "
                         "systemctl start lectord) or give socket=PATH / LECTOR_SOCKET" % (path, reason))


class NoPermission(LectorError):
    """lectord's socket is there but this user may not connect to it (mode 0660: the
    user must be in the socket's group, `lector` for the system service)."""

    def __init__(self, path):
        self.path = path
        super().__init__("cannot connect to %s: permission denied (the socket is mode 0660: join its group, "
                         "e.g. sudo usermod -aG lector $USER, then log in again)" % path)


class UntrustedServer(LectorError):
    """The socket is served by another user than this one, root or `lector`: possibly
    someone impersonating lectord (the `lector` command refuses it too)."""

    def __init__(self, path, uid):
        self.path = path
        self.uid = uid
        super().__init__("refusing to talk to %s: it is served by uid %d, not by you, root or the lector user" % (path, uid))


class ConnectionLost(LectorError):
    """lectord closed the connection (it stopped, or refused this client: `reason` is
    the ERROR it sent last, when there was one)."""

    def __init__(self, reason=None):
        self.reason = reason
        super().__init__("lectord closed the connection" + (": " + reason if reason else ""))


class ErrorReply(LectorError):
    """lectord answered a request with an ERROR (an unknown device, a bad value)."""

    def __init__(self, message, request=None):
        self.message = message
        self.request = request
        super().__init__(message)


class ProtocolError(LectorError):
    """A line from lectord that is not what the protocol says (not JSON, too long, a
    message missing a member it must have)."""


class TimedOut(LectorError, TimeoutError):
    """No message from lectord within the time asked for (also a `TimeoutError`)."""
