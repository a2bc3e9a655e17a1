import Foundation
import LectorHTTP
import LectorProtocol
import LectorSystem

if let reference = HTTPOptionTable.reference(askedBy: Array(CommandLine.arguments.dropFirst())) {
    print(reference)
    Syscalls.exit(0)
}
let options: HTTPOptions
let auth: BasicAuth?
do {
    options = try HTTPOptions.parse(Array(CommandLine.arguments.dropFirst()))
    if options.help {
        print(HTTPOptions.usage, terminator: "")
        Syscalls.exit(0)
    }
    if options.version {
        print("lector-http \(LectorRelease.version)")
        Syscalls.exit(0)
    }
    auth = try options.authentication()
} catch {
    FileHandle.standardError.write(Data("lector-http: \(error)\nTry 'lector-http --help'.\n".utf8))
    Syscalls.exit(2)
}
let logger = Logger(label: "lector-http", level: options.logLevel)

// Signals are taken by sigwait on the main thread: block them before any thread starts.
let signals = [SIGTERM, SIGINT, SIGHUP]
Syscalls.blockSignals(signals)
Syscalls.ignoreBrokenPipeSignal()

// 500 idle connections need 500 descriptors: raise the soft limit toward the hard one.
Syscalls.raiseDescriptorLimit(to: max(4096, options.maximumConnections * 2 + 64))

let files: StaticFiles
do {
    guard let directory = options.pageDirectory ?? StaticFiles.standardDirectory(executable: CommandLine.arguments[0]) else {
        throw UsageError("cannot find the page's files: give --www DIR")
    }
    files = try StaticFiles(directory: directory)
} catch {
    logger.error("\(error)")
    Syscalls.exit(1)
}

let socketPath = options.lectordSocket()
let stop = StopSignal()
let link = LectordRequests(socketPath: socketPath)
let events = EventHub(socketPath: socketPath, logger: logger)
// Previews have a link of their own: their SNAPSHOTs never hold up an API call's.
let previews = PreviewHub(link: LectordRequests(socketPath: socketPath), events: events, fps: options.previewFPS, logger: logger)
let router = BridgeRouter(link: link, events: events, previews: previews, files: files, auth: auth, hosts: options.hosts, logger: logger)

let server: HTTPServer
do {
    let descriptor = try options.listen.listeningSocket()
    var settings = HTTPServer.Settings()
    settings.connectionLimit = options.maximumConnections
    settings.perAddressLimit = options.maximumConnectionsPerAddress
    settings.idleTimeout = options.idleTimeout
    server = try HTTPServer(listeningDescriptor: descriptor, settings: settings) { router.respond($0) }
} catch {
    logger.error("cannot listen on \(options.listen): \(error)")
    Syscalls.exit(1)
}
let eventThread = Thread { events.run(stop: stop) }
eventThread.name = "lector-http-events"
eventThread.start()
logger.notice("serving", [("listen", options.listen.description), ("socket", socketPath), ("auth", auth == nil ? "none (--no-auth)" : "basic"),
                          ("allowed_hosts", (["numeric addresses", "localhost"] + options.allowedHosts).joined(separator: ","))])

var received: Int32
repeat {
    received = Syscalls.waitForSignal(signals)
} while received == SIGHUP
logger.notice("stopping", [("signal", received == SIGTERM ? "TERM" : "INT")])
stop.raise()
if case let .unix(path) = options.listen { try? Syscalls.unlink(path) }
Syscalls.exit(0)
