import NIOCore

/// The phone a scenario's request stands for, as the gateway's rate limits see it: loadgen sends
/// its address in `X-Forwarded-For`, which a gateway that trusts loadgen's own address as a
/// proxy (`TRUSTED_PROXIES`, as `make up` sets for loopback) takes for the client's.
///
/// Without it every request of a run would come from one address, and ten thousand simulated
/// students would share one student's limits.
enum SimulatedClient {
    /// The number of the client the current task acts for, if any. A number, not its address as
    /// text: the plain client writes the address's digits straight into the request.
    @TaskLocal static var number: Int?

    /// The address of the client the current task acts for, if any.
    static var address: String? { number.map(address) }

    /// The four bytes of client `number`'s address, in 198.18.0.0/15 (RFC 2544's block for
    /// benchmarks, routed nowhere; only ever written into a header).
    private static func octets(_ number: Int) -> (UInt32, UInt32, UInt32, UInt32) {
        let index = UInt32(truncatingIfNeeded: number) % (1 << 17)
        return (198, 18 + (index >> 16), (index >> 8) & 0xFF, index & 0xFF)
    }

    /// Client `number`'s address.
    static func address(_ number: Int) -> String {
        let (a, b, c, d) = octets(number)
        return "\(a).\(b).\(c).\(d)"
    }

    /// Writes client `number`'s address (as ``address(_:)`` gives it) into `buffer`.
    static func writeAddress(_ number: Int, to buffer: inout ByteBuffer) {
        let (a, b, c, d) = octets(number)
        PlainHTTPClient.writeDecimal(Int(a), to: &buffer)
        buffer.writeInteger(UInt8(ascii: "."))
        PlainHTTPClient.writeDecimal(Int(b), to: &buffer)
        buffer.writeInteger(UInt8(ascii: "."))
        PlainHTTPClient.writeDecimal(Int(c), to: &buffer)
        buffer.writeInteger(UInt8(ascii: "."))
        PlainHTTPClient.writeDecimal(Int(d), to: &buffer)
    }

    /// Runs `body` as client `number`.
    static func acting<T: Sendable>(as number: Int, _ body: () async throws -> T) async rethrows -> T {
        try await $number.withValue(number) { try await body() }
    }
}
