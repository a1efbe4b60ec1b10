import Contract
import Foundation
import Testing
import ZeroMQ

@testable import Majordomo

/// The hand-written JSON string literals of log lines and the broker's error replies.
@Suite("JSON string literals")
struct JSONStringLiteralTests {
    @Test("every string comes back unchanged through a JSON decoder, control characters included")
    func roundTrip() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let samples = [
            "", "plain", #"a "quoted" word"#, #"back\slash"#, "tab\tnew\nline\rreturn", controls,
            "åäö ✓ 🚲", "\u{7f}\u{2028}", #"\u0041 stays as text"#,
        ]
        for sample in samples {
            let literal = String.jsonStringLiteral(sample)
            #expect(literal.first == "\"" && literal.last == "\"")
            let decoded = try JSONDecoder().decode(String.self, from: Data(literal.utf8))
            #expect(decoded == sample, "\(literal)")
        }
        #expect(String.jsonStringLiteral("\u{1}") == #""\u0001""#)
        var line = "{\"k\":"
        line.appendJSONStringLiteral("v\"")
        #expect(line == #"{"k":"v\"""#)
    }

    @Test("the broker's error reply is valid JSON whatever the service is called")
    func brokerErrorReply() throws {
        var core = BrokerCore(
            configuration: BrokerConfiguration(
                heartbeat: HeartbeatSettings(intervalMs: 100, liveness: 3), requestTimeoutMs: 100),
            now: 0)
        var out: [Message] = []
        let name = "odd \"name\"\\\n\u{1}"
        core.handle([Array("c1".utf8), [], MDP.clientHeader, Array(name.utf8), Array("x".utf8)], now: 0, into: &out)
        core.tick(now: 100, into: &out)
        let reply = try #require(out.first)
        #expect(String(decoding: reply[4], as: UTF8.self) == "unavailable")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(reply[5])) as? [String: Any])
        #expect(body["code"] as? String == "unavailable")
        #expect((body["details"] as? [String: Any])?["service"] as? String == name)
        #expect((body["message"] as? String)?.contains(name) == true)
    }
}
