/// A request path as it may appear in a log line: every segment that is not a literal segment of
/// one of the API's paths becomes `{}`.
///
/// Path parameters can be capabilities (an e-card's share token, a voucher code) or a person's
/// data; an allow-list of the document's own literal segments keeps all of them out of the logs,
/// including in paths that match no route.
struct LoggedPath: Sendable {
    private let literals: Set<Substring>

    /// The literal segments of the paths declared in an OpenAPI document (YAML, paths indented
    /// by two spaces under `paths:`).
    init(document: [UInt8]) {
        var literals = Set<Substring>()
        for line in String(decoding: document, as: UTF8.self).split(separator: "\n") {
            guard line.hasPrefix("  /"), line.hasSuffix(":") else { continue }
            for segment in line.dropFirst(2).dropLast().split(separator: "/") where !segment.hasPrefix("{") {
                literals.insert(segment)
            }
        }
        self.literals = literals
    }

    /// `path` with every segment not in the allow-list replaced by `{}`.
    func redact(_ path: String) -> String {
        var result = ""
        result.reserveCapacity(path.utf8.count)
        for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            result += "/"
            result += segment.isEmpty || literals.contains(segment) ? segment : "{}"
        }
        return result.isEmpty ? "/" : result
    }
}
