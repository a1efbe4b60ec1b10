import NotifyService
import ServiceKit

await WorkerHost.main(NotifyService.spec, NotifyService.definition)
