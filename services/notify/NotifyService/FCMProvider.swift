import AsyncHTTPClient
import Foundation
import NIOCore

/// Firebase Cloud Messaging, HTTP v1 API (`POST /v1/projects/{project}/messages:send`).
public struct FCMProvider: PushProvider {
    /// Where and as whom to send.
    public struct Settings: Sendable {
        /// `https://fcm.googleapis.com` (or a local test server).
        public var endpoint: String
        /// The Firebase project id.
        public var projectId: String
        /// An OAuth 2 access token with the `firebase.messaging` scope.
        public var accessToken: String
        public init(endpoint: String, projectId: String, accessToken: String) {
            self.endpoint = endpoint
            self.projectId = projectId
            self.accessToken = accessToken
        }
    }

    let settings: Settings
    let http: HTTPClient

    /// A provider.
    public init(settings: Settings, http: HTTPClient = .shared) {
        self.settings = settings
        self.http = http
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        do {
            var request = HTTPClientRequest(url: "\(settings.endpoint)/v1/projects/\(settings.projectId)/messages:send")
            request.method = .POST
            request.headers.add(name: "authorization", value: "Bearer \(settings.accessToken)")
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
            return Self.outcome(status: status, body: Data(data.readableBytesView))
        } catch {
            return .retry("FCM not reachable: \(error)")
        }
    }

    /// The rule for FCM answers other than 200: `error.status` and the FcmError `errorCode`.
    public static func outcome(status: Int, body: Data) -> PushOutcome {
        let error = ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["error"] as? [String: Any]
        let state = error?["status"] as? String ?? ""
        let codes = (error?["details"] as? [[String: Any]] ?? []).compactMap { $0["errorCode"] as? String }
        if codes.contains("UNREGISTERED") || codes.contains("INVALID_ARGUMENT") || state == "INVALID_ARGUMENT"
            || state == "UNREGISTERED"
        {
            return .invalidToken(codes.first ?? state)
        }
        if status == 429 || (500..<600).contains(status) { return .retry("FCM \(status) \(state)") }
        return .failed("FCM \(status) \(state)")
    }
}
