import Contract
import Foundation
import GatewayService
import HTTPTypes
import OpenAPIRuntime
import ServiceKit
import Store
import Testing

@testable import GatewayService

/// What log lines may say about a request and an error: allow-lists, never the secrets.
@Suite("gateway: log redaction")
struct LogRedactionTests {
    static let secret = "eyJhbGciOiJFZERTQSJ9.c2VjcmV0LXRva2Vu.c2ln"

    @Test("a path keeps the API's literal segments; ids, share tokens and voucher codes become {}")
    func paths() throws {
        let paths = LoggedPath(document: try Gateway.openAPIDocument())
        #expect(paths.redact("/v1/auth/login") == "/v1/auth/login")
        #expect(paths.redact("/v1/ecards/\(Self.secret)") == "/v1/ecards/{}")
        #expect(paths.redact("/v1/rewards/ABCD-1234/redeem") == "/v1/rewards/{}/redeem")
        #expect(paths.redact("/v1/print-jobs/0b7c/pdf") == "/v1/print-jobs/{}/pdf")
        #expect(paths.redact("/no/such/\(Self.secret)") == "/{}/{}/{}")
        // A timetable feed's address is its secret: the access log never shows it.
        let feed = "q7Vd9-kR2xW_4mLp0sNc8tYb3ZaHf6JeUo1GiTnXyQw"
        #expect(paths.redact("/v1/timetables/\(feed).ics") == "/v1/timetables/{}")
        #expect(paths.redact("/v1/me/timetable/feed") == "/v1/me/timetable/feed")
        #expect(paths.redact("/") == "/")
    }

    enum Failure: Error {
        case rejected(token: String)
    }

    struct Detailed: Error {
        let password: String
    }

    @Test("errors are described by type and case, never by the values they carry")
    func errors() throws {
        #expect(SafeErrorDescription.of(Failure.rejected(token: Self.secret)).hasSuffix("Failure.rejected"))
        #expect(!SafeErrorDescription.of(Detailed(password: Self.secret)).contains(Self.secret))
        #expect(SafeErrorDescription.of(ServiceError(.notFound, "no such order")) == "not_found: no such order")
        // A migration edited after it was applied is named, so the operator knows what to fix;
        // other store errors give only their code, since their messages may quote values.
        #expect(
            SafeErrorDescription.of(StoreError(.migrationChecksumMismatch, "migration 1 (bills) in schema 'civic' was changed"))
                == "migration_checksum_mismatch: migration 1 (bills) in schema 'civic' was changed")
        #expect(
            SafeErrorDescription.of(StoreError(.unexpectedResult, "job with dedupe key '\(Self.secret)'"))
                == "StoreError unexpected_result")
        struct Body: Decodable { let amount: Int }
        do {
            _ = try JSONDecoder().decode(Body.self, from: Data(#"{"amount": "\#(Self.secret)"}"#.utf8))
            Issue.record("decoded a string as a number")
        } catch {
            let text = SafeErrorDescription.of(error)
            #expect(text == "DecodingError at amount")
        }
    }

    @Test("an unexpected error while handling a request with a bearer token logs the operation, not the request")
    func serverError() throws {
        var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/print-jobs/1/pdf")
        request.headerFields[.authorization] = "Bearer \(Self.secret)"
        request.headerFields[.accept] = "application/json"
        let error = ServerError(
            operationID: "getPrintJobPDF", request: request, requestBody: nil, requestMetadata: .init(),
            operationInput: "input", operationOutput: nil,
            causeDescription: "Unexpected Accept header: application/json",
            underlyingError: Failure.rejected(token: Self.secret))
        #expect(String(reflecting: error).contains(Self.secret), "the premise: the error describes the request")
        let metadata = ErrorMiddleware<GatewayRequestContext>.logMetadata(for: error)
        let text = metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        #expect(!text.contains(Self.secret), "\(text)")
        #expect(text.contains("getPrintJobPDF"))
    }
}
