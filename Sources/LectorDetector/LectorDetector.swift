// LectorDetector: reading detected lines.
//
// Owns the text-line detector, its layout, which line engine reads a line (LineEngine,
// LinePolicy), and the neural line recognizer: ONNX Runtime sessions (OnnxSession) with
// OpenCV imgproc around them through CTextDetector where it was built. May import
// LectorImaging, LectorEngine, LectorProtocol, LectorSystem and CTextDetector.
