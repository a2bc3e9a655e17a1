import Glibc

extension Syscalls {
    /// The address family of a numeric IPv4 or IPv6 host, or nil when it is neither.
    /// The corresponding C function is `inet_pton`.
    public static func internetFamily(of host: String) -> Int32? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return AF_INET }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return AF_INET6 }
        return nil
    }

    /// A bound, listening, close-on-exec TCP socket on a numeric `host` and `port`
    /// (SO_REUSEADDR; an IPv6 one is IPv6 only). The caller owns it.
    /// The corresponding C functions are `socket`, `setsockopt`, `bind` and `listen`.
    public static func tcpListener(host: String, port: Int, backlog: Int32) throws(SystemError) -> Int32 {
        guard let family = internetFamily(of: host), (1...65535).contains(port) else {
            throw SystemError(errno: EINVAL, call: "inet_pton")
        }
        let descriptor = Int32(try retrying("socket", -1) {
            Int(socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0))
        })
        do {
            var one: Int32 = 1
            _ = try retrying("setsockopt", descriptor) {
                Int(setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)))
            }
            if family == AF_INET {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                _ = inet_pton(AF_INET, host, &address.sin_addr)
                _ = try retrying("bind", descriptor) {
                    Int(withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    })
                }
            } else {
                _ = try retrying("setsockopt", descriptor) {
                    Int(setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)))
                }
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(port).bigEndian)
                _ = inet_pton(AF_INET6, host, &address.sin6_addr)
                _ = try retrying("bind", descriptor) {
                    Int(withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
                    })
                }
            }
            try listen(descriptor, backlog: backlog)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }
}
