import NIOCore

extension IPAddress {
    /// The address of a connection's peer, read from the socket address's bytes (no text made
    /// and parsed again per request); nil for a Unix socket.
    init?(_ socketAddress: SocketAddress) {
        switch socketAddress {
        case .v4(let address):
            let octets = withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
            self.init(bytes: Array(repeating: 0, count: 10) + [0xFF, 0xFF] + octets)
        case .v6(let address):
            self.init(bytes: withUnsafeBytes(of: address.address.sin6_addr) { Array($0) })
        case .unixDomainSocket:
            return nil
        }
    }
}
