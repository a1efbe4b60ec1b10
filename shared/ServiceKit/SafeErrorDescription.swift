import Contract
import Foundation
import Majordomo
import PostgresNIO
import Store
import ZeroMQ

/// How an error is written into a log line: by an allow-list, so that no password, token, card
/// number, idempotency key or address can ride along.
///
/// Errors of our own wire and transport say what they say (their messages are written for
/// clients and logs). A PostgreSQL error gives its SQLSTATE and message, never its detail (which
/// quotes the row's values) nor the query's binds. Anything else gives its type and, for an
/// enum, the name of its case, but not the values the case carries: `String(reflecting:)` of a
/// request-handling error can hold the whole request, headers included.
public enum SafeErrorDescription {
    /// The loggable description of `error`.
    public static func of(_ error: any Error) -> String {
        switch error {
        case let error as ServiceError:
            return error.description
        case let error as MajordomoError:
            return "\(error)"
        case let error as ZMQError:
            return "\(error)"
        case let error as ProcessEnvironment.InvalidSetting:
            return error.description
        case let error as StoreError:
            // Migration and identifier messages name files, schemas and checksums, which an
            // operator needs to act on; the other codes' messages may quote values (a dedupe key),
            // so only their code is given.
            return Self.schemaCodes.contains(error.code) ? "\(error.code): \(error.message)" : "StoreError \(error.code)"
        case is CancellationError:
            return "cancelled"
        case let error as DecodingError:
            return "DecodingError at \(codingPath(of: error))"
        case is PSQLError, is PostgresTransactionError:
            return PostgresErrorText.summary(error)
        default:
            return shape(of: error)
        }
    }

    /// Store failures whose message is about the schema, never about a row's values.
    /// (`migration_failed` is not: it quotes the server's detail, which can hold a row's values.)
    static let schemaCodes: Set<StoreError.Code> = [.invalidMigration, .migrationChecksumMismatch, .invalidIdentifier]

    /// The error's type and, for an enum, its case name (`RuntimeError.unexpectedAcceptHeader`).
    public static func shape(of error: any Error) -> String {
        let type = String(reflecting: Swift.type(of: error))
        let mirror = Mirror(reflecting: error)
        if mirror.displayStyle == .enum, let label = mirror.children.first?.label {
            return "\(type).\(label)"
        }
        if mirror.displayStyle == .enum { return "\(type).\(error)" }
        let nsError = error as NSError
        if nsError.domain != "Foundation._GenericObjCError", !nsError.domain.isEmpty,
            !type.hasPrefix(nsError.domain)
        {
            return "\(type) (\(nsError.domain) \(nsError.code))"
        }
        return type
    }

    private static func codingPath(of error: DecodingError) -> String {
        let path: [any CodingKey]? =
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                context.codingPath
            case .keyNotFound(let key, let context): context.codingPath + [key]
            @unknown default: nil
            }
        // Declared members and indices only: a dictionary's key is the client's text (`*`).
        let field = Wire.fieldPath(path ?? [])
        return field.isEmpty ? "the top level" : field
    }
}
