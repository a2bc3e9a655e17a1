// lector: the command-line client of lectord (watch, devices, status, poll, snapshot,
// orientation). Its parsing, formatting and output live in this target; the connection
// it shares with the bridges is LectorClient's.
import LectorSystem

Syscalls.exit(LectorCommand.main(Array(CommandLine.arguments.dropFirst())))
