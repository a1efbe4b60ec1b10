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
}
