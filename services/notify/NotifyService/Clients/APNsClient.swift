import AsyncHTTPClient
import Contract
import Foundation
import JWTKit
import NIOCore
import Store
import Synchronization

/// Apple Push Notification service over HTTP/2 with token-based auth: an ES256 JWT (key id,
/// team id), renewed every 50 minutes. One key serves every app of the team; the topic is the
/// device's app's bundle id, the host the device's environment (sandbox or production).
public struct APNsClient: PushClient {
    /// Where and as whom to send.
    public struct Settings: Sendable {
        /// `https://api.push.apple.com` (or a local test server): production tokens.
        public var endpoint: String
        /// `https://api.sandbox.push.apple.com` (or a local test server): tokens of development builds.
        public var sandboxEndpoint: String
        /// The team id (JWT `iss`).
        public var teamId: String
        /// The key id (JWT header `kid`).
        public var keyId: String
        /// Each app's bundle id (`apns-topic`).
        public var topics: APNsTopics
        /// The `.p8` key, PEM.
        public var privateKeyPEM: String
        public init(
            endpoint: String, sandboxEndpoint: String, teamId: String, keyId: String, topics: APNsTopics,
            privateKeyPEM: String
        ) {
            self.endpoint = endpoint
            self.sandboxEndpoint = sandboxEndpoint
            self.teamId = teamId
            self.keyId = keyId
            self.topics = topics
            self.privateKeyPEM = privateKeyPEM
        }
    }

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let settings: Settings
    let keys: JWTKeyCollection
    let http: HTTPClient
    let clock: any WallClock
    let cached = TokenCache()

    /// The provider token and when it was signed, shared by copies of the provider.
    final class TokenCache: Sendable {
        let value = Mutex<(token: String, issued: Date)?>(nil)
        func withLock<T>(_ body: (inout (token: String, issued: Date)?) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// A provider; `invalid_argument`-style error when the key is not an EC P-256 PEM.
    public init(settings: Settings, http: HTTPClient = .shared, clock: any WallClock) async throws {
        self.settings = settings
        self.http = http
        self.clock = clock
        self.keys = JWTKeyCollection()
        await keys.add(
            ecdsa: try ES256PrivateKey(pem: settings.privateKeyPEM), kid: JWKIdentifier(string: settings.keyId))
    }

    /// The provider token, reused for 50 minutes (APNs refuses tokens older than an hour and
    /// ones renewed more often than every 20 minutes).
    func token() async throws -> String {
        let now = clock.now()
        if let current = cached.withLock({ $0 }), now.timeIntervalSince(current.issued) < 3000 { return current.token }
        let token = try await keys.sign(
            Claims(iss: .init(value: settings.teamId), iat: .init(value: now)),
            kid: JWKIdentifier(string: settings.keyId))
        cached.withLock { $0 = (token, now) }
        return token
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        guard let topic = settings.topics.topic(for: message.app) else { return .misconfigured("NoTopic") }
        let base = message.apnsEnvironment == .sandbox ? settings.sandboxEndpoint : settings.endpoint
        do {
            var request = HTTPClientRequest(url: "\(base)/3/device/\(Self.pathSegment(message.token))")
            request.method = .POST
            request.headers.add(name: "authorization", value: "bearer \(try await token())")
            request.headers.add(name: "apns-topic", value: topic)
            request.headers.add(name: "apns-push-type", value: "alert")
            request.headers.add(name: "apns-id", value: message.notificationId.uuidString)
            request.headers.add(name: "content-type", value: "application/json")
            let body: [String: Any] = [
                "aps": ["alert": ["title": message.title, "body": message.body], "sound": "default"],
                "notificationId": message.notificationId.uuidString.lowercased(),
            ]
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            let response = try await http.execute(request, timeout: .seconds(15))
            let data = try await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            if status == 200 { return .delivered }
            let reason =
                ((try? JSONSerialization.jsonObject(with: Data(data.readableBytesView))) as? [String: Any])?["reason"]
                as? String
                ?? "HTTP \(status)"
            if reason.hasSuffix("ProviderToken") { cached.withLock { $0 = nil } }
            return Self.outcome(status: status, reason: reason)
        } catch {
            return .retry("APNs not reachable: \(error)")
        }
    }

    /// `token` as one URL path segment: a registered token is the client's word, and one with a
    /// `/`, `?` or `#` must not reach another path (APNs tokens are hex, so real ones pass as they are).
    public static func pathSegment(_ token: String) -> String {
        token.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// APNs reasons that say our set-up is wrong (topic, key, certificate), not the token.
    public static let configurationReasons: Set<String> = [
        "DeviceTokenNotForTopic", "BadTopic", "TopicDisallowed", "MissingTopic", "BadCertificate",
        "BadCertificateEnvironment", "InvalidProviderToken", "MissingProviderToken", "Forbidden", "BadPath",
        "InvalidPushType",
    ]

    /// The rule for APNs answers other than 200: only a token APNs no longer knows (410,
    /// `Unregistered`) or calls malformed for this host (`BadDeviceToken`) is forgotten; a
    /// refusal of our topic, key or certificate (every 403) is a configuration error.
    public static func outcome(status: Int, reason: String) -> PushOutcome {
        switch (status, reason) {
        case (410, _), (_, "Unregistered"), (400, "BadDeviceToken"): return .invalidToken(reason)
        case (_, "ExpiredProviderToken"): return .retry("APNs \(status) \(reason)")
        case (403, _): return .misconfigured(reason)
        case (_, let reason) where configurationReasons.contains(reason): return .misconfigured(reason)
        case (429, _), (500..<600, _): return .retry("APNs \(status) \(reason)")
        default: return .failed("APNs \(status) \(reason)")
        }
    }
}
