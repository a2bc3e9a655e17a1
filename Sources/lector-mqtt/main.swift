import Foundation
import LectorProtocol
import LectorSystem
import LectorMQTT

Bridge.prepareProcess()

func fail(_ message: String, hint: Bool) -> Never {
    FileHandle.standardError.write(Data("lector-mqtt: \(message)\n\(hint ? "Try 'lector-mqtt --help'.\n" : "")".utf8))
    Syscalls.exit(2)
}

if let reference = BridgeOptionTable.reference(askedBy: Array(CommandLine.arguments.dropFirst())) {
    print(reference)
    Syscalls.exit(0)
}
let commandLine: BridgeOptions
do {
    commandLine = try BridgeOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)", hint: true)
}
if commandLine.showHelp {
    print(BridgeOptions.usage)
    Syscalls.exit(0)
}
if commandLine.showVersion {
    print("lector-mqtt \(LectorRelease.version)")
    Syscalls.exit(0)
}
// The configuration file: --config, else the default one when it exists; flags override it.
let configPath = commandLine.configPath
    ?? (FileManager.default.fileExists(atPath: BridgeConfigFile.defaultPath) ? BridgeConfigFile.defaultPath : nil)
var settings = BridgeSettings()
if let configPath {
    do { settings = try BridgeConfigFile.load(path: configPath) } catch { fail("\(error)", hint: false) }
}
let configuration: BridgeConfiguration
do {
    configuration = try BridgeConfiguration(settings.overriding(commandLine.settings), machineName: Bridge.machineName())
} catch {
    fail("\(error)", hint: false)
}
let logger = Logger(label: "lector-mqtt", level: configuration.logLevel)
Syscalls.exit(Bridge(configuration: configuration, logger: logger).run())
