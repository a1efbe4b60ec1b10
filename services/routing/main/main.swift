import RoutingService
import ServiceKit

await WorkerHost.main(RoutingService.spec, RoutingService.definition)
