// LectorProtocol: the line-delimited JSON protocol both ends of lectord's socket share.
//
// Owns JSON (value, parser, writer, Base64), every request and server message with its
// encoder and decoder, the recognized-text tree (blocks, lines, words, symbols, boxes),
// device information and orientation settings. Pure Swift: it may import nothing of
// Lector's and no C library, so a client, a bridge or a fuzzer can link it alone.
