// libFuzzer entry point for the request parser. Built by scripts/fuzz-requests from
// this file and the few protocol sources the parser needs, with -sanitize=fuzzer,address.

@_cdecl("LLVMFuzzerTestOneInput")
public func lectorFuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    do {
        let request = try Request.parse(bytes)
        // A parsed WATCH must apply cleanly too.
        if case let .watch(watch) = request { _ = watch.applied(to: WatchSettings()) }
    } catch {
        _ = error.message
    }
    return 0
}
