import NIOCore
import Testing

@testable import GatewayService

/// Who the client is: addresses, blocks, and `X-Forwarded-For` as a spoofer would write it.
@Suite("gateway: client addresses")
struct ClientAddressTests {
    @Test("IPv4, IPv6, IPv4-mapped IPv6, ports and brackets parse; garbage does not")
    func addresses() throws {
        #expect(IPAddress("192.0.2.7")?.description == "192.0.2.7")
        #expect(IPAddress("192.0.2.7:5555") == IPAddress("192.0.2.7"))
        #expect(IPAddress("::ffff:192.0.2.7") == IPAddress("192.0.2.7"))
        #expect(IPAddress("[2001:db8::1]:443") == IPAddress("2001:db8::1"))
        #expect(IPAddress("fe80::1%eth0") == IPAddress("fe80::1"))
        #expect(IPAddress("2001:db8::1")?.isIPv4 == false)
        // Blanks around an entry (an X-Forwarded-For list is "a, b"), and the exact bits.
        #expect(IPAddress(" \t198.18.1.2 ")?.description == "198.18.1.2")
        #expect(IPAddress("2001:db8:0:0:1:0:0:ff")?.description == "2001:db8:0:0:1:0:0:ff")
        #expect(IPAddress("[::1]") == IPAddress("::1"))
        #expect(IPAddress("::1")?.isIPv4 == false)
        for bad in [
            "", " ", "unknown", "300.1.1.1", "1.2.3", "2001:db8::1::2", "<script>", String(repeating: "1", count: 100),
            "[2001:db8::1", "1.2.3.4:80:90", "1.2.3.4\u{0}", "1.2.3.4\u{0}junk", "１.2.3.4", "1.2.3.4 5",
        ] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
    }

    @Test("a connection's peer read from its socket address is the address its text names")
    func peers() throws {
        for text in ["192.0.2.7", "2001:db8::1", "::1", "127.0.0.1"] {
            let socket = try SocketAddress(ipAddress: text, port: 443)
            #expect(IPAddress(socket) == IPAddress(text), "\(text)")
        }
        #expect(IPAddress(try SocketAddress(unixDomainSocketPath: "/tmp/gateway.sock")) == nil)
    }

    @Test("IPv6 clients are counted by their /64; IPv4 clients one by one")
    func limitKeys() throws {
        let a = try #require(IPAddress("2001:db8:1:2:aaaa::1"))
        let b = try #require(IPAddress("2001:db8:1:2:bbbb::9"))
        let c = try #require(IPAddress("2001:db8:1:3::1"))
        #expect(a.limitKey == b.limitKey)
        #expect(a.limitKey != c.limitKey)
        #expect(IPAddress("192.0.2.1")!.limitKey != IPAddress("192.0.2.2")!.limitKey)
    }

    @Test("blocks contain what they should")
    func blocks() throws {
        let v4 = try #require(IPBlock("10.1.0.0/16"))
        #expect(v4.contains(IPAddress("10.1.255.3")!))
        #expect(!v4.contains(IPAddress("10.2.0.1")!))
        #expect(v4.description == "10.1.0.0/16")
        let v6 = try #require(IPBlock("2001:db8::/32"))
        #expect(v6.contains(IPAddress("2001:db8:ffff::1")!))
        #expect(!v6.contains(IPAddress("2001:db9::1")!))
        #expect(!v6.contains(IPAddress("10.1.0.1")!))
        #expect(IPBlock("127.0.0.1")!.contains(IPAddress("127.0.0.1")!))
        #expect(IPBlock("10.0.0.0/33") == nil)
        #expect(IPBlock("nonsense/8") == nil)
        #expect(ClientAddressResolver.parseBlocks("") == [])
        #expect(ClientAddressResolver.parseBlocks("10.0.0.0/8, ::1")?.count == 2)
        #expect(ClientAddressResolver.parseBlocks("10.0.0.0/8,nope") == nil)
    }

    static let proxy = IPAddress("10.0.0.5")
    static let resolver = ClientAddressResolver(trustedProxies: [IPBlock("10.0.0.0/8")!])

    @Test("without trusted proxies, X-Forwarded-For is ignored: the peer is the client")
    func untrustedPeer() {
        let resolver = ClientAddressResolver(trustedProxies: [])
        let peer = IPAddress("203.0.113.9")
        #expect(resolver.client(peer: peer, forwardedFor: ["198.51.100.1"]) == peer)
        // A trusted-looking header from an untrusted peer changes nothing either.
        #expect(Self.resolver.client(peer: peer, forwardedFor: ["10.0.0.1", "198.51.100.1"]) == peer)
    }

    @Test("behind a trusted proxy, the right-most address that is not a trusted proxy is the client")
    func behindProxies() {
        #expect(Self.resolver.client(peer: Self.proxy, forwardedFor: ["203.0.113.9"]) == IPAddress("203.0.113.9"))
        // Two trusted hops.
        #expect(
            Self.resolver.client(peer: Self.proxy, forwardedFor: ["203.0.113.9, 10.0.0.7"]) == IPAddress("203.0.113.9"))
        // No header: the proxy itself is all we know.
        #expect(Self.resolver.client(peer: Self.proxy, forwardedFor: []) == Self.proxy)
    }

    @Test("spoofing: addresses the client wrote before its own are not believed")
    func spoofing() {
        // The client sends "X-Forwarded-For: 1.2.3.4"; the proxy appends the real address.
        #expect(
            Self.resolver.client(peer: Self.proxy, forwardedFor: ["1.2.3.4, 203.0.113.9"]) == IPAddress("203.0.113.9"))
        // The same, with the forged value in a header line of its own.
        #expect(
            Self.resolver.client(peer: Self.proxy, forwardedFor: ["1.2.3.4", "203.0.113.9"]) == IPAddress("203.0.113.9")
        )
        // Pretending to be a trusted proxy only hides behind the real client address.
        #expect(
            Self.resolver.client(peer: Self.proxy, forwardedFor: ["10.9.9.9, 203.0.113.9, 10.0.0.7"])
                == IPAddress("203.0.113.9"))
        // Rotating a forged left-most address does not make one client many.
        let seen = Set(
            (0..<50).compactMap {
                Self.resolver.client(peer: Self.proxy, forwardedFor: ["198.51.100.\($0), 203.0.113.9"])
            })
        #expect(seen == [IPAddress("203.0.113.9")!])
        // Garbage stops the walk at the last believed address.
        #expect(Self.resolver.client(peer: Self.proxy, forwardedFor: ["203.0.113.9, nonsense"]) == Self.proxy)
        #expect(Self.resolver.client(peer: nil, forwardedFor: ["203.0.113.9"]) == nil)
    }
}
