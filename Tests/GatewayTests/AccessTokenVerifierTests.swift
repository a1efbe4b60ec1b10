import AuthContract
import AuthService
import Contract
import Foundation
import ServiceKit
import Store
import Testing
import TestSupport

@testable import GatewayService

/// The gateway's token check against keys fetched from a real `auth` worker over a real broker.
@Suite("Gateway: access token verification")
struct AccessTokenVerifierTests {
    @Test("a verified token is remembered until it expires; a bad one never is")
    func remembersVerifiedTokens() async throws {
        let clock = ManualClock(Date())
        let issuer = try await TokenIssuer.make(
            kid: "test-key", privateKey: Data((0..<32).map { UInt8($0) }), clock: clock)
        var router = OperationRouter(service: .auth, logger: GatewayTests.logger)
        router.register(Auth.JWKS.self) { _, _ in issuer.jwks() }
        try await InProcessBus.with(router, concurrency: 2, logger: GatewayTests.logger) { _, bus in
            let verifier = AccessTokenVerifier(bus: bus, clock: clock)
            let userId = UUID().uuidString.lowercased()
            let (token, lifetime) = try await issuer.issue(userId: userId, roles: ["user"])

            #expect(try await verifier.actor(for: token).userId == userId)
            #expect(verifier.rememberedCount == 1)
            #expect(try await verifier.actor(for: token).roles == ["user"], "answered from memory")
            #expect(verifier.rememberedCount == 1)

            // A character well inside the signature: every bit of it counts. (The last character
            // of a base64url Ed25519 signature carries 2 bits, so changing the tail alone can
            // leave the decoded signature as it was.)
            var characters = Array(token)
            let inSignature = characters.count - 10
            characters[inSignature] = characters[inSignature] == "A" ? "B" : "A"
            let tampered = String(characters)
            await #expect(throws: ServiceError.self) { _ = try await verifier.actor(for: tampered) }
            #expect(verifier.rememberedCount == 1, "a token that fails is not remembered")

            clock.advance(by: TimeInterval(lifetime) + 1)  // exp is in whole seconds
            do {
                _ = try await verifier.actor(for: token)
                Issue.record("an expired token must fail, also from memory")
            } catch {
                #expect((error as? ServiceError)?.code == .unauthenticated)
            }
            #expect(verifier.rememberedCount == 0, "an expired token is forgotten")
        }
    }
}
