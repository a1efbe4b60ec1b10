import Contract
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PrintingContract
import ServiceKit
import Testing

@testable import GatewayService

/// The greeting routes through the gateway: the language chosen from `lang` or
/// `Accept-Language` reaches printing and comes back in `Content-Language`; a bad `lang` is a
/// 400 before any call.
@Suite("gateway: greeting routes")
struct GreetingRouteTests {
    @Test("lang, else Accept-Language, reaches printing and is answered in Content-Language with Vary")
    func language() async throws {
        var router = OperationRouter(service: .printing, logger: BusRouteTests.logger)
        router.register(Printing.ListGreetingTemplates.self) { request, _ in
            let language = GreetingLanguage(rawValue: request.lang ?? "") ?? .en
            return .init(
                language: language,
                items: [.init(id: "x-01", occasion: .birthday, text: request.occasion ?? "-", usesPlace: false)])
        }
        try await GatewayTests.withWorker(router) { endpoint in
            try await GatewayTests().app(broker: endpoint, services: "printing").test(.router) { client in
                let cases: [(String, HTTPFields, String)] = [
                    ("/v1/greetings/templates", [:], "en"),
                    ("/v1/greetings/templates", [.acceptLanguage: "sv-SE, en;q=0.8"], "sv"),
                    ("/v1/greetings/templates?occasion=birthday", [.acceptLanguage: "de, af;q=0.5"], "af"),
                    ("/v1/greetings/templates?lang=sv", [.acceptLanguage: "af"], "sv"),
                ]
                for (uri, headers, expected) in cases {
                    let answer = try await client.execute(uri: uri, method: .get, headers: headers)
                    #expect(answer.status == .ok)
                    #expect(answer.headers[.contentLanguage] == expected, "\(uri) \(headers)")
                    #expect(answer.headers[.vary] == "Accept-Language")
                    #expect(try BusRouteTests.json(answer)["language"] as? String == expected)
                }
                let bad = try await client.execute(uri: "/v1/greetings/templates?lang=de", method: .get)
                #expect(bad.status == .badRequest && bad.headers[.contentLanguage] == nil)
                #expect((try BusRouteTests.json(bad)["details"] as? [String: Any])?["field"] as? String == "lang")
                let suggestions = try await client.execute(uri: "/v1/greetings/suggestions?lat=1&lon=1", method: .get)
                #expect(suggestions.status == .unauthorized, "suggestions need a signed-in caller")
            }
        }
    }
}
