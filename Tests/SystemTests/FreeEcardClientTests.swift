import BackplaneClient
import Foundation
import Testing

extension ClientJourneyTests {
    @Test(
        "PostcardBuddy through the client: a user with no card sends a free e-card, reads it back, and meets the daily cap as a typed 429"
    )
    func freeEcardWithoutCard() async throws {
        let system = try SystemHarness()
        defer { _ = system.stopBlocking() }
        try system.start("broker")
        try system.start("auth")
        try system.start("orders", extra: ["FREE_ECARD_RECIPIENTS_PER_DAY": "2"])
        try system.start("gateway", extra: ["READINESS_SERVICES": "auth,orders"])
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, await system.get("/readyz")?.status != 200 {
            try await Task.sleep(for: .milliseconds(200))
        }
        try #require(await system.get("/readyz")?.status == 200, "\(system.logs())")
        let session = Session()
        let client = try client(system, session)
        let name = "ecard-\(UUID().uuidString.prefix(8))@example.org".lowercased()
        _ = try await client.register(body: .json(.init(username: name, password: "Lund2026x"))).created
        await session.signedIn(
            try await client.login(body: .json(.init(username: name, password: "Lund2026x"))).ok.body.json.accessToken)
        #expect(try await client.listPaymentMethods().ok.body.json.items.isEmpty, "no card on file")

        func ecard(_ emails: [String]) -> Components.Schemas.OrderRequest {
            .init(
                kind: .ecard,
                ecard: .init(
                    size: "A6", greeting: "Hälsningar från Lund", senderName: "Ann",
                    recipients: emails.map { .init(email: $0) }),
                currency: "EUR")
        }
        let order = try await client.createOrder(
            headers: .init(idempotencyKey: "journey-\(UUID().uuidString)"),
            body: .json(ecard(["bo@example.org", "cy@example.org"]))
        ).created.body.json
        #expect(order.total.amount == 0 && order.total.currency == "EUR")
        let read = try await client.getOrder(path: .init(id: order.id)).ok.body.json
        #expect(read.kind == "ecard" && read.paymentMethod == nil)
        #expect(read.ecard?.recipients?.map(\.email) == ["bo@example.org", "cy@example.org"])

        let over = try await client.createOrder(
            headers: .init(idempotencyKey: "journey-\(UUID().uuidString)"), body: .json(ecard(["dan@example.org"])))
        guard case .tooManyRequests(let refused) = over else {
            Issue.record("a third recipient today must be a 429, got \(over)")
            return
        }
        #expect(refused.headers.retryAfter >= 1 && refused.headers.retryAfter <= 86_400)
        let error = try refused.body.json
        #expect(error.code.value1 == .rateLimited)
        #expect(error.details?.additionalProperties.value["reason"] as? String == "free_ecard_limit")
    }
}
