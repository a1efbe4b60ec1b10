import Contract
import Majordomo
import ServiceKit

/// `/readyz`: the broker answers MMI, and every required service answers `health`, all in parallel.
enum Readiness {
    static func check(
        bus: BusClient, services: [ServiceName], timeout: Duration, scope: RequestScope
    ) async -> [Components.Schemas.Check] {
        await withTaskGroup(of: (Int, Components.Schemas.Check).self) { group in
            group.addTask {
                let started = ContinuousClock.now
                do {
                    _ = try await bus.isServed("broker", timeout: timeout)
                    return (
                        0, .init(name: "broker", ok: true, detail: "answers MMI", latencyMs: elapsed(since: started))
                    )
                } catch {
                    return (
                        0,
                        .init(
                            name: "broker", ok: false, detail: (error as? ServiceError)?.message ?? "\(error)",
                            latencyMs: elapsed(since: started))
                    )
                }
            }
            for (index, service) in services.enumerated() {
                group.addTask {
                    let started = ContinuousClock.now
                    do {
                        let report = try await bus.call(
                            Health.self, on: service, Empty(), metadata: scope.metadata(deadline: timeout),
                            timeout: timeout)
                        let ok = report.status == "ok"
                        let detail = ok ? "\(report.instance)" : "\(report.status): \(report.checks)"
                        return (
                            index + 1,
                            .init(name: service.rawValue, ok: ok, detail: detail, latencyMs: elapsed(since: started))
                        )
                    } catch {
                        return (
                            index + 1,
                            .init(
                                name: service.rawValue, ok: false,
                                detail: (error as? ServiceError)?.message ?? "\(error)",
                                latencyMs: elapsed(since: started))
                        )
                    }
                }
            }
            var checks: [(Int, Components.Schemas.Check)] = []
            for await result in group { checks.append(result) }
            return checks.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private static func elapsed(since start: ContinuousClock.Instant) -> Int64 {
        (ContinuousClock.now - start).wholeMilliseconds
    }
}
