import GatewayService
import ServiceKit
import Testing

@testable import GatewayService

/// Settings the gateway reads at start and refuses by name.
@Suite("Gateway settings")
struct GatewaySettingsTests {
    @Test("HTTP_EVENT_LOOPS: auto is half the cores (at least one), a number is taken, anything else is refused")
    func eventLoops() throws {
        #expect(GatewaySettings.automaticEventLoops(cores: 1) == 1)
        #expect(GatewaySettings.automaticEventLoops(cores: 2) == 1)
        #expect(GatewaySettings.automaticEventLoops(cores: 3) == 1)
        #expect(GatewaySettings.automaticEventLoops(cores: 8) == 4)
        #expect(try GatewaySettings(ProcessEnvironment([:])).eventLoops >= 1)
        #expect(try GatewaySettings(ProcessEnvironment(["HTTP_EVENT_LOOPS": "3"])).eventLoops == 3)
        for bad in ["0", "-1", "257", "two", "Auto"] {
            do {
                _ = try GatewaySettings(ProcessEnvironment(["HTTP_EVENT_LOOPS": bad]))
                Issue.record("\(bad) must be refused")
            } catch let error as ProcessEnvironment.InvalidSetting {
                #expect(error.name == "HTTP_EVENT_LOOPS")
                #expect(error.expected == "auto, or a number of loops from 1 to 256")
            }
        }
    }

    @Test("BROKER_URL: the gateway takes tcp://HOST:PORT and ipc://PATH, and names the setting otherwise")
    func brokerURL() throws {
        #expect(try GatewaySettings(ProcessEnvironment(["BROKER_URL": "tcp://broker:5555"])).brokerURL == "tcp://broker:5555")
        #expect(try GatewaySettings(ProcessEnvironment(["BROKER_URL": "ipc:///run/broker"])).brokerURL == "ipc:///run/broker")
        for bad in ["broker:5555", "tcp://broker", "inproc://broker", "tcp://*:5555"] {
            do {
                _ = try GatewaySettings(ProcessEnvironment(["BROKER_URL": bad]))
                Issue.record("\(bad) must be refused")
            } catch let error as ProcessEnvironment.InvalidSetting {
                #expect(error.name == "BROKER_URL")
                #expect(error.expected == "tcp://HOST:PORT or ipc://PATH")
            }
        }
    }
}
