import HydrationService
import ServiceKit

await WorkerHost.main(HydrationService.spec, HydrationService.definition)
