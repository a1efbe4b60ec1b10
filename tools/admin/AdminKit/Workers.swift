import AuthService
import CivicService
import Contract
import HydrationService
import NotifyService
import OrdersService
import PrintingService
import RoutingService
import ServiceKit
import SocialService

/// The worker services, in start order, as deploy/services.txt lists them
/// (deploy/scripts/check-services.py holds the two together).
enum Workers {
    /// Each service's definition: its name and the migrations it applies at start.
    static let definitions: [WorkerDefinition] = [
        AuthService.definition, OrdersService.definition, PrintingService.definition, RoutingService.definition,
        NotifyService.definition, HydrationService.definition, CivicService.definition, SocialService.definition,
    ]

    /// Their settings.
    static let specs: [ProcessSpec] = [
        AuthService.spec, OrdersService.spec, PrintingService.spec, RoutingService.spec, NotifyService.spec,
        HydrationService.spec, CivicService.spec, SocialService.spec,
    ]

    /// Their names.
    static let names: [String] = definitions.map(\.service.rawValue)

    /// `call` on every one of `services` at once; the answers in the services' order.
    static func ask<Reply: Sendable>(
        _ services: [ServiceName], _ call: @escaping @Sendable (ServiceName) async throws -> Reply
    ) async -> [(ServiceName, Result<Reply, ServiceError>)] {
        await withTaskGroup(of: (Int, Result<Reply, ServiceError>).self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await call(service)))
                    } catch let error as ServiceError {
                        return (index, .failure(error))
                    } catch {
                        return (index, .failure(ServiceError(.internal, "\(service) could not be asked")))
                    }
                }
            }
            var answers: [(Int, Result<Reply, ServiceError>)] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }.map { (services[$0.0], $0.1) }
        }
    }
}
