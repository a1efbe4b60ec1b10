import Contract
import NIOCore
import NIOPosix
import NIOSSL

/// `GET path` over TLS to the gateway's own listener, for `--probe` when it serves HTTPS. The
/// certificate is not verified: the probe asks whether this process answers, on this machine,
/// not whether a client would trust its certificate.
enum TLSProbe {
    static func status(host: String, port: Int, path: String, timeoutSeconds: Int64 = 3) async throws -> Int {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(timeoutSeconds))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        try NIOSSLClientHandler(context: context, serverHostname: nil))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let head = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(
                ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"))
            var received = ByteBuffer()
            for try await chunk in inbound {
                received.writeImmutableBuffer(chunk)
                if received.readableBytes >= 12 { break }
            }
            return String(buffer: received)
        }
        let parts = head.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw ServiceError(.unavailable, "no HTTPS answer from \(host):\(port)")
        }
        return status
    }
}
