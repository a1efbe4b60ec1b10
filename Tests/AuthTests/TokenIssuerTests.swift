import AccessToken
import AuthService
import Contract
import Crypto
import Foundation
import JWTKit
import Store
import Testing

@Suite("Access tokens (EdDSA JWT)")
struct TokenIssuerTests {
    func issuer(kid: String = "k1", clock: ManualClock = ManualClock()) async throws -> TokenIssuer {
        try await TokenIssuer.make(
            kid: kid, privateKey: Curve25519.Signing.PrivateKey().rawRepresentation, clock: clock)
    }

    func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("a token carries the user and roles, and lives exactly 15 minutes")
    func lifetime() async throws {
        let clock = ManualClock()
        let tokens = try await issuer(clock: clock)
        let (token, expiresIn) = try await tokens.issue(userId: "u1", roles: ["user", "printer"])
        #expect(expiresIn == 900)
        let claims = try await tokens.verify(token)
        #expect(claims.sub.value == "u1")
        #expect(claims.roles == ["user", "printer"])
        clock.advance(by: 899)
        #expect((try? await tokens.verify(token)) != nil)
        clock.advance(by: 1)
        await #expect(throws: ServiceError.self) { _ = try await tokens.verify(token) }
    }

    @Test("alg none, a foreign key and a tampered payload all fail")
    func forgeries() async throws {
        let tokens = try await issuer()
        let (token, _) = try await tokens.issue(userId: "u1", roles: ["user"])
        let parts = token.split(separator: ".").map(String.init)
        let none = base64url(#"{"alg":"none","typ":"JWT","kid":"k1"}"#) + "." + parts[1] + "."
        await #expect(throws: ServiceError.self) { _ = try await tokens.verify(none) }
        let foreign = try await issuer(kid: "k1")
        let (forged, _) = try await foreign.issue(userId: "u1", roles: ["admin"])
        await #expect(throws: ServiceError.self) { _ = try await tokens.verify(forged) }
        let elevated =
            parts[0] + "." + base64url(#"{"sub":"u1","roles":["admin"],"iat":1,"exp":99999999999,"iss":"backplane"}"#)
            + "." + parts[2]
        await #expect(throws: ServiceError.self) { _ = try await tokens.verify(elevated) }
    }

    @Test("the JWKS lets another party verify tokens without the private key (the gateway's way)")
    func jwks() async throws {
        let tokens = try await issuer()
        let (token, _) = try await tokens.issue(userId: "u1", roles: ["user"])
        let set = tokens.jwks()
        #expect(set.keys.first?.kty == "OKP")
        #expect(set.keys.first?.crv == "Ed25519")
        let json = String(decoding: try JSONEncoder().encode(set), as: UTF8.self)
        let verifier = JWTKeyCollection()
        try await verifier.add(jwksJSON: json)
        let claims = try await verifier.verify(token, as: AccessClaims.self)
        #expect(claims.sub.value == "u1")
    }
}
