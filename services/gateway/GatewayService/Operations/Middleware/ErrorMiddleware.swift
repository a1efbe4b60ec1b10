import Contract
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIRuntime
import ServiceKit

/// Turns every failure into the contract's JSON error body and status; an unexpected error is a
/// 500 whose cause goes to the log with the request id, never to the client.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let scope = RequestScope.current
            let requestId = scope?.requestId ?? "-"
            let serviceError = Self.serviceError(for: error, requestId: requestId)
            if serviceError.code == .internal {
                (scope?.logger ?? logger).error("internal error", metadata: Self.logMetadata(for: error))
            }
            return Self.response(for: serviceError, requestId: requestId)
        }
    }

    /// What the log line of an unexpected error says: the operation and the error's loggable
    /// description. Never the error itself: a `ServerError` describes the whole request,
    /// `Authorization` header and body included.
    static func logMetadata(for error: any Error) -> Logger.Metadata {
        guard let error = error as? ServerError else { return ["error": "\(SafeErrorDescription.of(error))"] }
        return [
            "operation": "\(error.operationID)", "error": "\(SafeErrorDescription.of(error.underlyingError))",
        ]
    }

    /// The contract error for anything a handler or the router threw.
    static func serviceError(for error: any Error, requestId: String) -> ServiceError {
        switch error {
        case let error as ServiceError:
            return error
        case let error as ServerError:
            if let underlying = error.underlyingError as? ServiceError { return underlying }
            // No decoded input means the request itself did not parse: the client's mistake.
            // A body that did not decode is described by its member and rule only (a decoder's
            // own text can quote the input: a number that does not fit, an unknown enum value).
            if error.operationInput == nil {
                var details: [String: JSONValue] = ["reason": .string(SafeErrorDescription.of(error.underlyingError))]
                if let field = fieldPath(of: error.underlyingError) { details["field"] = .string(field) }
                let cause =
                    (error.underlyingError as? DecodingError).map { Wire.refusal($0).message } ?? error.causeDescription
                return ServiceError(
                    .invalidArgument, "the request does not match the API: \(cause)", details: details)
            }
            return .internal(requestId: requestId)
        case let error as HTTPError:
            switch error.status {
            case .notFound: return ServiceError(.notFound, "no such endpoint; see /openapi.yaml")
            case .methodNotAllowed: return ServiceError(.methodNotAllowed, "method not allowed on this endpoint")
            case .contentTooLarge: return ServiceError(.invalidArgument, "request body too large")
            default:
                let code = ErrorCode.all.first { $0.httpStatus == Int(error.status.code) } ?? .internal
                return ServiceError(code, error.body ?? error.status.reasonPhrase)
            }
        default:
            return .internal(requestId: requestId)
        }
    }

    /// The member a body failed to decode at, as the services name fields:
    /// `postcard.edits[0].type`; nil when the error names none.
    static func fieldPath(of error: any Error) -> String? {
        guard let error = error as? DecodingError else { return nil }
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            return nil
        }
        let field = Wire.fieldPath(path)
        return field.isEmpty ? nil : field
    }

    /// The HTTP response for a contract error (with the status its code implies, unless given).
    static func response(
        for error: ServiceError, requestId: String, status: HTTPResponse.Status? = nil
    ) -> Response {
        let body = ErrorBody(code: error.code, message: error.message, details: error.details, requestId: requestId)
        let data = (try? Wire.makeEncoder().encode(body)) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter = error.retryAfterSeconds { headers[.retryAfter] = String(max(1, retryAfter)) }
        return Response(
            status: status ?? HTTPResponse.Status(code: error.code.httpStatus), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The JSON error body every failed request gets.
struct ErrorBody: Codable, Sendable {
    let code: ErrorCode
    let message: String
    let details: [String: JSONValue]?
    let requestId: String
}
