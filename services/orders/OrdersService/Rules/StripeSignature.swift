import Contract
import Crypto
import Foundation

/// Stripe's webhook signature: the `Stripe-Signature` header `t=<unix seconds>,v1=<hex>[,v1=...]`,
/// where each `v1` is HMAC-SHA256 of `"<t>.<raw body>"` keyed with the endpoint's secret. A
/// message is accepted when one `v1` matches (compared in constant time) and `t` is within
/// `tolerance` of `now` either way, so a captured message cannot be replayed later.
public struct StripeSignature: Sendable {
    /// The endpoint's signing secret (`whsec_...`).
    let secret: String
    /// How far `t` may be from now.
    let tolerance: TimeInterval

    /// A verifier for `secret`.
    public init(secret: String, tolerance: TimeInterval) {
        self.secret = secret
        self.tolerance = tolerance
    }

    /// Checks `header` against `payload` at `now`; `invalid_argument` (400) naming the header
    /// when it is missing, malformed, does not match, or is outside the tolerance.
    public func verify(payload: String, header: String?, now: Date) throws(ServiceError) {
        guard let header, !header.isEmpty else { throw Self.refused("the Stripe-Signature header is missing") }
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1].lowercased()) }
        }
        guard let timestamp, !signatures.isEmpty else {
            throw Self.refused("the Stripe-Signature header has no timestamp or no v1 signature")
        }
        guard abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else {
            throw Self.refused("the Stripe-Signature timestamp is outside the tolerance (a replay, or a clock far off)")
        }
        let expected = sign(payload: payload, timestamp: timestamp)
        guard signatures.contains(where: { Self.constantTimeEqual($0, expected) }) else {
            throw Self.refused("the Stripe-Signature does not match the payload")
        }
    }

    /// The `v1` signature of `payload` at `timestamp`, in hex.
    public func sign(payload: String, timestamp: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(timestamp).\(payload)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Data(mac).map { String(format: "%02x", $0) }.joined()
    }

    /// A whole header for `payload` at `timestamp` (what Stripe sends; for tests and the stand-in).
    public func header(payload: String, timestamp: Int64) -> String {
        "t=\(timestamp),v1=\(sign(payload: payload, timestamp: timestamp))"
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    static func refused(_ message: String) -> ServiceError {
        ServiceError(.invalidArgument, message, details: ["field": "Stripe-Signature"])
    }
}
