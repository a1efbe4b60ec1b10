import CivicContract
import CivicService
import Contract
import Foundation
import ServiceKit
import TestSupport
import Testing

/// `lookup`'s payload, read by civic itself (the gateway forwards the body as the client sent
/// it): refusals that name the member and the rule, never a piece of the body, in the reply and
/// in civic's log.
@Suite("civic: the lookup's body (no I/O)")
struct LookupBodyTests {
    @Test("a point's body decodes, integers and whitespace included")
    func decodes() throws {
        #expect(try LookupBody.decode(Array(#"{"lat": 35.2828, "lon": -120.6596}"#.utf8)) == .init(lat: 35.2828, lon: -120.6596))
        #expect(try LookupBody.decode(Array(" {\"lon\":-120,\n\"lat\":35} ".utf8)) == .init(lat: 35, lon: -120))
        #expect(try LookupBody.decode(Array(#"{"lat": -90, "lon": 180}"#.utf8)) == .init(lat: -90, lon: 180))
    }

    /// Bodies that hold the digits 4817, each refused naming `field`.
    static let refused: [(body: String, field: String)] = [
        (#"{"lat": 95.48171, "lon": 0}"#, "lat"),
        (#"{"lat": -90.48172, "lon": 0}"#, "lat"),
        (#"{"lat": 35.48173, "lon": 180.48173}"#, "lon"),
        (#"{"lat": "35.48174", "lon": -120.6}"#, "lat"),
        (#"{"lat": 35.2, "lon": "-120.48175"}"#, "lon"),
        (#"{"lat": [35.48176], "lon": -120.6}"#, "lat"),
        (#"{"lat": {"v": 35.48177}, "lon": -120.6}"#, "lat"),
        (#"{"lat": null, "lon": -120.48178}"#, "lat"),
        (#"{"lat": true, "lon": -120.48179}"#, "lat"),
        (#"{"lat": 1e48170, "lon": -120.6}"#, "lat"),
        (#"{"lat": 35.2, "lon": -1e48171}"#, "lon"),
        (#"{"lon": -120.48172}"#, "lat"),
        (#"{"lat": 35.48173}"#, "lon"),
        (#"{"lat": 35.48174, "lon": -120.6, "alt": 48174}"#, "body"),
        (#"{"lat": 35.2, "lon": -120.6, "x48175": 1}"#, "body"),
        (#"{"lat": 35.48176, "lon": -120.6"#, "body"),
        (#"{"lat": 35.48177 "lon": -120.6}"#, "body"),
        (#"{lat: 35.48178, lon: -120.6}"#, "body"),
        ("lat=35.48179&lon=-120.6", "body"),
        ("[35.48170, -120.6]", "body"),
        ("35.48171", "body"),
        ("\"35.48172,-120.6\"", "body"),
        ("", "body"),
        (#"{"lat": 35.2, "lon": -120.6, "pad": ""# + String(repeating: "48173 ", count: 200) + "\"}", "body"),
    ]

    @Test("a refused body is named by its member and the rule, never by a piece of it")
    func refusals() {
        for (body, field) in Self.refused {
            do {
                _ = try LookupBody.decode(Array(body.utf8))
                Issue.record("\(body.prefix(60)) decoded")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.details?["field"] == .string(field), "\(body.prefix(60)) → \(error)")
                #expect(!error.message.contains("4817") && !"\(error)".contains("4817"), "\(body.prefix(60)) → \(error)")
            }
        }
        #expect(throws: ServiceError.self) { try LookupBody.decode(Array(repeating: UInt8(ascii: " "), count: 1025)) }
        let latitude = Result { () throws(ServiceError) in try LookupBody.decode(Array(#"{"lat": 91, "lon": 0}"#.utf8)) }
        if case .failure(let error) = latitude {
            #expect(error.message == "lat: a number from -90 to 90 is required")
        } else {
            Issue.record("91 decoded")
        }
    }

    @Test("through civic's operation table: good points answered, refused bodies named, and no reply or log line holds their digits")
    func throughTheRouter() async throws {
        let lines = CapturedLogs()
        let atlas = try BoundaryHandler.shipped()
        var router = OperationRouter(service: .civic, logger: lines.logger())
        router.register(Civic.Lookup.self, decoding: LookupBody.decode) { try await atlas.lookup($0, $1) }
        let metadata = Array(try Wire.makeEncoder().encode(RequestMetadata(requestId: "lookup-test")))
        let good = await router.handle([Array("lookup".utf8), metadata, Array(#"{"lat": 35.28284817, "lon": -120.65964817}"#.utf8)])
        let reply = try Wire.decodeReply(Civic.Lookup.Reply.self, from: good)
        #expect(reply.jurisdictions.count == 5)
        var answers: [String] = []
        for (body, field) in Self.refused {
            let frames = await router.handle([Array("lookup".utf8), metadata, Array(body.utf8)])
            #expect(String(decoding: frames[0], as: UTF8.self) == "invalid_argument")
            let error = try Wire.makeDecoder().decode(ServiceError.self, from: Data(frames[1]))
            #expect(error.details?["field"] == .string(field), "\(body.prefix(60))")
            answers.append(String(decoding: frames[1], as: UTF8.self))
        }
        let logged = lines.all
        #expect(logged.contains { $0.contains("refused") && $0.contains("lat: a number from -90 to 90 is required") })
        for text in answers + logged {
            #expect(!text.contains("4817"), "\(text)")
        }
    }
}
