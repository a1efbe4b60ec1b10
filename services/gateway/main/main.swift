import GatewayService
import ServiceKit

await Launcher.main(Gateway.spec, probe: Gateway.probe, run: Gateway.run)
