import CivicService
import ServiceKit

await WorkerHost.main(CivicService.spec, CivicService.definition)
