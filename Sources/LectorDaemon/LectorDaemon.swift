// LectorDaemon: the daemon's wiring, the last stage of the flow.
//
// The flow, one target a stage: LectorImaging (frames, luma, orientation) → LectorCapture
// (sources, the mailbox) → LectorLive (stacks, tracks, votes) and LectorRecognition
// (engines, detector) → LectorPipeline (cameras, the recognition loop, rules) →
// LectorServer (the socket, systemd) → LectorDaemon. Owns the options (Options/:
// lectord's table on LectorOptions' mechanism, the settings it fills, the configuration
// file and its zone and rule sections, what a reload may change), the configuration
// check, the source factory, signals and the run. May import every target above,
// LectorOptions, LectorProtocol and LectorSystem; nothing imports it but the executables
// lectord and lector-bench, and the tests.
