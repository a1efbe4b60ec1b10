import Contract
import Foundation
import Logging
import ServiceKit
import Testing
import TestSupport

/// `OperationRouter.markQuick` end to end: a real broker and worker, the operation's handler
/// started on the worker's I/O thread, its answer the same as from the pool.
@Suite("Quick operations")
struct QuickOperationTests {
    static let logger = GatewayTests.logger

    /// The handler reports the thread it ran on in its `instance`. The service name is short: Linux
    /// keeps 15 bytes of a thread name, and the worker's I/O thread is "mdp-worker-" and the name.
    static func router(quick: Bool) -> OperationRouter {
        var router = OperationRouter(service: ServiceName("qops"), logger: logger)
        router.register(Health.self) { _, _ in
            HealthReport(
                service: "qops", status: "ok", instance: currentThread(), uptimeSeconds: 1,
                checks: ["database": "ok"])
        }
        if quick { router.markQuick(Health.self) }
        return router
    }

    @Test("an operation marked quick is listed, answered, and runs on the worker's I/O thread")
    func markedQuick() async throws {
        let router = Self.router(quick: true)
        #expect(router.quickOperations == [Health.name])
        try await InProcessBus.with(router, logger: Self.logger) { _, bus in
            for _ in 0..<20 {
                let report = try await bus.call(Health.self, on: ServiceName("qops"), Empty(), metadata: .init(requestId: "quick"))
                #expect(report.status == "ok")
                #expect(report.instance == "mdp-worker-qops")
            }
        }
    }

    @Test("an operation not marked runs on Swift's task pool")
    func notMarked() async throws {
        let router = Self.router(quick: false)
        #expect(router.quickOperations.isEmpty)
        try await InProcessBus.with(router, logger: Self.logger) { _, bus in
            let report = try await bus.call(Health.self, on: ServiceName("qops"), Empty(), metadata: .init(requestId: "quick"))
            #expect(report.status == "ok")
            #expect(report.instance != "mdp-worker-qops")
        }
    }
}

/// The name of the thread this runs on (a synchronous function: `Thread.current` is not for async code).
private func currentThread() -> String { Thread.current.name ?? "" }
