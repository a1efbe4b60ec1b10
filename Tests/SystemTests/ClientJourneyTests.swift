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
        #expect(try await client.listDevices().ok.body.json.devices.map(\.deviceId) == [device.deviceId])

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
