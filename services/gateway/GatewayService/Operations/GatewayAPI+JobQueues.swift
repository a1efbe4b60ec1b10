import Contract
import Foundation
import OpenAPIRuntime
import ServiceKit

/// `/v1/admin/queues` and `/v1/admin/dead-letters`: every worker's job tables for an admin.
/// Each service answers for its own tables (``JobAdministration``, checking the role too); a
/// listing asks every service the gateway requires at once, within the readiness timeout, so
/// that one service that is down neither hides the others nor holds the answer long.
extension GatewayAPI {
    func listJobQueues(_ input: Operations.ListJobQueues.Input) async throws -> Operations.ListJobQueues.Output {
        let scope = try requireAdmin()
        let answers = await fanOut(scope) { bus, service, metadata, timeout in
            try await bus.call(JobAdministration.Queues.self, on: service, Empty(), metadata: metadata, timeout: timeout)
        }
        let services = try answers.map { service, answer -> Components.Schemas.ServiceJobQueues in
            switch answer {
            case .success(let list):
                return .init(service: service.rawValue, ok: true, queues: try OrdersJSON.convert(list.queues))
            case .failure(let error):
                return .init(service: service.rawValue, ok: false, error: error.message, queues: [])
            }
        }
        return .ok(.init(body: .json(.init(services: services))))
    }

    func listDeadLetters(_ input: Operations.ListDeadLetters.Input) async throws -> Operations.ListDeadLetters.Output {
        let scope = try requireAdmin()
        let request = JobAdministration.DeadLetterQuery(limit: input.query.limit)
        let only = input.query.service.map { [ServiceName($0.rawValue)] }
        let answers = await fanOut(scope, only: only) { bus, service, metadata, timeout in
            try await bus.call(JobAdministration.DeadLetters.self, on: service, request, metadata: metadata, timeout: timeout)
        }
        var items: [JobAdministration.DeadLetter] = []
        var unavailable: [String] = []
        for (service, answer) in answers {
            switch answer {
            case .success(let list): items += list.items
            // The service's own refusal of the request (a limit out of range) is the caller's.
            case .failure(let error) where error.code == .invalidArgument || error.code == .permissionDenied:
                throw error
            case .failure: unavailable.append(service.rawValue)
            }
        }
        items.sort { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
        return .ok(.init(body: .json(.init(items: try OrdersJSON.convert(items), unavailable: unavailable))))
    }

    /// The scope of a signed-in admin: 401 without a caller, 403 for one without the role.
    private func requireAdmin() throws(ServiceError) -> RequestScope {
        let scope = try self.scope
        guard try scope.requireActor().has(.admin) else {
            throw ServiceError(.permissionDenied, "this needs the 'admin' role")
        }
        return scope
    }

    /// `call` on each of `only` (or every service /readyz requires), at once, each within the
    /// readiness timeout; the answers in the services' order.
    private func fanOut<Reply: Sendable>(
        _ scope: RequestScope, only: [ServiceName]? = nil,
        _ call: @escaping @Sendable (BusClient, ServiceName, RequestMetadata, Duration) async throws -> Reply
    ) async -> [(ServiceName, Result<Reply, ServiceError>)] {
        let services = only ?? settings.readinessServices
        let timeout = settings.readinessTimeout
        let metadata = scope.metadata(deadline: timeout)
        let bus = self.bus
        return await BusClient.askEach(services) { service in try await call(bus, service, metadata, timeout) }
    }
}
