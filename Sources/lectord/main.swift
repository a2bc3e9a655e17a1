import Foundation
import Lector

ThreadLimit.ensureSingleThreadedOpenMP()
SignalObserver.blockSignals()

let options: DaemonOptions
do {
    options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("lectord: \(error)\nTry 'lectord --help'.\n".utf8))
    exit(2)
}
if options.showHelp {
    print(DaemonOptions.usage)
    exit(0)
}
if options.showVersion {
    print("lectord \(Daemon.release)")
    exit(0)
}
let logger = Logger(label: "lectord", level: options.logLevel)
exit(Daemon(options: options, logger: logger).run())
