import Crypto
import Foundation

/// AWS Signature Version 4 for a request signed in its `Authorization` header: the canonical
/// request (method, path, query, the headers named in order, the payload's SHA-256), the string
/// to sign under the credential scope `date/region/service/aws4_request`, and the HMAC-SHA256
/// chain that derives the signing key from the secret. Pure: the time comes from the caller.
public struct SigV4: Sendable {
    public let accessKey: String
    let secretKey: String
    public let region: String
    public let service: String

    public init(accessKey: String, secretKey: String, region: String, service: String) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.region = region
        self.service = service
    }

    /// `YYYYMMDD'T'HHMMSS'Z'` in UTC, as `x-amz-date` carries it.
    public static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
    }

    /// The `Authorization` header's value for a request whose headers (names in any case) already
    /// include `x-amz-date` with `amzDate`; every header given is signed.
    public func authorization(
        method: String, path: String, query: String = "", headers: [(String, String)], payload: [UInt8],
        amzDate: String
    ) -> String {
        let (signed, signature) = signature(
            method: method, path: path, query: query, headers: headers, payload: payload, amzDate: amzDate)
        return "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope(amzDate)), SignedHeaders=\(signed), Signature=\(signature)"
    }

    /// The signed-headers list and the signature (lower-case hex).
    public func signature(
        method: String, path: String, query: String, headers: [(String, String)], payload: [UInt8], amzDate: String
    ) -> (signedHeaders: String, signature: String) {
        let canonical = headers.map { (name: $0.0.lowercased(), value: Self.trim($0.1)) }.sorted { $0.name < $1.name }
        let signedHeaders = canonical.map(\.name).joined(separator: ";")
        let request = [
            method, path.isEmpty ? "/" : path, query,
            canonical.map { "\($0.name):\($0.value)\n" }.joined(), signedHeaders, Self.hex(SHA256.hash(data: payload)),
        ].joined(separator: "\n")
        let toSign = [
            "AWS4-HMAC-SHA256", amzDate, scope(amzDate), Self.hex(SHA256.hash(data: Data(request.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [String(amzDate.prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key)
        return (signedHeaders, Self.hex(signature))
    }

    func scope(_ amzDate: String) -> String { "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request" }

    /// Surrounding spaces removed and inner runs of spaces made one, as the canonical form asks.
    static func trim(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
