// LectorRecognition: reading an image.
//
// Owns the engines (Engine/: Tesseract through CTesseract, run on a thread of its own
// that a deadline can leave; greedy CTC decoding; the result tree; what a read is told
// of the scene), what reads detected lines (Detector/: the text-line detector, its
// layout, which line engine reads a line (LineEngine, LinePolicy), and the neural line
// recognizer, ONNX Runtime sessions (OnnxSession) with OpenCV imgproc around them through
// CTextDetector where it was built), and what composes
// them (TextRecognizer, its options and layouts, zones, the orientation check, the
// recognizer pool), and QR codes and barcodes (Codes/: CodeReader, ZXing-C++ through
// CZXing where it was built). May import LectorImaging, LectorProtocol, LectorSystem,
// CTesseract, CTextDetector and CZXing.
