import Foundation

/// Runs blocking or long CPU work (reading a map, building its graph and landmarks) on a thread of its own, so the
/// few threads of the cooperative pool keep answering route queries meanwhile.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Result { try work() }) }.start()
    }
    return try result.get()
}
