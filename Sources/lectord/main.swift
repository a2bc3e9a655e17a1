import Foundation
import LectorDaemon
import LectorProtocol
import LectorRecognition
import LectorSystem

ThreadLimit.ensureSingleThreadedOpenMP()
SignalObserver.blockSignals()

if let reference = DaemonOptionTable.reference(askedBy: Array(CommandLine.arguments.dropFirst())) {
    print(reference)
    Syscalls.exit(0)
}
let commandLine: DaemonOptions
do {
    commandLine = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("lectord: \(error)\nTry 'lectord --help'.\n".utf8))
    Syscalls.exit(2)
}
if commandLine.showHelp {
    print(DaemonOptions.usage)
    Syscalls.exit(0)
}
if commandLine.showVersion {
    print("lectord \(LectorRelease.version)")
    Syscalls.exit(0)
}
// The configuration file: --config, else the default one when it exists.
let configPath = commandLine.configPath
    ?? (FileManager.default.fileExists(atPath: ConfigFile.defaultPath) ? ConfigFile.defaultPath : nil)
let options: DaemonOptions
do {
    options = try commandLine.merged(with: try configPath.map { path throws(ConfigError) in try ConfigFile.load(path: path) })
} catch let error as UsageError {
    FileHandle.standardError.write(Data("lectord: \(error)\nTry 'lectord --help'.\n".utf8))
    Syscalls.exit(2)
} catch {
    FileHandle.standardError.write(Data("lectord: \(error)\n".utf8))
    Syscalls.exit(2)
}
if options.checkConfig {
    do {
        for line in try ConfigCheck.report(options, configPath: configPath) { print(line) }
        Syscalls.exit(0)
    } catch {
        FileHandle.standardError.write(Data("lectord: \(error)\n".utf8))
        Syscalls.exit(2)
    }
}
let logger = Logger(label: "lectord", level: options.logLevel)
let status = Daemon(options: options, logger: logger, commandLine: commandLine, configPath: configPath).run()
// A recognition abandoned at its deadline may still be inside Tesseract on its own
// thread: end without the static destructors that would free Tesseract's globals under it.
// The same when the exit did not wait for a camera's thread (SIGTERM during a long frame).
if TextRecognizer.anyAbandonedRecognition || Daemon.leftThreadsRunning {
    Syscalls.exitImmediately(status)
}
Syscalls.exit(status)
