import Testing

@testable import LoadgenKit

@Suite("loadgen: the gateway's address")
struct GatewayHTTPTests {
    @Test("plain http://host[:port] goes through the load generator's own client; anything else does not")
    func plainEndpoints() {
        #expect(GatewayHTTP.plainEndpoint("http://127.0.0.1:8080")! == ("127.0.0.1", 8080))
        #expect(GatewayHTTP.plainEndpoint("http://gateway")! == ("gateway", 80))
        #expect(GatewayHTTP.plainEndpoint("http://[::1]:8080")! == ("::1", 8080))
        #expect(GatewayHTTP.plainEndpoint("http://[::1]")! == ("::1", 80))
        for other in [
            "https://127.0.0.1:8443", "http://127.0.0.1:8080/prefix", "http://user@host:80", "http://host:0",
            "http://host:99999", "http://:80", "http://", "ftp://host", "http://[::1",
        ] {
            #expect(GatewayHTTP.plainEndpoint(other) == nil, "\(other)")
        }
    }
}
