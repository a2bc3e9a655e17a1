// LectorSystem: the seam between Lector and the operating system.
//
// Owns every call into the C library that Lector's Swift code makes (`Syscalls` and the
// few wrappers beside it: sockets, poll, files, signals, processes, clocks), the typed
// `SystemError`, logging (`Logger`), monotonic time, the stop signal shared by threads,
// the bounded work queue served by a thread of its own, command-line scanning and the
// default socket path. May import only Glibc, Foundation,
// Synchronization and its C shim `CLectorSystem`; every other Lector target may import it.
