import AsyncHTTPClient
import Foundation
import NIOCore

/// Firebase Cloud Messaging, HTTP v1 API (`POST /v1/projects/{project}/messages:send`), as one
/// Firebase project that holds the Android and web apps of all five apps.
public struct FCMClient: PushClient {
    /// Where to send.
    public struct Settings: Sendable {
        /// `https://fcm.googleapis.com` (or a local test server).
        public var endpoint: String
        /// The Firebase project id.
        public var projectId: String
        public init(endpoint: String, projectId: String) {
            self.endpoint = endpoint
            self.projectId = projectId
        }
    }

    let settings: Settings
    let tokens: any AccessTokenSource
    let http: HTTPClient

    /// A provider that authorizes with `tokens` (``ServiceAccountTokens`` in production).
    public init(settings: Settings, tokens: any AccessTokenSource, http: HTTPClient = .shared) {
        self.settings = settings
        self.tokens = tokens
        self.http = http
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        let accessToken: String
        do {
            accessToken = try await tokens.accessToken()
        } catch let error as AccessTokenError {
            return error.isConfiguration ? .misconfigured("OAuth \(error.reason)") : .retry(error.description)
        } catch {
            return .retry("FCM access token: \(error)")
        }
        do {
            var request = HTTPClientRequest(url: "\(settings.endpoint)/v1/projects/\(settings.projectId)/messages:send")
            request.method = .POST
            request.headers.add(name: "authorization", value: "Bearer \(accessToken)")
            request.headers.add(name: "content-type", value: "application/json")
            let body: [String: Any] = [
                "message": [
                    "token": message.token,
                    "notification": ["title": message.title, "body": message.body],
                    "data": ["notificationId": message.notificationId.uuidString.lowercased()],
                ]
            ]
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            let response = try await http.execute(request, timeout: .seconds(15))
            let data = try await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            if status == 200 { return .delivered }
            if status == 401 { await tokens.invalidate(accessToken) }
            return Self.outcome(status: status, body: Data(data.readableBytesView))
        } catch {
            return .retry("FCM not reachable: \(error)")
        }
    }

    /// FCM error codes that say our set-up is wrong (credentials, project, the APNs or web-push
    /// key in Firebase), not the token.
    public static let configurationCodes: Set<String> = [
        "SENDER_ID_MISMATCH", "THIRD_PARTY_AUTH_ERROR", "PERMISSION_DENIED", "UNAUTHENTICATED", "NOT_FOUND",
    ]

    /// The rule for FCM answers other than 200 (`error.status` and the FcmError `errorCode`):
    /// only `UNREGISTERED` forgets the token; credentials and project refusals (401, 403, a 404
    /// that is not `UNREGISTERED`) are configuration errors; `INVALID_ARGUMENT` fails the push
    /// and keeps the token.
    public static func outcome(status: Int, body: Data) -> PushOutcome {
        let error = ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["error"] as? [String: Any]
        let state = error?["status"] as? String ?? ""
        let codes = (error?["details"] as? [[String: Any]] ?? []).compactMap { $0["errorCode"] as? String }
        if codes.contains("UNREGISTERED") || state == "UNREGISTERED" { return .invalidToken("UNREGISTERED") }
        if let code = (codes + [state]).first(where: configurationCodes.contains) { return .misconfigured(code) }
        if status == 401 || status == 403 || status == 404 {
            return .misconfigured(state.isEmpty ? "HTTP \(status)" : state)
        }
        if status == 429 || (500..<600).contains(status) { return .retry("FCM \(status) \(state)") }
        return .failed("FCM \(status) \(codes.first ?? state)")
    }
}
