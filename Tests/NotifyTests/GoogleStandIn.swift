import CryptoExtras
import Foundation
import Hummingbird
import JWTKit
import NotifyService
import Store
import Synchronization

/// Google's OAuth token endpoint and FCM's check of the bearer token, for one service account
/// whose RSA key pair the test makes: an assertion is accepted only when its RS256 signature
/// verifies with the public key and its claims are right (iss, scope, aud, an hour at most, iat
/// now by the test's clock); the access tokens it issues are valid for `lifetime` seconds.
final class GoogleStandIn: Sendable {
    struct Assertion: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let privateKey: _RSA.Signing.PrivateKey
    let keyId = "key-\(UUID().uuidString.prefix(8))"
    let clientEmail = "notify@backplane-test.iam.gserviceaccount.com"
    let clock: ManualClock
    let lifetime: TimeInterval
    /// Access tokens issued, with when each expires.
    let issued = Mutex<[(token: String, expires: Date)]>([])
    /// Why assertions were refused.
    let refusals = Mutex<[String]>([])

    init(clock: ManualClock, lifetime: TimeInterval = 3600) throws {
        self.clock = clock
        self.lifetime = lifetime
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The key file Google would issue, with the token endpoint at `base`.
    func account(base: String, key: _RSA.Signing.PrivateKey? = nil) -> GoogleServiceAccount {
        GoogleServiceAccount(
            projectId: "backplane-test", clientEmail: clientEmail, privateKeyId: keyId,
            privateKey: (key ?? privateKey).pkcs8PEMRepresentation, tokenURI: "\(base)/token")
    }

    var exchanges: Int { issued.withLock { $0.count } }

    /// Whether FCM would accept `authorization` now.
    func authorizes(_ authorization: String?) -> Bool {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return false }
        let token = String(authorization.dropFirst(7))
        let now = clock.now()
        return issued.withLock { $0.contains { $0.token == token && now < $0.expires } }
    }

    /// Answers `POST /token` (form body) reached at `tokenURI`.
    func exchange(form: String, tokenURI: String) async -> (HTTPResponse.Status, String) {
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let jwt = fields["assertion"]
        else { return refuse("unsupported_grant_type", "wrong grant_type") }
        let keys = JWTKeyCollection()
        do {
            await keys.add(
                rsa: try Insecure.RSA.PublicKey(pem: privateKey.publicKey.pemRepresentation), digestAlgorithm: .sha256,
                kid: JWKIdentifier(string: keyId))
        } catch {
            return refuse("internal", "bad test key")
        }
        let claims: Assertion
        do {
            claims = try await keys.verify(jwt, as: Assertion.self)
        } catch {
            return refuse("invalid_grant", "signature: \(error)")
        }
        let now = clock.now()
        guard claims.iss.value == clientEmail else { return refuse("invalid_grant", "iss") }
        guard claims.scope == "https://www.googleapis.com/auth/firebase.messaging" else {
            return refuse("invalid_scope", "scope")
        }
        guard claims.aud.value == [tokenURI] else { return refuse("invalid_grant", "aud \(claims.aud.value)") }
        guard abs(claims.iat.value.timeIntervalSince(now)) <= 60,
            claims.exp.value.timeIntervalSince(claims.iat.value) <= 3600, claims.exp.value > now
        else { return refuse("invalid_grant", "iat/exp") }
        let token = "ya29.test-\(UUID().uuidString.lowercased())"
        issued.withLock { $0.append((token, now.addingTimeInterval(lifetime))) }
        return (.ok, #"{"access_token":"\#(token)","expires_in":\#(Int(lifetime)),"token_type":"Bearer"}"#)
    }

    func refuse(_ error: String, _ why: String) -> (HTTPResponse.Status, String) {
        refusals.withLock { $0.append(why) }
        return (.badRequest, #"{"error":"\#(error)","error_description":"\#(why)"}"#)
    }
}
