/// What SIGHUP does with a configuration read again: the options that change are
/// sorted by ``DaemonOptionTable`` into those applied at once and those that need a
/// restart; ``effective`` is what runs afterwards (new values of the first, old values
/// of the second, so the next SIGHUP still reports them).
public struct ReloadPlan: Equatable, Sendable {
    /// The options in force after the reload.
    public var effective: DaemonOptions
    /// Changed keys applied now (`max_clients`, `/dev/video0: lang`).
    public var applied: [String] = []
    /// Changed keys that take effect only after a restart (`socket`, `cameras`).
    public var needsRestart: [String] = []

    /// - Parameters:
    ///   - current: the options in force.
    ///   - reloaded: the command line merged with the file as it is now.
    public init(current: DaemonOptions, reloaded: DaemonOptions) {
        effective = current
        for option in DaemonOptionTable.options {
            guard case let .daemon(access) = option.target, let key = option.key,
                  access.describe(current) != access.describe(reloaded) else { continue }
            if option.reload == .live {
                access.copy(&effective, reloaded)
                applied.append(key)
            } else {
                needsRestart.append(key)
            }
        }
        if reloaded.cameras.map(\.name) != current.cameras.map(\.name) { needsRestart.append("cameras") }
        for (index, camera) in current.cameras.enumerated() {
            // A camera renamed (same source) is the same camera whose name needs a restart.
            guard let new = reloaded.cameras.first(where: { $0.name == camera.name })
                ?? reloaded.cameras.first(where: { $0.sourceName == camera.sourceName && $0.label != camera.label }) else { continue }
            let old = CameraSettings(camera), updated = CameraSettings(new)
            var kept = old
            for option in DaemonOptionTable.options {
                guard case let .camera(access) = option.target, let key = option.key,
                      access.describe(old) != access.describe(updated) else { continue }
                if option.reload == .live {
                    access.copy(&kept, updated)
                    applied.append("\(camera.name): \(key)")
                } else {
                    needsRestart.append("\(camera.name): \(key)")
                }
            }
            var spec = kept.spec
            spec.source = camera.source
            if new.rules != camera.rules {
                spec.rules = new.rules
                applied.append("\(camera.name): rules")
            }
            effective.cameras[index] = spec
        }
    }
}
