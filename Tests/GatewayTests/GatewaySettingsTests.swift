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

    @Test("HTTP_BACKLOG: 4096 unless set, refused outside 1-65535")
    func backlog() throws {
        #expect(try GatewaySettings(ProcessEnvironment([:])).backlog == 4096)
        #expect(try GatewaySettings(ProcessEnvironment(["HTTP_BACKLOG": "512"])).backlog == 512)
        for bad in ["0", "70000", "many"] {
            #expect(throws: ProcessEnvironment.InvalidSetting.self) {
                try GatewaySettings(ProcessEnvironment(["HTTP_BACKLOG": bad]))
            }
        }
    }

    @Test("BROKER_URL: the gateway takes tcp://HOST:PORT, and names the setting otherwise")
    func brokerURL() throws {
        #expect(try GatewaySettings(ProcessEnvironment(["BROKER_URL": "tcp://broker:5555"])).brokerURL == "tcp://broker:5555")
        // Parsed once, here; the bus client takes the parsed endpoint.
        #expect(
            try GatewaySettings(ProcessEnvironment(["BROKER_URL": "tcp://[::1]:5555"])).brokerEndpoint
                == .init(host: "::1", port: 5555))
        for bad in ["broker:5555", "tcp://broker", "inproc://broker", "tcp://*:5555", "ipc:///run/broker"] {
            do {
                _ = try GatewaySettings(ProcessEnvironment(["BROKER_URL": bad]))
                Issue.record("\(bad) must be refused")
            } catch let error as ProcessEnvironment.InvalidSetting {
                #expect(error.name == "BROKER_URL")
                #expect(error.expected == "tcp://HOST:PORT")
            }
        }
    }
}
