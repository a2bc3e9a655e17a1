// LectorServer: what the daemon serves.
//
// Owns the Unix socket server (listening socket, client connections and their bounded
// queues, requests, replies, snapshots) and the systemd service (Systemd/: notify,
// watchdog, honest camera health). May import LectorImaging, LectorPipeline,
// LectorProtocol and LectorSystem.
