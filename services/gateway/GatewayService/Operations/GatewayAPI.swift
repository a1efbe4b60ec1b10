import Contract
import Foundation
import Logging
import OpenAPIRuntime
import Prometheus
import ServiceKit

/// The handlers of the public API, generated from `openapi.yaml` (spec first): each turns an
/// HTTP call into at most one MDP request through ``bus`` and maps the reply back.
///
/// Later endpoints follow the same pattern: declare the path in `openapi.yaml`, the contract
/// operation in `Contract`, then a method here (or in a `GatewayAPI+Area.swift` extension) that
/// calls `bus.call(Operation.self, request, metadata: scope.metadata(deadline:))`; errors are
/// thrown as `ServiceError` and become the JSON error body in ``ErrorMiddleware``.
struct GatewayAPI: APIProtocol {
    let bus: BusClient
    let settings: GatewaySettings
    let registry: PrometheusCollectorRegistry
    let document: [UInt8]

    /// The request scope set by the middleware (always present behind the router).
    var scope: RequestScope {
        get throws(ServiceError) {
            guard let scope = RequestScope.current else { throw ServiceError(.internal, "request scope missing") }
            return scope
        }
    }

    func getHealthz(_ input: Operations.GetHealthz.Input) async throws -> Operations.GetHealthz.Output {
        .ok(.init(body: .json(.init(status: .ok))))
    }

    func getReadyz(_ input: Operations.GetReadyz.Input) async throws -> Operations.GetReadyz.Output {
        let checks = await Readiness.check(
            bus: bus, services: settings.readinessServices, timeout: settings.readinessTimeout, scope: try scope)
        let ready = checks.allSatisfy(\.ok)
        let body = Components.Schemas.Readiness(status: ready ? .ready : .notReady, checks: checks)
        return ready ? .ok(.init(body: .json(body))) : .serviceUnavailable(.init(body: .json(body)))
    }

    func getMetrics(_ input: Operations.GetMetrics.Input) async throws -> Operations.GetMetrics.Output {
        .ok(.init(body: .plainText(HTTPBody(registry.emitToBuffer()))))
    }

    func getOpenAPIDocument(_ input: Operations.GetOpenAPIDocument.Input) async throws
        -> Operations.GetOpenAPIDocument.Output
    {
        .ok(.init(body: .yaml(HTTPBody(document))))
    }
}
