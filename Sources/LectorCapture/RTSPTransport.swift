/// How RTSP carries a network camera's video (`--rtsp-transport`): interleaved in the
/// TCP connection (the default: nothing lost on Wi-Fi), or as UDP packets.
public enum RTSPTransport: String, Sendable, CaseIterable {
    case tcp, udp
}
