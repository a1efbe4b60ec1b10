import AccessToken
import AuthContract
import Contract
import Crypto
import Foundation
import JWTKit
import Store

/// Signs and checks access tokens: JWTs signed with EdDSA (Ed25519), 15 minutes long.
///
/// The gateway verifies tokens itself with the public key from ``jwks()``, so most requests never
/// reach `auth`.
public struct TokenIssuer: Sendable {
    /// How long an access token lives.
    public static let accessTokenLifetime: TimeInterval = 15 * 60

    /// The key id in the token header and the JWKS.
    public let kid: String
    let privateKey: Curve25519.Signing.PrivateKey
    let keys: JWTKeyCollection
    let clock: any WallClock

    /// An issuer signing with `privateKey` (raw 32 bytes) under `kid`.
    public static func make(kid: String, privateKey raw: Data, clock: any WallClock) async throws -> TokenIssuer {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        let keys = JWTKeyCollection()
        await keys.add(eddsa: EdDSA.PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
        return TokenIssuer(kid: kid, privateKey: key, keys: keys, clock: clock)
    }

    /// A signed access token for `userId` with `roles`, and its lifetime in seconds.
    public func issue(userId: String, roles: [String]) async throws -> (token: String, expiresIn: Int) {
        let now = clock.now()
        let claims = AccessClaims(
            userId: userId, roles: roles, issuedAt: now, expiresAt: now.addingTimeInterval(Self.accessTokenLifetime))
        let token = try await keys.sign(claims, kid: JWKIdentifier(string: kid))
        return (token, Int(Self.accessTokenLifetime))
    }

    /// The claims of a valid token; `unauthenticated` for a bad signature, another key, another
    /// algorithm (including `none`) or an expired token.
    public func verify(_ token: String) async throws(ServiceError) -> AccessClaims {
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch {
            throw ServiceError(.unauthenticated, "the access token is not valid")
        }
        guard claims.exp.value > clock.now() else {
            throw ServiceError(.unauthenticated, "the access token has expired")
        }
        return claims
    }

    /// The public key as a JSON Web Key Set (RFC 7517, OKP/Ed25519 per RFC 8037).
    public func jwks() -> Auth.JWKS.Reply {
        let x = privateKey.publicKey.rawRepresentation.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return .init(keys: [.init(kty: "OKP", crv: "Ed25519", x: x, kid: kid, alg: "EdDSA", use: "sig")])
    }
}
