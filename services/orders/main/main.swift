import OrdersService
import ServiceKit

await WorkerHost.main(OrdersService.spec, OrdersService.definition)
