import Contract
import Foundation
import RoutingContract
import Testing

/// NavUP's locate and route requests read by hand, and their replies written by hand, agree with
/// the `Codable` contract.
@Suite("Locate and route JSON by hand")
struct RoutingJSONTests {
    static let decoder = Wire.makeDecoder()
    static let encoder = Wire.makeEncoder()

    /// The reader answers for `text`, with the decoder's value.
    static func readsAsDecoder<T: WireJSONDecodable & Equatable>(_ type: T.Type, _ text: String) throws {
        let read = try #require(T.read(from: Array(text.utf8)), "\(text)")
        #expect(read == (try decoder.decode(T.self, from: Data(text.utf8))), "\(text)")
    }

    @Test("locate requests: scans, GPS fixes, nulls, unknown members")
    func locateRequests() throws {
        for text in [
            #"{"scan":[{"bssid":"aa:bb:cc:00:00:01","rssi":-55},{"bssid":"aa:bb:cc:00:00:02","rssi":-71.5}]}"#,
            #"{"scan":[],"gps":{"lat":-25.7545,"lon":28.2314,"accuracy":12}}"#,
            #"{"gps":{"lon":28.2314,"lat":-25.7545},"scan":[],"app":"navup"}"#,
            #"{"scan":[],"gps":null}"#,
            #"{"scan":[],"gps":{"lat":0,"lon":0,"accuracy":null}}"#,
        ] {
            try Self.readsAsDecoder(Routing.Locate.Request.self, text)
        }
    }

    @Test("route requests: venues, positions, profiles")
    func routeRequests() throws {
        for text in [
            #"{"from":{"venueId":"v-1"},"to":{"venueId":"v-2"},"profile":"accessible"}"#,
            #"{"from":{"lat":-25.75,"lon":28.23,"level":2},"to":{"venueId":"v-2"}}"#,
            #"{"from":{},"to":{"venueId":null,"lat":null},"profile":null}"#,
        ] {
            try Self.readsAsDecoder(Routing.PlanRoute.Request.self, text)
        }
    }

    @Test("bad requests are refused by the reader and answered by the decoder's message")
    func badRequests() {
        let cases: [(String, String)] = [
            (#"{"gps":{"lat":1,"lon":2}}"#, "scan"),
            (#"{"scan":[{"bssid":"x"}]}"#, "rssi"),
            (#"{"scan":[{"bssid":"x","rssi":"-50"}]}"#, "rssi"),
            (#"{"scan":[],"gps":{"lat":1}}"#, "lon"),
        ]
        for (text, field) in cases {
            #expect(Routing.Locate.Request.read(from: Array(text.utf8)) == nil, "\(text)")
            do {
                _ = try Wire.decodePayload(Routing.Locate.Request.self, from: Array(text.utf8))
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(field), "\(error.message)")
            }
        }
        // A level that is not an integer: refused by the reader, and by the decoder as before.
        let level = #"{"from":{"lat":1,"lon":2,"level":1.5},"to":{}}"#
        #expect(Routing.PlanRoute.Request.read(from: Array(level.utf8)) == nil)
        #expect(throws: ServiceError.self) { try Wire.decodePayload(Routing.PlanRoute.Request.self, from: Array(level.utf8)) }
    }

    @Test("replies written by hand equal the encoder's JSON")
    func replies() throws {
        let locate = Routing.Locate.Reply(lat: -25.754512, lon: 28.231401, level: -1, accuracy: 4.5, source: "wifi", accessPointsUsed: 3)
        let route = Routing.Route(
            profile: "accessible", distance: 412.25, eta: 301, path: [
                .init(lat: -25.7545, lon: 28.2314, level: 0), .init(lat: -25.75451, lon: 28.23145, level: 2),
            ],
            steps: [
                .init(instruction: "Take the elevator to level 2", kind: "elevator", level: 2, distance: 0),
                .init(instruction: "Walk 40 m along \"Main\" corridor\n", kind: "corridor", level: 2, distance: 40.125),
            ])
        let empty = Routing.Route(profile: "fastest", distance: 0, eta: 0, path: [], steps: [])
        try Self.sameJSON(locate)
        try Self.sameJSON(route)
        try Self.sameJSON(empty)
        // The worker's reply path takes the hand-written JSON.
        #expect(try Wire.encodeReply(route)[1] == route.jsonBytes())
    }

    /// `value` written by hand decodes to itself and is the same JSON document as the encoder's.
    static func sameJSON<T: WireJSONEncodable & Decodable & Equatable>(_ value: T) throws {
        let written = try value.jsonBytes()
        #expect(try decoder.decode(T.self, from: Data(written)) == value)
        let mine = try JSONSerialization.jsonObject(with: Data(written)) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: encoder.encode(value)) as? NSDictionary
        #expect(mine != nil && mine == theirs)
    }
}
