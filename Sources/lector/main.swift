import LectorClient
import LectorSystem

Syscalls.exit(LectorCommand.main(Array(CommandLine.arguments.dropFirst())))
