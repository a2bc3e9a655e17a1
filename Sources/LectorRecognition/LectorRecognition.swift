// LectorRecognition: reading an image.
//
// Composes the engines (LectorEngine) and the detected lines' reader (LectorDetector):
// TextRecognizer, its options and layouts, zones, the orientation check, the language
// evidence, the recognizer pool, and QR codes and barcodes (Codes/: CodeReader,
// ZXing-C++ through CZXing where it was built). May import LectorImaging, LectorEngine,
// LectorDetector, LectorProtocol, LectorSystem and CZXing.
