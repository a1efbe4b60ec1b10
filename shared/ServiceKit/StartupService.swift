import Logging
import ServiceLifecycle

/// Runs a start-up step (migrations, wiring) once the services it needs are running, then runs
/// the services the step produced, in order; graceful shutdown reaches them through the group.
struct StartupService: Service {
    let logger: Logger
    let start: @Sendable () async throws -> [any Service]

    func run() async throws {
        let services = try await start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in services {
                group.addTask { try await service.run() }
            }
            // When one stops (normally only on shutdown), the others follow.
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}
