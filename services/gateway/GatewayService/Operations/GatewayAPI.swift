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
/// calls `callAsCaller(Operation.self, request)` (or `callOpenly` for public reads); errors are
/// thrown as `ServiceError` and become the JSON error body in ``ErrorMiddleware``.
struct GatewayAPI: APIProtocol {
    let bus: BusClient
    let settings: GatewaySettings
    let registry: PrometheusCollectorRegistry
    let document: [UInt8]
    /// Each operation's access rule, read from the document once.
    let accessRules: [String: DocumentOperation.Access]

    init(bus: BusClient, settings: GatewaySettings, registry: PrometheusCollectorRegistry, document: [UInt8]) {
        self.bus = bus
        self.settings = settings
        self.registry = registry
        self.document = document
        accessRules = Dictionary(
            ((try? DocumentOperation.read(document)) ?? []).map { ($0.operationId, $0.access) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The request scope set by the middleware (always present behind the router).
    var scope: RequestScope {
        get throws(ServiceError) {
            guard let scope = RequestScope.current else { throw ServiceError(.internal, "request scope missing") }
            return scope
        }
    }

    /// Calls `operation` for the signed-in caller: `unauthenticated` (401) without a token,
    /// otherwise the bus call with the request's id, actor and deadline.
    func callAsCaller<Operation: ServiceOperation>(
        _ operation: Operation.Type, _ request: Operation.Request, idempotencyKey: String? = nil
    ) async throws -> Operation.Reply {
        let scope = try self.scope
        _ = try scope.requireActor()
        return try await bus.call(
            operation, request,
            metadata: scope.metadata(deadline: settings.requestTimeout, idempotencyKey: idempotencyKey))
    }

    /// `unauthenticated` (401) unless someone is signed in: for a handler that reads a body or
    /// checks input before its call, so that no one unknown gets that far.
    func requireCaller() throws(ServiceError) {
        _ = try scope.requireActor()
    }

    /// The document's access rule of `operationId` (401 or 403), for a handler to check before it
    /// reads anything of the request.
    func requireAccess(_ operationId: String) throws {
        guard let access = accessRules[operationId] else {
            throw ServiceError(.internal, "\(operationId) is not in the document")
        }
        try access.check(try scope)
    }

    /// Calls `operation` whether or not anyone is signed in (the actor goes along when there is
    /// one), with the request's id and deadline.
    func callOpenly<Operation: ServiceOperation>(_ operation: Operation.Type, _ request: Operation.Request)
        async throws -> Operation.Reply
    {
        try await bus.call(operation, request, metadata: try scope.metadata(deadline: settings.requestTimeout))
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
