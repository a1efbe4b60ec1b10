/// The phone a scenario's request stands for, as the gateway's rate limits see it: loadgen sends
/// its address in `X-Forwarded-For`, which a gateway that trusts loadgen's own address as a
/// proxy (`TRUSTED_PROXIES`, as `make up` sets for loopback) takes for the client's.
///
/// Without it every request of a run would come from one address, and ten thousand simulated
/// students would share one student's limits.
enum SimulatedClient {
    /// The address of the client the current task acts for, if any.
    @TaskLocal static var address: String?

    /// Client `number`'s address, in 198.18.0.0/15 (RFC 2544's block for benchmarks, routed
    /// nowhere; only ever written into a header).
    static func address(_ number: Int) -> String {
        let index = UInt32(truncatingIfNeeded: number) % (1 << 17)
        return "198.\(18 + (index >> 16)).\((index >> 8) & 0xFF).\(index & 0xFF)"
    }

    /// Runs `body` as client `number`.
    static func acting<T: Sendable>(as number: Int, _ body: () async throws -> T) async rethrows -> T {
        try await $address.withValue(address(number)) { try await body() }
    }
}
