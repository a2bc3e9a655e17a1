// LectorRecognition: reading an image.
//
// Composes the engines (LectorEngine) and the detected lines' reader (LectorDetector):
// TextRecognizer, its options and layouts, zones, the orientation check, the language
// evidence, the recognizer pool. May import LectorImaging, LectorEngine, LectorDetector,
// LectorProtocol and LectorSystem.
