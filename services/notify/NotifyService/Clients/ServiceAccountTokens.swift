import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import Store

/// FCM access tokens from a Google service account (OAuth 2 JWT bearer grant, RFC 7523): an
/// RS256 assertion signed with the account's key, exchanged at its `token_uri`, cached and
/// renewed ``renewBefore`` seconds before it expires by the injected clock. Callers that find the
/// token stale at once share one exchange.
public actor ServiceAccountTokens: AccessTokenSource {
    /// The scope FCM HTTP v1 needs.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long an assertion is valid (Google accepts at most an hour).
    public static let assertionLifetime: TimeInterval = 3600

    struct Assertion: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    struct Grant: Decodable {
        var accessToken: String
        var expiresIn: Double
        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    let account: GoogleServiceAccount
    let keys = JWTKeyCollection()
    let http: HTTPClient
    let clock: any WallClock
    /// Seconds before expiry that a token is renewed.
    public let renewBefore: TimeInterval
    /// How long a refused exchange is answered from memory, so that a bad key costs the token
    /// endpoint one request per interval rather than one per push.
    public let refusalMemory: TimeInterval = 30
    var current: (token: String, expires: Date)?
    var exchanging: Task<(token: String, expires: Date), any Error>?
    var refused: (error: AccessTokenError, at: Date)?

    /// Tokens for `account`; an error when its `private_key` is not an RSA PEM.
    public init(
        account: GoogleServiceAccount, http: HTTPClient = .shared, clock: any WallClock, renewBefore: TimeInterval = 300
    ) async throws {
        self.account = account
        self.http = http
        self.clock = clock
        self.renewBefore = renewBefore
        let key: Insecure.RSA.PrivateKey
        do {
            key = try Insecure.RSA.PrivateKey(pem: account.privateKey)
        } catch {
            throw AccessTokenError(isConfiguration: true, reason: "the service account's private_key is not an RSA PEM")
        }
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: account.privateKeyId.map { JWKIdentifier(string: $0) })
    }

    public func accessToken() async throws -> String {
        if let current, clock.now() < current.expires.addingTimeInterval(-renewBefore) { return current.token }
        if let exchanging { return try await exchanging.value.token }
        if let refused, clock.now().timeIntervalSince(refused.at) < refusalMemory { throw refused.error }
        let task = Task { try await exchange() }
        exchanging = task
        defer { exchanging = nil }
        do {
            let fresh = try await task.value
            current = fresh
            refused = nil
            return fresh.token
        } catch let error as AccessTokenError where error.isConfiguration {
            refused = (error, clock.now())
            throw error
        }
    }

    public func invalidate(_ token: String) {
        if current?.token == token { current = nil }
    }

    /// Signs an assertion and trades it for an access token.
    func exchange() async throws -> (token: String, expires: Date) {
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let assertion = try await keys.sign(
            Assertion(
                iss: .init(value: account.clientEmail), scope: Self.scope, aud: .init(value: account.tokenURI),
                iat: .init(value: now), exp: .init(value: now.addingTimeInterval(Self.assertionLifetime))),
            kid: account.privateKeyId.map { JWKIdentifier(string: $0) })
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "accept", value: "application/json")
        // The assertion is base64url and dots: nothing in it needs escaping in a form body.
        request.body = .bytes(
            ByteBuffer(
                string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await http.execute(request, timeout: .seconds(15))
            body = try await response.body.collect(upTo: 64 * 1024)
        } catch {
            throw AccessTokenError(isConfiguration: false, reason: "token endpoint not reachable: \(error)")
        }
        let status = Int(response.status.code)
        let data = Data(body.readableBytesView)
        guard status == 200 else {
            let error = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["error"] as? String
            let reason = error ?? "HTTP \(status)"
            throw AccessTokenError(isConfiguration: status < 500 && status != 429, reason: reason)
        }
        guard let grant = try? JSONDecoder().decode(Grant.self, from: data), !grant.accessToken.isEmpty else {
            throw AccessTokenError(isConfiguration: false, reason: "the token endpoint's answer has no access_token")
        }
        return (grant.accessToken, now.addingTimeInterval(grant.expiresIn))
    }
}
