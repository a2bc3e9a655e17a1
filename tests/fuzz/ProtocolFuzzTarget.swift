// The protocol fuzz target: feeds one input to the request parser and to the
// server-message decoders of LectorProtocol, linked through SwiftPM (the `lector-fuzz`
// product). tests/fuzz/run builds it with -sanitize=fuzzer,address and
// -DFUZZING: SwiftPM calls an executable's entry point `lector_fuzz_main`, which then
// hands over to libFuzzer's driver. A plain build (swift build) gets a `main` that
// replays input files instead: `lector-fuzz FILE...`.
import LectorProtocol

/// One input: a request line and a server line. Whatever decodes must encode, and what
/// it encodes to must decode again to the same value (the encoder normalises numbers to
/// three decimals, so the check is on the second round).
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    do {
        let request = try Request.parse(bytes)
        // A parsed WATCH must apply cleanly too; a parsed request must re-encode to itself.
        if case let .watch(watch) = request { _ = watch.applied(to: WatchSettings()) }
        // The encoder writes numbers with at most three decimals (min_confidence
        // 0.2544 goes out as 0.254), so the check is on the second round, as below.
        let second = try Request.parse(request.bytes)
        guard (try? Request.parse(second.bytes)) == second else { fatalError("request does not round-trip: \(second)") }
    } catch {
        _ = error.message
    }
    do {
        let first = try ServerMessage(line: bytes)
        let second = try ServerMessage(line: JSONWriter.bytes(first.json))
        let third = try ServerMessage(line: JSONWriter.bytes(second.json))
        guard second == third else { fatalError("server message does not round-trip: \(second) vs \(third)") }
    } catch {
        _ = error.description
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func lectorFuzzProtocol(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if FUZZING
/// libFuzzer's driver (its own `main` is not linked: SwiftPM defines `main` as ours).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@_cdecl("lector_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return lectorFuzzProtocol(data, size)
    }
}
#else
import Foundation

@main
enum FuzzReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
            [UInt8](data).withUnsafeBufferPointer { fuzzOne($0) }
            print("\(path): ok")
        }
    }
}
#endif
