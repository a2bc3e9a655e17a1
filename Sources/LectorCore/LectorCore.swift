// LectorCore: the daemon's core, along the data flow.
//
// Capture (V4L2 devices, replay and demo sources) → Mailbox (the latest-frame slot) →
// Imaging (luma, orientation) → Recognition (Tesseract, whole frame or per zone) → Pipeline
// (cameras, counters, reports) → Rules (MATCH, hooks) → Server (the Unix socket) and Systemd (notify, watchdog), wired together by
// Daemon (options, configuration, signals). May import LectorProtocol, LectorSystem and
// the C targets CTesseract, CJPEG, CV4L2 and CFrameKernels (the live stack's pixel loops,
// called from Live/FrameKernels.swift alone), and CLibCamera (libcamera; a target only
// where libcamera >= 0.4 is found, imported by Capture/Libcamera/LibcameraCamera.swift
// alone); nothing imports it but the executables
// lectord and lector-bench, and the tests.
