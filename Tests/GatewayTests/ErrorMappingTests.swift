import Contract
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import GatewayService

@Suite("Gateway error mapping")
struct ErrorMappingTests {
    @Test("every contract code becomes its HTTP status with the JSON body")
    func statuses() throws {
        for code in ErrorCode.all {
            let response = ErrorMiddleware<BasicRequestContext>.response(
                for: ServiceError(code, "why"), requestId: "r1")
            #expect(Int(response.status.code) == code.httpStatus)
        }
    }

    @Test("`locked` carries Retry-After in seconds")
    func retryAfter() {
        let error = ServiceError(.locked, "held for 20 minutes", details: ["retryAfterSeconds": 1200])
        let response = ErrorMiddleware<BasicRequestContext>.response(for: error, requestId: "r1")
        #expect(response.status.code == 423)
        #expect(response.headers[.retryAfter] == "1200")
    }

    @Test("an unexpected error is a 500 that shows the request id and hides the cause")
    func internalError() {
        struct SecretFailure: Error {}
        let error = ErrorMiddleware<BasicRequestContext>.serviceError(for: SecretFailure(), requestId: "r9")
        #expect(error.code == .internal)
        #expect(error.message.contains("r9"))
        #expect(!error.message.contains("SecretFailure"))
    }

    @Test("a body that does not decode names the member, as the services do: postcard.edits[1].type")
    func decodingFieldPath() throws {
        struct Edit: Decodable { let type: Int }
        struct Card: Decodable { let edits: [Edit] }
        struct Order: Decodable { let postcard: Card }
        let data = Data(#"{"postcard": {"edits": [{"type": 1}, {"type": "blur"}]}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Order.self, from: data) }
        do {
            _ = try JSONDecoder().decode(Order.self, from: data)
        } catch {
            #expect(ErrorMiddleware<BasicRequestContext>.fieldPath(of: error) == "postcard.edits[1].type")
        }
        let missing = Data(#"{"postcard": {}}"#.utf8)
        do {
            _ = try JSONDecoder().decode(Order.self, from: missing)
        } catch {
            #expect(ErrorMiddleware<BasicRequestContext>.fieldPath(of: error) == "postcard.edits")
        }
    }
}
