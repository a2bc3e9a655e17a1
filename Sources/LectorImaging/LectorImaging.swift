// LectorImaging: frames and images, the first stage of the daemon's flow.
//
// Owns what a frame is (Frame, FrameBuffer, PixelFormat, the limits on sizes), turning
// any pixel format into luma (LumaExtractor, JPEG through CJPEG, image files through
// Leptonica), orientation transforms, and the per-frame measures later stages read
// (focus, luma profiles and the shift between frames, scene signatures, the colour
// preview's copy of a captured frame, what a stacked frame carries). The pixel loops are
// C (CFrameKernels, called from FrameKernels.swift alone).
// May import LectorProtocol, LectorSystem, CJPEG, CV4L2 (fourccs), CTesseract (Leptonica's
// image reading) and CFrameKernels; no other Lector target.
