import Contract
import Foundation
import Logging

/// What a handler knows about the call it is handling.
public struct OperationContext: Sendable {
    /// Request id, caller and deadline, as the caller sent them.
    public let metadata: RequestMetadata
    /// A logger whose every line carries the request id and operation.
    public let logger: Logger

    /// Creates a context.
    public init(metadata: RequestMetadata, logger: Logger) {
        self.metadata = metadata
        self.logger = logger
    }

    /// The caller, or `unauthenticated` when there is none.
    public func requireActor() throws(ServiceError) -> Actor {
        guard let actor = metadata.actor else { throw ServiceError(.unauthenticated, "sign in first") }
        return actor
    }

    /// The signed-in caller's user id; `unauthenticated` without a caller or with an id that is
    /// not a UUID.
    public func userId() throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: try requireActor().userId) else {
            throw ServiceError(.unauthenticated, "the access token names no valid user id")
        }
        return id
    }

    /// The caller, who must hold `role` (admins hold every role).
    public func requireRole(_ role: Role) throws(ServiceError) -> Actor {
        let actor = try requireActor()
        guard actor.has(role) else { throw ServiceError(.permissionDenied, "this needs the '\(role)' role") }
        return actor
    }
}
