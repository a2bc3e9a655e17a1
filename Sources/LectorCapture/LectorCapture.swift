// LectorCapture: where frames come from, and the slot they wait in.
//
// Owns the source contract (FrameSource delivers to a FrameSink), the one reconnecting
// capture loop of cameras (CaptureLoop over a CaptureDevice, the frame check), the V4L2
// capture (V4L2/: device, session, buffers, format negotiation, the syscall seam of the
// driver), libcamera's native source (Libcamera/, only where libcamera >= 0.4 is found),
// network cameras through FFmpeg (Network/: RTSP, HTTP MJPEG and snapshots, a reader
// thread per stream; NetworkInput is the one Swift file that calls CFFmpeg) — all three
// implement CaptureDevice and use the top folder, never the reverse — replay and the
// bundled demo (Replay/), --record (Record/) and the latest-frame mailbox (Mailbox/).
// May import LectorImaging, LectorProtocol, LectorSystem, CV4L2, CFFmpeg and CLibCamera.
