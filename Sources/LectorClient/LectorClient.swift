// LectorClient: a client of lectord's socket, and the `lector` command built on it.
//
// Owns the connection (`LectorConnection`: blocking line I/O with timeouts), the
// command's parsing, formatting and output. May import LectorProtocol and LectorSystem
// only: no Tesseract, V4L2 or libjpeg, so `lector` and the bridges stay small.
