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

extension Date {
    /// Microseconds since the epoch, as the rules count time.
    var micros: Int64 { Int64((timeIntervalSince1970 * 1_000_000).rounded()) }
}
