import Contract
import Foundation
import ServiceKit

extension OperationContext {
    /// The signed-in caller's user id; `unauthenticated` without one.
    func caller() throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: try requireActor().userId) else {
            throw ServiceError(.unauthenticated, "the access token names no valid user id")
        }
        return id
    }
}
