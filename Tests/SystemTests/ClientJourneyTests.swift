import AsyncHTTPClient
import BackplaneClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing

/// The generated `BackplaneClient`, as an app uses it, against the real processes: if the
/// document and the server disagree about a path, a field or a status, these journeys fail.
@Suite("BackplaneClient journeys (real processes)", .serialized)
struct ClientJourneyTests {
    /// Where the app keeps its access token between calls.
    actor Session {
        var accessToken: String?
        func signedIn(_ token: String) { accessToken = token }
    }

    func client(_ system: SystemHarness, _ session: Session) throws -> Client {
        Client(
            serverURL: try #require(URL(string: "http://127.0.0.1:\(system.httpPort)")),
            transport: AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(20))),
            middlewares: [BearerToken { await session.accessToken }])
    }

    @Test("Gifter's account through the client: register, log in, profile, a device, documented errors")
    func gifterAccount() async throws {
        let system = try await AuthHTTPTests().startAuth()
        defer { _ = system.stopBlocking() }
        let session = Session()
        let client = try client(system, session)
        let name = "client-\(UUID().uuidString.prefix(8))@example.org".lowercased()

        let userId = try await client.register(body: .json(.init(username: name, password: "Lund2026x")))
            .created.body.json.userId
        let tokens = try await client.login(body: .json(.init(username: name, password: "Lund2026x"))).ok.body.json
        #expect(tokens.expiresIn == 900)
        await session.signedIn(tokens.accessToken)

        let me = try await client.getMe().ok.body.json
        #expect(me.userId == userId)
        #expect(me.username == name)
        #expect(me.roles == ["user"])
        let changed = try await client.updateMe(body: .json(.init(phone: "+46701234567", displayName: "Ann")))
            .ok.body.json
        #expect(changed.displayName == "Ann")
        #expect(changed.phone == "+46701234567")

        let token = "push-\(UUID().uuidString)"
        let device = try await client.registerDevice(
            body: .json(.init(token: token, platform: .ios, osVersion: "17.4", app: "gifter"))
        ).created.body.json
        #expect(device.token == token)
        let again = try await client.registerDevice(
            body: .json(.init(token: token, platform: .ios, osVersion: "17.5", app: "gifter"))
        ).ok.body.json
        #expect(again.deviceId == device.deviceId)
        #expect(try await client.listDevices().ok.body.json.items.map(\.deviceId) == [device.deviceId])

        // Errors arrive as the document says: the shared error body, its code an open enum.
        let weak = try await client.register(body: .json(.init(username: "x\(name)", password: "password")))
        guard case .badRequest(let refused) = weak else {
            Issue.record("a weak password must be a 400, got \(weak)")
            return
        }
        #expect(try refused.body.json.code.value1 == .invalidArgument)
        let wrong = try await client.login(body: .json(.init(username: name, password: "Wrong2026x")))
        guard case .unauthorized(let unauthorized) = wrong else {
            Issue.record("a wrong password must be a 401, got \(wrong)")
            return
        }
        #expect(try unauthorized.body.json.code.value1 == .unauthenticated)
        #expect(try unauthorized.body.json.requestId?.isEmpty == false)
    }
}

extension ClientJourneyTests {
    @Test("NavUP through the client: find two venues, a route between them, locate from a Wi-Fi scan")
    func navupCampus() async throws {
        let system = try await RoutingHTTPTests().startRouting()
        defer { _ = system.stopBlocking() }
        let client = try client(system, Session())

        let venues = try await client.searchVenues(query: .init(limit: 50)).ok.body.json.items
        try #require(venues.count >= 2, "the sample campus has venues")
        let (from, to) = (venues[0], venues[1])
        let route = try await client.planRoute(
            body: .json(.init(from: .init(venueId: from.id), to: .init(venueId: to.id), profile: "fastest"))
        ).ok.body.json
        #expect(route.distance > 0)
        #expect(route.eta > 0)
        #expect(route.path.count >= 2)

        let accessPoints = try await client.listAccessPoints().ok.body.json.accessPoints
        let strongest = try #require(accessPoints.first)
        let location = try await client.locate(
            body: .json(.init(scan: [.init(bssid: strongest.bssid, rssi: -45)]))
        ).ok.body.json
        #expect(abs(location.lat - strongest.lat) < 0.01 && abs(location.lon - strongest.lon) < 0.01)

        // A malformed venue id is refused as documented.
        let bad = try await client.planRoute(
            body: .json(.init(from: .init(venueId: from.id), to: .init(lat: 91, lon: 0))))
        guard case .badRequest = bad else {
            Issue.record("a latitude of 91 must be a 400, got \(bad)")
            return
        }
    }

    @Test("PostcardBuddy through the client: a card saved, a quote, an order paid, the order read back")
    func postcardOrder() async throws {
        let system = try await OrdersHTTPTests().start()
        defer { _ = system.stopBlocking() }
        let session = Session()
        let client = try client(system, session)
        let name = "card-\(UUID().uuidString.prefix(8))@example.org".lowercased()
        _ = try await client.register(body: .json(.init(username: name, password: "Lund2026x"))).created
        await session.signedIn(
            try await client.login(body: .json(.init(username: name, password: "Lund2026x"))).ok.body.json.accessToken)

        let card = try await client.addPaymentMethod(
            body: .json(.init(number: "4242424242424242", expMonth: 12, expYear: 2099, cvc: "123"))
        ).created.body.json
        #expect(card.last4 == "4242")
        let quote = try await client.createQuote(
            body: .json(.init(size: "A6", recipients: [.init(country: "SE")], currency: "EUR"))
        ).ok.body.json
        #expect(quote.total.currency == "EUR")
        #expect(quote.total.amount > 0)

        let recipient = Components.Schemas.PostalRecipient(
            name: "Ada Lund", address: .init(line1: "Storgatan 1", city: "Lund", postalCode: "22350", country: "SE"))
        let order = try await client.createOrder(
            headers: .init(idempotencyKey: "journey-\(UUID().uuidString)"),
            body: .json(
                .init(
                    kind: .postcard,
                    postcard: .init(size: "A6", greeting: "Hälsningar från Lund", recipients: [recipient]),
                    currency: "EUR", paymentMethodId: card.id, quoteId: quote.quoteId))
        ).created.body.json
        #expect(order.total == quote.total)
        let read = try await client.getOrder(path: .init(id: order.id)).ok.body.json
        #expect(read.id == order.id)
        #expect(read.kind == "postcard")
        #expect(read.paymentMethod?.last4 == "4242")
    }
}
