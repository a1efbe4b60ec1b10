import NIOCore

extension IPAddress {
    /// The address of a connection's peer, read from the socket address's bytes (no text made
    /// and parsed again per request); nil for a Unix socket.
    init?(_ socketAddress: SocketAddress) {
        switch socketAddress {
        case .v4(let address):
            self.init(address.address.sin_addr)
        case .v6(let address):
            self.init(address.address.sin6_addr)
        case .unixDomainSocket:
            return nil
        }
    }
}
