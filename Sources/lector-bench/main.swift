// lector-bench: measures Lector against a raw Tesseract C-API loop, pytesseract, and its
// own targets (issue 6). Prints a table; `--json FILE` writes every number.
import CBenchReference
import Foundation
import LectorClient
import LectorDaemon
import LectorProtocol
import LectorSystem

// Tesseract's OpenMP threads make it 3.5-5x slower on small machines; the OpenMP runtime
// reads OMP_THREAD_LIMIT only when it loads, so set it and execute again, as lectord does.
ThreadLimit.ensureSingleThreadedOpenMP()
bench_line_buffer_stdout()  // rows appear as they are measured, also in a log file

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("lector-bench: \(error)\n\(BenchOptions.usage)\n".utf8))
    exit(2)
}
if options.showHelp {
    print(BenchOptions.usage)
    exit(0)
}
exit(Benchmark(options: options).run())
