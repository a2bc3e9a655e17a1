// LectorEngine: the engines that read an image.
//
// Owns Tesseract through CTesseract, run on a thread of its own that a deadline can leave
// (TesseractEngine, EngineThread, IsolatedRecognizer), greedy CTC decoding, the result
// tree, and what a read is told of the scene (SceneHint, ReadSettings). May import
// LectorImaging, LectorProtocol, LectorSystem and CTesseract.
