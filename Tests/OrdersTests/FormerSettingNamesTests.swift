import Foundation
import OrdersService
import ServiceKit
import TestSupport
import Testing

/// Durations are named `_MS` or `_S`; a setting's former name (`QUOTE_VALID_MINUTES`,
/// `IDEMPOTENCY_KEY_HOURS`, …) keeps working in its old unit, with a warning naming the new one.
@Suite struct FormerSettingNamesTests {
    @Test func theNewNameIsReadInSeconds() throws {
        let configuration = try OrdersService.Configuration(
            ProcessEnvironment(["QUOTE_VALID_S": "600", "IDEMPOTENCY_KEY_S": "172800"]))
        #expect(configuration.quoteValidity == 600)
        #expect(configuration.keyLifetime == 172_800)
    }

    @Test func theFormerNameIsConvertedFromItsUnit() throws {
        let configuration = try OrdersService.Configuration(
            ProcessEnvironment(["QUOTE_VALID_MINUTES": "10", "IDEMPOTENCY_KEY_HOURS": "48", "RATES_REFRESH_SECONDS": "7"]))
        #expect(configuration.quoteValidity == 600)
        #expect(configuration.keyLifetime == 172_800)
        #expect(configuration.ratesRefresh == .seconds(7))
    }

    @Test func theNewNameWinsWhenBothAreSet() throws {
        let configuration = try OrdersService.Configuration(
            ProcessEnvironment(["QUOTE_VALID_MINUTES": "10", "QUOTE_VALID_S": "900"]))
        #expect(configuration.quoteValidity == 900)
    }

    @Test func defaultsAreUnchanged() throws {
        let configuration = try OrdersService.Configuration(ProcessEnvironment([:]))
        #expect(configuration.quoteValidity == 30 * 60)
        #expect(configuration.keyLifetime == 24 * 3_600)
    }

    @Test func aBadFormerValueIsRefusedByTheCurrentName() {
        #expect {
            try OrdersService.Configuration(ProcessEnvironment(["QUOTE_VALID_MINUTES": "soon"]))
        } throws: { error in
            "\(error)".contains("QUOTE_VALID_S=soon")
        }
    }

    @Test func aFormerNameIsWarnedAboutAtStart() {
        let logs = CapturedLogs()
        Launcher.warnAboutFormerNames(
            OrdersService.spec, ProcessEnvironment(["IDEMPOTENCY_KEY_HOURS": "48", "QUOTE_VALID_S": "600"]),
            logs.logger())
        #expect(logs.all.count == 1)
        let line = logs.all.first ?? ""
        #expect(line.hasPrefix("warning setting renamed: use IDEMPOTENCY_KEY_S"))
        #expect(line.contains("setting=IDEMPOTENCY_KEY_HOURS"))
        #expect(line.contains("conversion=value × 3600"))
    }

    @Test func noWarningWithCurrentNames() {
        let logs = CapturedLogs()
        Launcher.warnAboutFormerNames(
            OrdersService.spec, ProcessEnvironment(["IDEMPOTENCY_KEY_S": "86400"]), logs.logger())
        #expect(logs.all.isEmpty)
    }

    @Test func theSettingsJSONNamesFormerNames() throws {
        let document = try JSONSerialization.jsonObject(with: Data(OrdersService.spec.settingsJSON.utf8)) as? [String: Any]
        let settings = document?["settings"] as? [[String: Any]] ?? []
        let key = settings.first { $0["name"] as? String == "IDEMPOTENCY_KEY_S" }
        let former = (key?["formerly"] as? [[String: Any]])?.first
        #expect(former?["name"] as? String == "IDEMPOTENCY_KEY_HOURS")
        #expect(former?["scale"] as? Int == 3_600)
        let database = settings.first { $0["name"] as? String == "DATABASE_URL" }
        #expect((database?["default"] as? String)?.contains("backplane:***@") == true)
    }
}
