import Contract
import Foundation

extension Actor {
    /// The caller's user id (a UUID, as auth issues them).
    func userUUID() throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: userId) else {
            throw ServiceError(.unauthenticated, "the caller's user id is not a UUID")
        }
        return id
    }
}
