import Foundation
import Synchronization

/// Every secret the system tests sent or were given (passwords, access, refresh and reset
/// tokens, card numbers, idempotency keys), noted as the requests go by, so that the harness can
/// search the processes' logs for each of them (``SystemHarness/scanLogsForSecrets()``).
enum SecretLedger {
    /// JSON fields whose values are secrets, in requests and in answers.
    static let secretFields: Set<String> = [
        "password", "currentPassword", "newPassword", "accessToken", "refreshToken", "resetToken", "token",
        "number", "cardNumber", "pushToken", "deviceToken",
    ]

    private static let secrets = Mutex<[String: String]>([:])  // secret -> what it is

    /// Notes the secrets of one exchange: the bearer token and idempotency key sent, the JSON
    /// request body's secret fields, and those of the answer.
    static func note(headers: [String: String], body: String?, response: String) {
        var found: [String: String] = [:]
        for (name, value) in headers {
            switch name.lowercased() {
            case "authorization": found[String(value.dropFirst("Bearer ".count))] = "bearer token"
            case "idempotency-key": found[value] = "idempotency key"
            case "x-subscription-secret": found[value] = "subscription secret"
            default: break
            }
        }
        if let body { collect(jsonText: body, into: &found) }
        if let start = response.range(of: "\r\n\r\n") {
            collect(jsonText: String(response[start.upperBound...]), into: &found)
        }
        // Short values (a CVC, a one-letter key) would match timestamps and counters by chance.
        let worthSearching = found.filter { $0.key.count >= 8 }
        guard !worthSearching.isEmpty else { return }
        secrets.withLock { $0.merge(worthSearching) { old, _ in old } }
    }

    /// Notes one secret a test handed a process another way (a setting, e.g. an API key).
    static func note(_ secret: String, as kind: String) {
        secrets.withLock { $0[secret] = kind }
    }

    /// What kind of secret each hit in `text` is (never the secret itself).
    static func hits(in text: String) -> [String] {
        secrets.withLock { $0 }.compactMap { secret, kind in text.contains(secret) ? kind : nil }
    }

    private static func collect(jsonText: String, into found: inout [String: String]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(jsonText.utf8), options: [.fragmentsAllowed])
        else { return }
        walk(object, into: &found)
    }

    private static func walk(_ value: Any, into found: inout [String: String]) {
        if let object = value as? [String: Any] {
            for (key, inner) in object {
                if secretFields.contains(key), let text = inner as? String { found[text] = key }
                walk(inner, into: &found)
            }
        } else if let array = value as? [Any] {
            for inner in array { walk(inner, into: &found) }
        }
    }
}
