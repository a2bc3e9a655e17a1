"""Where lectord's socket is when nobody names it: the same rule as the `lector`
command (Sources/LectorClient/LectordSocket.swift, Sources/LectorSystem/SocketPath.swift)."""
import os

__all__ = ["default_socket_path", "SYSTEM_SOCKET"]

#: The socket of the system service (systemd/lectord.service).
SYSTEM_SOCKET = "/run/lector/lector.sock"


def default_socket_path(environ=None, uid=None):
    """`$LECTOR_SOCKET`, else /run/lector/lector.sock when it exists (the system
    service), else where a user's lectord listens by default: `$RUNTIME_DIRECTORY/lector.sock`
    (under systemd), /run/lector/lector.sock for root, `$XDG_RUNTIME_DIR/lector.sock`,
    else /tmp/lector-UID/lector.sock."""
    environ = os.environ if environ is None else environ
    uid = os.getuid() if uid is None else uid
    if environ.get("LECTOR_SOCKET"):
        return environ["LECTOR_SOCKET"]
    if os.path.exists(SYSTEM_SOCKET):
        return SYSTEM_SOCKET
    if environ.get("RUNTIME_DIRECTORY"):
        return environ["RUNTIME_DIRECTORY"].split(":")[0] + "/lector.sock"
    if uid == 0:
        return SYSTEM_SOCKET
    if environ.get("XDG_RUNTIME_DIR"):
        return environ["XDG_RUNTIME_DIR"] + "/lector.sock"
    return "/tmp/lector-%d/lector.sock" % uid
