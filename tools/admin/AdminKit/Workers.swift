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
}
