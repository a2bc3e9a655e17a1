// LectorClient: a client of lectord's socket, shared by the `lector` command, the
// bridges (lector-mqtt, lector-http) and lector-bench.
//
// Owns the connection (`LectorConnection`: blocking line I/O with timeouts), the link
// that keeps one up (`LectordLink`: reconnects with backoff, typed requests and replies)
// and the default socket path. The `lector` command's own code lives in its executable
// target (Sources/lector). May import LectorProtocol and LectorSystem only: no
// Tesseract, V4L2 or libjpeg, so `lector` and the bridges stay small.
