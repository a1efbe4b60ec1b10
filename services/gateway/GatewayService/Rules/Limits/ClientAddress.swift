import Foundation
import Glibc

/// An IPv4 or IPv6 address as 16 bytes (IPv4 as an IPv4-mapped IPv6 address), parsed with
/// `inet_pton`, so that `::ffff:192.0.2.1` and `192.0.2.1` are one client.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The high and low 64 bits, network order.
    public let high: UInt64
    public let low: UInt64

    /// Whether this is an IPv4 address (IPv4-mapped).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// Parses a textual address (IPv6 may come in brackets, with or without a port after them;
    /// IPv4 may carry a `:port`); nil for anything else.
    ///
    /// Read as bytes and handed to `inet_pton` from the stack: every request behind a proxy
    /// parses its `X-Forwarded-For`, and doing it with `String` copies and Foundation's trimming
    /// was 3% of the gateway's CPU under NavUP's load.
    public init?(_ text: some StringProtocol) {
        var view = Substring(text).utf8[...]
        while let first = view.first, first == 32 || first == 9 { view.removeFirst() }
        while let last = view.last, last == 32 || last == 9 { view.removeLast() }
        if view.first == UInt8(ascii: "["), let close = view.firstIndex(of: UInt8(ascii: "]")) {
            view = view[view.index(after: view.startIndex)..<close]
        } else if let colon = view.firstIndex(of: UInt8(ascii: ":")),
            !view[view.index(after: colon)...].contains(UInt8(ascii: ":"))
        {
            view = view[..<colon]  // one colon: IPv4 with a port
        }
        if let zone = view.firstIndex(of: UInt8(ascii: "%")) { view = view[..<zone] }
        guard !view.isEmpty, view.count <= 64 else { return nil }
        let parsed = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 65) { text -> IPAddress? in
            var length = 0
            for byte in view {
                // Printable ASCII only: a control byte (a NUL would end the C string early) or
                // anything beyond ASCII is not part of an address.
                guard byte > 32 && byte < 127 else { return nil }
                text[length] = CChar(bitPattern: byte)
                length += 1
            }
            text[length] = 0
            var v6 = in6_addr()
            if inet_pton(AF_INET6, text.baseAddress!, &v6) == 1 { return IPAddress(v6) }
            var v4 = in_addr()
            guard inet_pton(AF_INET, text.baseAddress!, &v4) == 1 else { return nil }
            return IPAddress(v4)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// An IPv6 address as the kernel holds it (network order).
    init(_ address: in6_addr) {
        var address = address
        let (high, low) = withUnsafeBytes(of: &address) { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
        self.init(high: high, low: low)
    }

    /// An IPv4 address as the kernel holds it, as its IPv4-mapped IPv6 form.
    init(_ address: in_addr) {
        self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: address.s_addr)))
    }

    /// The first `bits` bits of the address, the rest zero (bits counted on the IPv6 form).
    func masked(to bits: Int) -> IPAddress {
        let bits = min(max(bits, 0), 128)
        let highMask: UInt64 = bits >= 64 ? .max : (bits == 0 ? 0 : ~(UInt64.max >> bits))
        let lowMask: UInt64 = bits <= 64 ? 0 : (bits == 128 ? .max : ~(UInt64.max >> (bits - 64)))
        return IPAddress(high: high & highMask, low: low & lowMask)
    }

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The key a rate limit counts under: the address itself for IPv4, its /64 network for IPv6
    /// (one subscriber usually holds a whole /64, so counting single IPv6 addresses would let a
    /// client rotate through billions of them).
    public var limitKey: IPAddress { isIPv4 ? self : masked(to: 64) }

    public var description: String {
        if isIPv4 {
            let value = UInt32(truncatingIfNeeded: low)
            return [24, 16, 8, 0].map { String((value >> UInt32($0)) & 0xFF) }.joined(separator: ".")
        }
        var groups: [String] = []
        for half in [high, low] {
            for shift in stride(from: 48, through: 0, by: -16) {
                groups.append(String((half >> UInt64(shift)) & 0xFFFF, radix: 16))
            }
        }
        return groups.joined(separator: ":")
    }
}

/// A block of addresses, `192.0.2.0/24` or `2001:db8::/32` (a bare address is a block of one).
public struct IPBlock: Sendable, Equatable, CustomStringConvertible {
    /// The block's first address.
    public let network: IPAddress
    /// Prefix length on the IPv6 form (an IPv4 /24 is 96 + 24).
    public let bits: Int

    /// Parses `ADDRESS[/BITS]`; nil when it is not one.
    public init?(_ text: some StringProtocol) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/")
        guard (1...2).contains(parts.count), let address = IPAddress(parts[0]) else { return nil }
        let maximum = address.isIPv4 ? 32 : 128
        var bits = maximum
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...maximum).contains(given) else { return nil }
            bits = given
        }
        self.bits = address.isIPv4 ? 96 + bits : bits
        network = address.masked(to: self.bits)
    }

    /// Whether `address` is in the block.
    public func contains(_ address: IPAddress) -> Bool { address.masked(to: bits) == network }

    public var description: String { "\(network)/\(network.isIPv4 ? bits - 96 : bits)" }
}

/// Who the client is, for rate limits: the connection's peer, or, when that peer is a trusted
/// proxy, the address the proxies say they were called from.
public struct ClientAddressResolver: Sendable {
    /// The proxies whose `X-Forwarded-For` is believed.
    public let trustedProxies: [IPBlock]

    /// A resolver that believes the proxies in `trustedProxies` (none: the peer is the client).
    public init(trustedProxies: [IPBlock]) {
        self.trustedProxies = trustedProxies
    }

    /// The client behind a request from `peer` carrying these `X-Forwarded-For` header values.
    ///
    /// Each proxy appends the address it was called from, so the list reads client first, nearest
    /// proxy last. Only the entries a trusted proxy wrote can be believed: walking from the
    /// right, every trusted proxy is stepped over, and the first address that is not a trusted
    /// proxy is the client. Everything to the left of it was written by that client and may be
    /// made up. A malformed entry stops the walk there (the last address believed is the
    /// client), so garbage cannot make one client look like many.
    public func client(peer: IPAddress?, forwardedFor: [String]) -> IPAddress? {
        guard let peer else { return nil }
        guard isTrusted(peer), !forwardedFor.isEmpty else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
        var client = peer
        for hop in hops.reversed() {
            guard let address = IPAddress(hop) else { return client }
            client = address
            if !isTrusted(address) { return address }
        }
        return client
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// Parses a comma-separated list of blocks (empty: none).
    public static func parseBlocks(_ text: String) -> [IPBlock]? {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let blocks = items.compactMap(IPBlock.init)
        return blocks.count == items.count ? blocks : nil
    }
}
