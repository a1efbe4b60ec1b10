import Contract

/// The error code `work` fails with (`internal` for an error that is not a ``ServiceError``), or
/// nil when it succeeds.
func code(_ work: () async throws -> Void) async -> ErrorCode? {
    do {
        try await work()
        return nil
    } catch let error as ServiceError {
        return error.code
    } catch {
        return .internal
    }
}
