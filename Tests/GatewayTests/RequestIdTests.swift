import Foundation
import Testing

@testable import GatewayService

@Suite("gateway: request ids")
struct RequestIdTests {
    @Test("a new request id is a lower-case version 4 UUID, and no two are the same")
    func newIds() {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = RequestScope.newRequestId()
            #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil, "\(id)")
            #expect(UUID(uuidString: id) != nil)
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }

    @Test("a client's id is kept when it is 1-128 characters of [A-Za-z0-9._:-]")
    func clientIds() {
        #expect(RequestScope.sanitize("abc-123_x.y:z") == "abc-123_x.y:z")
        #expect(RequestScope.sanitize("") == nil)
        #expect(RequestScope.sanitize(String(repeating: "a", count: 129)) == nil)
        #expect(RequestScope.sanitize("a b") == nil)
        #expect(RequestScope.sanitize("é") == nil)
    }
}
