import PrintingService
import ServiceKit

await WorkerHost.main(PrintingService.spec, PrintingService.definition)
