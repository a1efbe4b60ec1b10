import BrokerService
import ServiceKit

await Launcher.main(BrokerService.spec, probe: BrokerService.probe, run: BrokerService.run)
