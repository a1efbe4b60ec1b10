import Contract
import Foundation
import Logging
import OpenAPIRuntime
import ServiceKit

/// The handlers generated from `openapi.yaml` for the operations ``GatewayExceptions`` lists: the
/// ones the gateway does more for than the one path (``DocumentRoute``) does. Each turns an HTTP
/// call into at most a few MDP requests through ``bus`` and maps the reply back; the document's
/// access rule is applied before any of them runs (``AccessCheckedTransport``). Errors are thrown
/// as `ServiceError` and become the document's error body in ``ErrorMiddleware``.
struct GatewayAPI: APIProtocol {
    let bus: BusClient
    let settings: GatewaySettings
    let document: [UInt8]

    init(bus: BusClient, settings: GatewaySettings, document: [UInt8]) {
        self.bus = bus
        self.settings = settings
        self.document = document
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

    func getOpenAPIDocument(_ input: Operations.GetOpenAPIDocument.Input) async throws
        -> Operations.GetOpenAPIDocument.Output
    {
        .ok(.init(body: .yaml(HTTPBody(document))))
    }
}
