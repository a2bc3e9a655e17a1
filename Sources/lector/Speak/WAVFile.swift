import Foundation

/// A PCM WAV file as espeak-ng writes it: how long it plays, and cutting it short where
/// playback was interrupted (the file then holds what a listener heard).
struct WAVFile {
    let path: String
    /// Bytes per second and per sample frame, from the `fmt ` chunk.
    let bytesPerSecond: Int
    let blockAlign: Int
    /// Where the `data` chunk's size field and its samples start, and their length.
    let dataSizeOffset: Int
    let dataOffset: Int
    let dataBytes: Int

    /// Reads the header of `path`.
    init(path: String) throws(SpeakError) {
        self.path = path
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            throw .file(path: path, reason: "cannot read the WAV file")
        }
        func le(_ at: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw .file(path: path, reason: "not a WAV file")
        }
        var offset = 12
        var format: (bytesPerSecond: Int, blockAlign: Int)?
        while offset + 8 <= bytes.count {
            let size = le(offset + 4, 4)
            if bytes[offset..<offset + 4].elementsEqual("fmt ".utf8), offset + 24 <= bytes.count {
                format = (le(offset + 16, 4), le(offset + 20, 2))
            } else if bytes[offset..<offset + 4].elementsEqual("data".utf8), let format {
                bytesPerSecond = max(1, format.bytesPerSecond)
                blockAlign = max(1, format.blockAlign)
                dataSizeOffset = offset + 4
                dataOffset = offset + 8
                // espeak-ng may leave the size open when it cannot seek: the file's end says.
                dataBytes = min(size, bytes.count - dataOffset)
                return
            }
            offset += 8 + size + (size & 1)
        }
        throw .file(path: path, reason: "a WAV file without fmt and data chunks")
    }

    /// How long the samples play, in seconds.
    var seconds: Double { Double(dataBytes) / Double(bytesPerSecond) }

    /// Keeps the first `seconds` of the samples (whole sample frames) and fixes the
    /// RIFF and data sizes.
    func truncate(toSeconds seconds: Double) throws(SpeakError) {
        let keep = min(dataBytes, Int(max(0, seconds) * Double(bytesPerSecond)) / blockAlign * blockAlign)
        guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            throw .file(path: path, reason: "cannot read the WAV file")
        }
        bytes.removeSubrange((dataOffset + keep)...)
        func put(_ value: Int, at: Int) { for index in 0..<4 { bytes[at + index] = UInt8((value >> (8 * index)) & 0xFF) } }
        put(bytes.count - 8, at: 4)
        put(keep, at: dataSizeOffset)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw .file(path: path, reason: "cannot write the WAV file")
        }
    }
}
