// lector: the command-line client of lectord (watch, devices, status, poll, snapshot,
// orientation, speak). Its parsing, formatting and output live in this target's top
// folder; `lector speak` (what to say when, espeak-ng, WAV files) in Speak/, which uses
// nothing of the top folder; the connection it shares with the bridges is LectorClient's.
import LectorSystem

Syscalls.exit(LectorCommand.main(Array(CommandLine.arguments.dropFirst())))
